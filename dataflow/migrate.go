package dataflow

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"slices"
)

// stateful is implemented by the specs whose operators keep state in
// state tables: the tables whose vnodes travel with them when a
// reassignment moves vnodes between nodes.
type stateful interface {
	stateTables() []uint32
}

// chainTables returns the state tables the operators of specs write, in
// order, without repeats.
func chainTables(specs []Spec) []uint32 {
	var out []uint32
	for _, s := range specs {
		if st, ok := s.(stateful); ok {
			for _, id := range st.stateTables() {
				if id != 0 && !slices.Contains(out, id) {
					out = append(out, id)
				}
			}
		}
	}
	return out
}

// Migrator moves vnodes' state between nodes' stores (DESIGN.md §6): the
// control plane implements it over the cluster transport.
type Migrator interface {
	// Fetch makes this node's store hold the state of m's vnodes of m's
	// tables as node m.From holds it at epoch m.Epoch (whose actors write
	// it as they pass the switch barrier of that epoch), copying what
	// earlier pre-copies left; it returns once that state is here (the
	// epoch's seal makes it durable), with the hottest groups of the
	// vnodes as their old owner cached them (Runtime.HotGroups), which
	// the new owners load before they take the vnodes over.
	Fetch(ctx context.Context, m Migration) ([]HotGroup, error)
}

// HotGroup names a state group that the old owner of a moved vnode had
// cached: the hottest groups travel with a switch's delta, and the new
// owner loads them into its cache before it takes the vnode over
// (DESIGN.md §6), so that a move between nodes does not leave it reading
// storage for every row at first.
type HotGroup struct {
	Table  uint32 `json:"t"`
	VNode  uint16 `json:"v"`
	Prefix []byte `json:"p"`
}

// Migration is the state a switch moves from one node to this one: the
// vnodes of one job that actors on node From lose to actors here at the
// barrier of Epoch, in the tables of the fragments they run.
type Migration struct {
	Job    uint32
	From   string
	Tables []uint32
	VNodes []int
	Epoch  uint64
}

// SetMigrator has r move vnodes between nodes with m. Call it before any
// job starts.
func (r *Runtime) SetMigrator(m Migrator) { r.migrator = m }

// remoteGain is what local actors gain at a switch from one other node:
// the handoff they wait for, done once the migration has landed here.
type remoteGain struct {
	h      *handoff
	tables []uint32
	vnodes []int
}

// gainRemote records that a, on this node, takes vnode v of fragment f
// over from an actor on node from (with the vnode's state in every table
// of the job's parallel fragments).
func (rs *reshape) gainRemote(a *actor, from string, f *fragment, v int) {
	g := rs.remote[from]
	if g == nil {
		// Every parallel fragment's vnodes move together.
		g = &remoteGain{h: newHandoff(), tables: f.job.parallelTables()}
		rs.remote[from] = g
	}
	if !slices.Contains(g.vnodes, v) {
		g.vnodes = append(g.vnodes, v)
	}
	u := rs.update(a)
	if !slices.Contains(u.gains, g.h) {
		u.gains = append(u.gains, g.h)
	}
}

// loseRemote records that a, on this node, gives vnodes up to an actor on
// another node, which copies their state once a has written it for the
// switch's epoch (Runtime.WaitReleased).
func (rs *reshape) loseRemote(a *actor) {
	h := rs.handoff(a)
	if !slices.Contains(rs.releasing, h) {
		rs.releasing = append(rs.releasing, h)
	}
}

// migrate starts, once the switch barrier of job is injected, the copies
// of the state local actors gained from other nodes: each opens its
// handoff once its state is here, and holds the epoch's seal until then,
// so that the epoch that records the new owners commits only with their
// state in place. A failed copy fails the node (the cluster recovers from
// the last committed epoch, with the old owners).
func (rs *reshape) migrate(job uint32) {
	r := rs.r
	epoch := rs.tick.Epoch
	r.release(job, epoch, rs.releasing)
	for from, g := range rs.remote {
		slices.Sort(g.vnodes)
		m := Migration{Job: job, From: from, Tables: g.tables, VNodes: g.vnodes, Epoch: epoch}
		ctx := r.ctx
		go func() {
			hot, err := r.migrator.Fetch(ctx, m)
			if err != nil {
				if ctx.Err() == nil {
					r.mgr.Fail(fmt.Errorf("dataflow: moving %d vnodes of job %d from node %s: %w", len(m.VNodes), job, from, err))
				}
				return
			}
			g.h.hot = hot
			close(g.h.done)
			r.mgr.collect(epoch)
		}()
	}
}

// releaseKey names the losers of one job's switch.
type releaseKey struct {
	job   uint32
	epoch uint64
}

// releaseSet is done once every local actor that loses vnodes to another
// node at a job's switch has written its state for the switch's epoch.
type releaseSet struct {
	done chan struct{}
	// ctx is the runtime's at the time: a reset ends the wait.
	ctx context.Context
	// losers are the losers' handoffs, with their detached caches once
	// done (set under relMu).
	losers []*handoff
}

// releaseOf returns the release set of key, made if new (under relMu).
func (r *Runtime) releaseOf(key releaseKey) *releaseSet {
	s := r.released[key]
	if s == nil {
		s = &releaseSet{done: make(chan struct{}), ctx: r.ctx}
		r.released[key] = s
	}
	return s
}

// release makes job's release set for the switch of epoch done once the
// losers' handoffs are, and forgets the sets of committed epochs (their
// copies are done: the epoch's seal waited for them).
func (r *Runtime) release(job uint32, epoch uint64, losers []*handoff) {
	r.relMu.Lock()
	committed := r.mgr.Committed()
	for k := range r.released {
		if k.epoch <= committed {
			delete(r.released, k)
		}
	}
	s := r.releaseOf(releaseKey{job, epoch})
	s.ctx, s.losers = r.ctx, losers
	r.relMu.Unlock()
	go func() {
		for _, h := range losers {
			if h.wait(s.ctx) != nil {
				return
			}
		}
		close(s.done)
	}()
}

// errReleaseReset ends a wait for losers that a recovery stopped.
var errReleaseReset = errors.New("dataflow: the switch was rolled back by a recovery")

// WaitReleased returns once the local actors that lose vnodes of job to
// other nodes at the switch barrier of epoch have written their state for
// that epoch: from then on the store holds what the new owners copy. It
// may be called before this node has applied the switch.
func (r *Runtime) WaitReleased(ctx context.Context, job uint32, epoch uint64) error {
	r.mu.Lock()
	r.relMu.Lock()
	s := r.releaseOf(releaseKey{job, epoch})
	r.relMu.Unlock()
	r.mu.Unlock()
	select {
	case <-s.done:
		return nil
	case <-s.ctx.Done():
		return errReleaseReset
	case <-ctx.Done():
		return ctx.Err()
	}
}

// HotGroups returns the groups of vnodes that local actors had cached
// when they gave the vnodes up to other nodes at job's switch barrier of
// epoch, most recently used first, at most max of them: none if the
// losers have not released the vnodes yet, or the switch is unknown here.
func (r *Runtime) HotGroups(job uint32, epoch uint64, vnodes []int, max int) []HotGroup {
	r.relMu.Lock()
	s := r.released[releaseKey{job, epoch}]
	var losers []*handoff
	if s != nil {
		losers = s.losers
	}
	r.relMu.Unlock()
	if s == nil {
		return nil
	}
	select {
	case <-s.done:
	default:
		return nil
	}
	if max <= 0 {
		return nil
	}
	// The max newest groups, kept in a min-heap by epoch: the moved
	// vnodes may have cached many more.
	newest := &hotHeap{}
	for _, h := range losers {
		for id, byVNode := range h.caches {
			for _, v := range vnodes {
				c := byVNode[uint16(v)]
				if c == nil {
					continue
				}
				// byEpoch is the detached cache's own: the new owners
				// on this node adopt the groups, not this slice.
				for _, ge := range c.byEpoch {
					if len(newest.c) == max && ge.epoch <= newest.c[0].epoch {
						continue
					}
					hc := hotCandidate{epoch: ge.epoch, table: id, vnode: uint16(v), g: ge.g}
					if len(newest.c) < max {
						heap.Push(newest, hc)
					} else {
						newest.c[0] = hc
						heap.Fix(newest, 0)
					}
				}
			}
		}
	}
	slices.SortStableFunc(newest.c, func(a, b hotCandidate) int { return cmp.Compare(b.epoch, a.epoch) })
	hot := make([]HotGroup, len(newest.c))
	for i, hc := range newest.c {
		hot[i] = HotGroup{Table: hc.table, VNode: hc.vnode, Prefix: []byte(hc.g.prefix)}
	}
	return hot
}

// hotCandidate is a cached group HotGroups may choose.
type hotCandidate struct {
	epoch uint64
	table uint32
	vnode uint16
	g     *Group
}

// hotHeap is a min-heap of hot candidates by epoch (container/heap).
type hotHeap struct{ c []hotCandidate }

func (h *hotHeap) Len() int           { return len(h.c) }
func (h *hotHeap) Less(i, j int) bool { return h.c[i].epoch < h.c[j].epoch }
func (h *hotHeap) Swap(i, j int)      { h.c[i], h.c[j] = h.c[j], h.c[i] }
func (h *hotHeap) Push(x any)         { h.c = append(h.c, x.(hotCandidate)) }
func (h *hotHeap) Pop() any {
	x := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	return x
}

// JobTables returns the state tables of job id's parallel fragments: those
// whose vnodes travel with their owners between nodes.
func (r *Runtime) JobTables(id uint32) []uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.jobs[id]; j != nil {
		return j.parallelTables()
	}
	return nil
}

// parallelTables returns the state tables of j's parallel fragments, in
// order, without repeats.
func (j *job) parallelTables() []uint32 {
	var specs []Spec
	for _, f := range j.parallelFragments() {
		specs = append(specs, f.spec.Chain...)
	}
	return chainTables(specs)
}

// nodeOf returns the node that runs actor a.
func (r *Runtime) nodeOf(a *actor) string {
	if a.node == "" {
		return r.self
	}
	return a.node
}

// maxOwnerships bounds the vnode ownerships a job remembers for reads of
// older epochs: a read older than the oldest is refused.
const maxOwnerships = 16

// ownership is where a job's parallel fragments' vnodes are from an epoch
// on: the node of each vnode's owner.
type ownership struct {
	since uint64
	nodes []string
}

// ErrOwnersForgotten refuses a read of an epoch older than the vnode
// owners a job remembers: the read must run again at a newer one.
var ErrOwnersForgotten = errors.New("dataflow: the key groups read moved between nodes since the read's epoch")

// TableOwners returns the node holding each vnode of table at epoch if a
// parallel fragment of a job started here writes it (partitioned): the
// owners recorded by the switch the epoch follows (a switch applies on
// every node before its epoch can commit, so for any committed epoch this
// is exact). A table written by a singleton fragment, or by no job here,
// is not partitioned: one node holds it whole.
func (r *Runtime) TableOwners(table uint32, epoch uint64) (nodes []string, partitioned bool, err error) {
	r.relMu.Lock()
	defer r.relMu.Unlock()
	job, ok := r.partitioned[table]
	if !ok {
		return nil, false, nil
	}
	hist := r.ownerships[job]
	for i := len(hist) - 1; i >= 0; i-- {
		if hist[i].since <= epoch {
			return hist[i].nodes, true, nil
		}
	}
	return nil, true, ErrOwnersForgotten
}

// noteOwners records, under mu, that job j's parallel fragments' vnodes
// are where their owners run from epoch since on (0: a job started, whose
// owners hold every epoch it has), and which tables they write.
func (r *Runtime) noteOwners(j *job, since uint64) {
	frags := j.parallelFragments()
	if len(frags) == 0 {
		return
	}
	f := frags[0]
	nodes := make([]string, len(f.owner))
	for v, s := range f.owner {
		nodes[v] = r.nodeOf(f.actors[s])
	}
	tables := j.parallelTables()
	r.relMu.Lock()
	defer r.relMu.Unlock()
	for _, t := range tables {
		r.partitioned[t] = j.id
	}
	o := ownership{since: since, nodes: nodes}
	if since == 0 {
		r.ownerships[j.id] = []ownership{o}
		return
	}
	hist := append(r.ownerships[j.id], o)
	r.ownerships[j.id] = hist[max(0, len(hist)-maxOwnerships):]
}

// firstParallel returns the first parallel fragment of job id, which
// stands for all of them (they have the same owners, at the same nodes),
// nil if the job does not run here or has none. Call it with r.mu held.
func (r *Runtime) firstParallel(id uint32) *fragment {
	j := r.jobs[id]
	if j == nil {
		return nil
	}
	if frags := j.parallelFragments(); len(frags) > 0 {
		return frags[0]
	}
	return nil
}

// Placement returns the node of each actor slot of job id's parallel
// fragments ("" for a slot without an actor), nil if the job has none.
func (r *Runtime) Placement(id uint32) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.firstParallel(id)
	if f == nil {
		return nil
	}
	var out []string
	for s, a := range f.actors {
		for len(out) <= s {
			out = append(out, "")
		}
		out[s] = r.nodeOf(a)
	}
	return out
}

// OwnedHere returns those of vnodes that actors on this node own in job
// id's parallel fragments now (as of the last switch applied here).
func (r *Runtime) OwnedHere(id uint32, vnodes []int) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.firstParallel(id)
	if f == nil {
		return nil
	}
	var out []int
	for _, v := range vnodes {
		if a := f.actors[f.owner[v]]; a != nil && r.local(a) {
			out = append(out, v)
		}
	}
	return out
}

// Holding is state a node holds of a job: a table's vnodes (nil: the
// whole table, which a singleton fragment writes).
type Holding struct {
	Table  uint32
	VNodes []int
}

// Holdings returns the state of g's job that node self holds when its
// vnodes are owned as owner says (vnode -> actor slot) and its slots
// placed as nodes says: the parallel fragments' tables in the vnodes
// whose owners run on self, the singleton fragments' tables whole where
// slot 0 runs. A restore from shared storage fills in exactly these.
func (g *GraphSpec) Holdings(owner []int, nodes Placement, self string) []Holding {
	here := func(slot int) bool { n := nodes.of(slot); return n == "" || n == self }
	var mine []int
	for v, s := range owner {
		if here(s) {
			mine = append(mine, v)
		}
	}
	var parallel, singleton []Spec
	for _, f := range g.Fragments {
		if f.Singleton {
			singleton = append(singleton, f.Chain...)
		} else {
			parallel = append(parallel, f.Chain...)
		}
	}
	var out []Holding
	for _, t := range chainTables(parallel) {
		if len(mine) > 0 {
			out = append(out, Holding{Table: t, VNodes: mine})
		}
	}
	if here(0) {
		for _, t := range chainTables(singleton) {
			out = append(out, Holding{Table: t})
		}
	}
	return out
}
