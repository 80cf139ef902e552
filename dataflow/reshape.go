package dataflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// reshape collects one change of the actor sets of fragments, applied at
// one barrier: starting a job (every actor new) and each step of a
// rescale (DESIGN.md §6) are both reshapes. Used under Runtime.mu.
type reshape struct {
	r  *Runtime
	mu *UpdateMutation
	// created are the new actors, in creation order.
	created []*actor
	isNew   map[*actor]bool
	inj     injection
	// handoffs are the losing actors' handoffs.
	handoffs map[*actor]*handoff
	// remote are the vnodes local actors gain from each other node;
	// releasing the handoffs of local losers whose vnodes go to other
	// nodes.
	remote    map[string]*remoteGain
	releasing []*handoff
	// tick is the barrier the reshape applies at; nodes places the
	// actors of new slots (Placement).
	tick  Tick
	nodes Placement
	// creating: the actors belong to a new job that backfills its inputs
	// (Env.Creating).
	creating bool
}

// Placement maps a job's actor slots to the nodes that run them (the
// catalog records it); a slot beyond it, or "", runs on this node. A
// singleton fragment runs where slot 0 does.
type Placement []string

// of returns the node of slot.
func (p Placement) of(slot int) string {
	if slot < len(p) {
		return p[slot]
	}
	return ""
}

func (r *Runtime) newReshape(tick Tick, nodes Placement) *reshape {
	mu := &UpdateMutation{actors: map[*actor]*actorUpdate{}, counters: &rescaleCounters{}}
	return &reshape{r: r, mu: mu, isNew: map[*actor]bool{}, handoffs: map[*actor]*handoff{}, remote: map[string]*remoteGain{}, tick: tick, nodes: nodes,
		inj: injection{mutation: mu, addRoots: map[sourceKey]chan<- Message{}}}
}

// update returns a's part of the mutation.
func (rs *reshape) update(a *actor) *actorUpdate {
	u := rs.mu.actors[a]
	if u == nil {
		u = &actorUpdate{}
		rs.mu.actors[a] = u
	}
	return u
}

// handoff returns the handoff of loser a.
func (rs *reshape) handoff(a *actor) *handoff {
	h := rs.handoffs[a]
	if h == nil {
		h = newHandoff()
		rs.handoffs[a] = h
		rs.update(a).release = h
	}
	return h
}

// gain records that a takes over state from loser.
func (rs *reshape) gain(a, loser *actor) {
	h := rs.handoff(loser)
	u := rs.update(a)
	if !slices.Contains(u.gains, h) {
		u.gains = append(u.gains, h)
	}
}

// reassign gives fragment f the vnode owners owner (vnode -> slot): an
// actor is created for each new slot, dropped for each slot owning no
// vnode, and rebuilt where its vnodes or splits change; each vnode and
// split that changes owner is handed over at the barrier. With replace,
// every actor is new (the restart baseline). A new fragment's actors are
// built at once, others' once their handoffs are done.
func (rs *reshape) reassign(f *fragment, owner []int, replace bool) error {
	r := rs.r
	oldActors, oldOwner := f.actors, f.owner
	f.owner, f.actors = owner, map[int]*actor{}
	var slots []int
	for _, s := range owner {
		if !slices.Contains(slots, s) {
			slots = append(slots, s)
		}
	}
	slices.Sort(slots)
	var src *SourceSpec
	if f.spec != nil {
		src, _ = f.spec.Chain[0].(*SourceSpec)
	}
	for _, s := range slots {
		env := r.env(vnodesOf(owner, s), f.job.zone)
		env.Creating = rs.creating
		if src != nil {
			env.Splits = splitsOf(src.Splits, owner, s)
			env.align = &f.job.align
		}
		if a, ok := oldActors[s]; ok && !replace {
			f.actors[s] = a
			// Splits go with vnodes: same vnodes, same splits.
			if r.local(a) && !vnodesOf(oldOwner, s).Equal(env.VNodes) {
				rs.update(a).env = env
			}
			continue
		}
		a := &actor{id: r.nextActor, job: f.job.id, frag: f.spec.ID, slot: s, born: rs.tick.Epoch, node: rs.nodes.of(s),
			specs: f.spec.Chain, inputs: f.spec.Inputs, out: &dispatcher{}, paused: r.paused, rows: &f.rows}
		r.nextActor++
		f.actors[s] = a
		if !r.local(a) {
			// Another node runs it; this one only names its queues.
			continue
		}
		rs.created = append(rs.created, a)
		rs.isNew[a] = true
		f.job.actors = append(f.job.actors, a)
		if oldActors == nil {
			// A new job: its actors start from storage as it is.
			if err := a.build(env); err != nil {
				return err
			}
		} else {
			rs.update(a).env = env
		}
		if len(f.spec.Inputs) == 0 {
			ch := make(chan Message, queueLen)
			a.ports = append(a.ports, newPort(ch, 0))
			rs.inj.addRoots[rootKey(f, a)] = ch
		}
	}
	for s, a := range oldActors {
		if f.actors[s] == a || !r.local(a) {
			continue
		}
		rs.update(a).stop = true
		rs.inj.stopping++
		f.job.actors = slices.DeleteFunc(f.job.actors, func(x *actor) bool { return x == a })
		if len(f.spec.Inputs) == 0 {
			rs.inj.dropRoots = append(rs.inj.dropRoots, rootKey(f, a))
		}
	}
	if oldActors == nil {
		return nil
	}
	// Hand over the vnodes that change owner, with their state (a
	// source's splits and offsets go with their vnodes).
	for v, s := range owner {
		rs.move(oldActors[oldOwner[v]], f.actors[s], f, v)
	}
	return nil
}

// move records that vnode v's state, which from owned, goes to to: on
// this node by hand-over; to another node by the new owner copying it
// from this one's store; from another node by copying it from there.
func (rs *reshape) move(from, to *actor, f *fragment, v int) {
	fl, tl := rs.r.local(from), rs.r.local(to)
	switch {
	case from == to || (!fl && !tl):
	case fl && tl:
		rs.gain(to, from)
	case fl:
		rs.loseRemote(from)
	default:
		rs.gainRemote(to, from.node, f, v)
	}
}

// rootKey names the barrier queue of root actor a of f (by its id: an
// actor replacing another at the same slot has a queue of its own).
func rootKey(f *fragment, a *actor) sourceKey {
	return sourceKey{job: f.job.id, fragment: f.spec.ID + 1, actor: a.id}
}

// relink makes e's queues match its fragments' current actors: new pairs
// get queues (a new consumer its ports at once, a running one at the
// barrier), pairs with a dropped actor lose theirs, and every producer
// routes by the consumer's current owners from the barrier on.
func (rs *reshape) relink(e *edge) {
	r := rs.r
	for _, c := range e.to.actors {
		for _, p := range e.from.actors {
			pl, cl := r.local(p), r.local(c)
			if !pl && !cl {
				continue
			}
			port, created := e.link(p, c)
			if !created {
				continue
			}
			if pl != cl {
				// A queue between nodes: this node holds one end.
				k := actorPair{p, c}
				q := &remoteQueue{}
				e.remote[k] = q
				key := queueKey(r.gen, p.ref(), c.ref(), e.input)
				if pl {
					r.sendRemote(c.node, key, e.types(), e.queues[k], q)
				} else {
					r.receiveRemote(key, e.types(), e.queues[k], q)
				}
			}
			switch {
			case !cl:
			case rs.isNew[c]:
				c.ports = append(c.ports, port)
			default:
				u := rs.update(c)
				u.addPorts = append(u.addPorts, port)
			}
		}
	}
	for c, lost := range e.unlink(rs.tick.Epoch) {
		if !rs.isNew[c] {
			u := rs.update(c)
			u.dropPorts = append(u.dropPorts, lost...)
		}
	}
	for _, p := range e.from.actors {
		if !r.local(p) {
			continue
		}
		g := e.group(p)
		if rs.isNew[p] {
			p.out.groups = append(p.out.groups, g)
		} else {
			u := rs.update(p)
			u.groups = append(u.groups, g)
		}
	}
}

// relinkAround relinks every edge into or out of the fragments.
func (rs *reshape) relinkAround(frags []*fragment) {
	seen := map[*edge]bool{}
	for _, f := range frags {
		for _, e := range slices.Concat(f.ins, f.outs) {
			if !seen[e] {
				seen[e] = true
				rs.relink(e)
			}
		}
	}
}

// start starts the new actors and injects the barrier of tick, which
// applies the reshape, then starts the copies of state gained from other
// nodes, whose seal of tick's epoch waits for them.
func (rs *reshape) start(ctx context.Context, tick Tick, job uint32) error {
	if len(rs.remote) > 0 && rs.r.migrator == nil {
		return errors.New("dataflow: moving vnodes between nodes needs a migrator")
	}
	for _, a := range rs.created {
		rs.r.start(a)
	}
	rs.inj.added, rs.inj.holds = len(rs.created), len(rs.remote)
	if err := rs.r.inject(ctx, tick, rs.inj); err != nil {
		return err
	}
	rs.migrate(job)
	return nil
}

// ReassignOptions tune one reassignment step.
type ReassignOptions struct {
	// Replace replaces every actor of the job's parallel fragments (the
	// restart baseline, run paused).
	Replace bool
	// Cache says how new owners get the cached state of their vnodes.
	Cache CacheMode
}

// ReassignResult describes a reassignment step: the vnodes it moved, and,
// once its epoch is committed, the cached state that moved with them.
type ReassignResult struct {
	// Moved is the number of vnodes that changed owner.
	Moved int
	// CacheBytes returns the cached state bytes new owners got at the
	// switch: handed over, or loaded from storage (CacheEager); final
	// once the epoch after the switch is committed (a gate opens before
	// its actor passes the next barrier).
	CacheBytes func() int64
}

// Reassign moves the vnodes of job id's parallel fragments to the owners
// owner gives (vnode -> actor slot) at one barrier, while the job runs
// (DESIGN.md §6): actors are created for new slots and start with that
// barrier; actors left without vnodes end with it; upstream actors send
// the barrier to old and new consumers and route by the new owners after
// it; an actor losing vnodes hands over their cached state once its state
// for the barrier's epoch is written, and the new owner rebuilds its
// operators from that state, then goes on from exactly that point (with
// lazily reading operators, the rows of the vnodes it keeps go on at once
// and those of the vnodes it gains wait for the hand-over: vnodeGate). The
// switch is the barrier of tick.
func (r *Runtime) Reassign(ctx context.Context, tick Tick, id uint32, owner []int, nodes Placement, o ReassignOptions) (ReassignResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j, ok := r.jobs[id]
	if !ok || j.source {
		return ReassignResult{}, fmt.Errorf("dataflow: job %d does not run or cannot be rescaled", id)
	}
	select {
	case <-j.created:
	default:
		return ReassignResult{}, errJobCreating
	}
	frags := j.parallelFragments()
	rs := r.newReshape(tick, nodes)
	rs.mu.cache = o.Cache
	moved := 0
	if len(frags) > 0 {
		for v, s := range frags[0].owner {
			if owner[v] != s || o.Replace {
				moved++
			}
		}
	}
	for _, f := range frags {
		if err := rs.reassign(f, owner, o.Replace); err != nil {
			return ReassignResult{}, err
		}
	}
	rs.relinkAround(frags)
	if err := rs.start(ctx, tick, id); err != nil {
		return ReassignResult{}, err
	}
	r.noteOwners(j, tick.Epoch)
	return ReassignResult{Moved: moved, CacheBytes: rs.mu.counters.cacheBytes.Load}, nil
}

// errJobCreating refuses to reassign a job still backfilling.
var errJobCreating = errors.New("dataflow: the job is still being created (backfilling); rescale it once CREATE has returned")

// Owners returns the vnode owners (vnode -> slot) of job id's parallel
// fragments, nil if it has none or does not run.
func (r *Runtime) Owners(id uint32) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f := r.firstParallel(id); f != nil {
		return slices.Clone(f.owner)
	}
	return nil
}

// FragmentInfo describes one actor of a running fragment.
type FragmentInfo struct {
	Job      uint32
	Fragment int
	// Parallelism is the fragment's actor count; Slot the actor's slot and
	// VNodes the number of vnodes it owns.
	Parallelism, Slot, VNodes int
}

// FragmentEdge is one input of a running fragment: the fragment feeding
// it, of the same job or another (a table's writer, an upstream view's
// last fragment), and how rows are routed to its actors.
type FragmentEdge struct {
	FromJob      uint32
	FromFragment int
	ToJob        uint32
	ToFragment   int
	Dist         DistKind
}

// Edges lists the inputs of every running job's fragments, by consuming
// job, fragment and input number.
func (r *Runtime) Edges() []FragmentEdge {
	var out []FragmentEdge
	r.eachFragment(func(j *job, f *fragment) {
		for _, e := range f.ins {
			out = append(out, FragmentEdge{FromJob: e.from.job.id, FromFragment: e.from.id(), ToJob: j.id, ToFragment: f.id(), Dist: e.dist})
		}
	})
	slices.SortStableFunc(out, func(a, b FragmentEdge) int {
		return cmp.Or(cmp.Compare(a.ToJob, b.ToJob), cmp.Compare(a.ToFragment, b.ToFragment))
	})
	return out
}

// FragmentRows are the rows one fragment's actors on this node took in
// and passed on since its job started here.
type FragmentRows struct {
	Job uint32
	// Fragment is the fragment's id in its job's graph (0 for a table's
	// DML fragment).
	Fragment int
	In, Out  int64
	// Queued counts the messages (chunks of up to MaxChunkRows rows,
	// barriers, watermarks) waiting in the queues into its actors, of
	// room for Capacity.
	Queued, Capacity int
}

// FragmentRows returns the rows every running fragment's actors took in
// and passed on (counters the actors keep per chunk, read without
// stopping them) and the fill of the queues into them.
func (r *Runtime) FragmentRows() []FragmentRows {
	var out []FragmentRows
	r.eachFragment(func(j *job, f *fragment) {
		fr := FragmentRows{Job: j.id, Fragment: f.id(), In: f.rows.in.Load(), Out: f.rows.out.Load()}
		for _, e := range f.ins {
			for _, ch := range e.queues {
				fr.Queued += len(ch)
				fr.Capacity += cap(ch)
			}
		}
		out = append(out, fr)
	})
	return out
}

// eachFragment calls fn with every running job's fragments, under r.mu.
func (r *Runtime) eachFragment(fn func(j *job, f *fragment)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, j := range r.jobs {
		for _, f := range j.frags {
			fn(j, f)
		}
	}
}

// Fragments lists the actors of every running job's fragments, by job,
// fragment and slot.
func (r *Runtime) Fragments() []FragmentInfo {
	var out []FragmentInfo
	r.eachFragment(func(j *job, f *fragment) {
		for _, s := range f.slots() {
			out = append(out, FragmentInfo{Job: j.id, Fragment: f.id(), Parallelism: len(f.actors), Slot: s, VNodes: vnodesOf(f.owner, s).Len()})
		}
	})
	slices.SortFunc(out, func(a, b FragmentInfo) int {
		return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Fragment, b.Fragment), cmp.Compare(a.Slot, b.Slot))
	})
	return out
}
