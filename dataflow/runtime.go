package dataflow

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Runtime runs a node's streaming jobs: one job per table (its DML source
// and materialization) and one per materialized view.
type Runtime struct {
	ctx    context.Context
	store  *Store
	mgr    *BarrierManager
	log    *slog.Logger
	vnodes int

	mu sync.Mutex
	// publishers are the actors whose output carries a relation's changes.
	publishers map[uint32][]*actor
	jobs       map[uint32]*job
	rowErrors  *RowErrors
}

type job struct {
	actors []*actor
	// source is set for a table's job, whose input is a source queue.
	source bool
	// roots are the sources of its fragments without inputs.
	roots []sourceKey
	// created is closed when every backfill of the job has finished.
	created chan struct{}
}

// startRoot makes the actors of fragment f of job id, which has no
// inputs, roots: the barrier manager feeds each barriers directly. A
// values operator at the head of the chain emits its rows only when the
// job is created (with backfill), not when it restarts from committed
// state; a source at the head of a restarted job waits for Resume.
func (r *Runtime) startRoot(j *job, id uint32, f *FragmentSpec, actors []*actor, created bool, pending *sync.WaitGroup) {
	for i, a := range actors {
		ch := make(chan Message, queueLen)
		a.ports = append(a.ports, &inputPort{ch: ch, resume: make(chan struct{})})
		k := sourceKey{job: id, fragment: f.ID + 1, actor: i}
		j.roots = append(j.roots, k)
		// The job's actors are counted when it is added.
		r.mgr.addSource(k, ch, 0)
		a.paused = !created
		if v, ok := a.chain[0].(*values); ok {
			if v.done = !created; !v.done {
				pending.Add(1)
				v.finished = pending.Done
			}
		}
	}
}

// assignSplits returns the splits actor i of n reads: i, i+n, i+2n, ...
// (DESIGN.md §4: splits are assigned apart from vnodes).
func assignSplits(splits, n, i int) []int {
	var out []int
	for s := i; s < splits; s += n {
		out = append(out, s)
	}
	return out
}

// Resume starts the sources of restarted jobs at one barrier: call it once
// every job has restarted, so that each consumer sees their rows from the
// same point on.
func (r *Runtime) Resume(ctx context.Context) error {
	_, err := r.mgr.Inject(ctx, &ResumeMutation{}, 0, 0)
	return err
}

// NewRuntime returns a runtime over store whose epochs mgr drives.
func NewRuntime(ctx context.Context, store *Store, mgr *BarrierManager, vnodes int, log *slog.Logger) *Runtime {
	return &Runtime{ctx: ctx, store: store, mgr: mgr, log: log, vnodes: vnodes,
		publishers: map[uint32][]*actor{}, jobs: map[uint32]*job{}, rowErrors: NewRowErrors(log)}
}

// Barriers returns the barrier manager.
func (r *Runtime) Barriers() *BarrierManager { return r.mgr }

func (r *Runtime) env(vnodes *Bitmap) *Env {
	return &Env{Ctx: r.ctx, VNodes: vnodes, VNodeCount: r.vnodes, Store: r.store, Eval: &Evaluator{Ctx: expr.NewCtx(r.ctx, nil), Errors: r.rowErrors},
		WaitCommitted: r.mgr.WaitCommitted}
}

func (r *Runtime) start(a *actor) {
	a.mgr = r.mgr
	a.init()
	go func() {
		if err := a.run(r.ctx); err != nil && r.ctx.Err() == nil {
			r.log.Error("streaming actor failed; streaming stops until restart", "actor", a.id, "job", a.job, "err", err)
			r.mgr.Fail(err)
		}
	}()
}

// StartTable starts a table's job: its DML source queue feeds one actor
// that makes the rows' watermarks (if the table declares one),
// materializes the rows and publishes the changes.
func (r *Runtime) StartTable(t *TableRef) error {
	env := r.env(FullBitmap(r.vnodes))
	var chain []Operator
	specs := []Spec{&MaterializeSpec{TableID: t.ID, PK: t.PK, Types: t.Types}}
	if t.Watermark != nil {
		specs = append([]Spec{t.Watermark}, specs...)
	}
	for _, s := range specs {
		op, err := s.Build(env)
		if err != nil {
			return err
		}
		chain = append(chain, op)
	}
	ch := make(chan Message, queueLen)
	a := &actor{id: int(t.ID), job: t.ID, chain: chain, out: &dispatcher{},
		ports: []*inputPort{{ch: ch, resume: make(chan struct{})}}}
	r.mu.Lock()
	r.publishers[t.ID] = []*actor{a}
	r.jobs[t.ID] = &job{actors: []*actor{a}, source: true}
	r.mu.Unlock()
	r.start(a)
	r.mgr.addSource(sourceKey{job: t.ID}, ch, 1)
	return nil
}

// assign splits vnodes 0..g-1 into n balanced contiguous ranges.
func assign(g, n int) (owner []int, sets []*Bitmap) {
	owner = make([]int, g)
	sets = make([]*Bitmap, n)
	for i := range sets {
		sets[i] = NewBitmap(g)
	}
	for v := 0; v < g; v++ {
		a := v * n / g
		owner[v] = a
		sets[a].Set(v)
	}
	return owner, sets
}

// StartJob starts a job (a materialized view's, a source's or a table's
// with a connector) with the given parallelism. With backfill (a new job),
// it first feeds the job the current contents of its inputs; the returned
// channel is closed when that is done. Without (a job restarted from
// committed state), its sources wait for Resume. The job joins the running
// graph at one barrier.
func (r *Runtime) StartJob(id uint32, g *GraphSpec, parallelism int, withBackfill bool) (<-chan struct{}, error) {
	j := &job{created: make(chan struct{})}
	byID := map[int][]*actor{}
	owners := map[int][]int{}
	subs := map[*actor][]*subscription{}
	var pending sync.WaitGroup
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range g.Fragments {
		n := parallelism
		if f.Singleton {
			n = 1
		}
		owner, sets := assign(r.vnodes, n)
		owners[f.ID] = owner
		actors := make([]*actor, n)
		for i := range actors {
			env := r.env(sets[i])
			if src, ok := f.Chain[0].(*SourceSpec); ok {
				env.Splits = assignSplits(src.Splits, n, i)
			}
			a := &actor{id: len(j.actors), job: id, out: &dispatcher{}}
			for _, spec := range f.Chain {
				op, err := spec.Build(env)
				if err != nil {
					return nil, err
				}
				a.chain = append(a.chain, op)
			}
			actors[i] = a
			j.actors = append(j.actors, a)
		}
		byID[f.ID] = actors
		if len(f.Inputs) == 0 {
			r.startRoot(j, id, f, actors, withBackfill, &pending)
		}
		for input, in := range f.Inputs {
			in := in
			// One queue per (upstream actor, downstream actor) pair.
			var ups int
			if in.Fragment >= 0 {
				ups = len(byID[in.Fragment])
			} else {
				ups = len(r.publishers[in.Table.ID])
				if ups == 0 {
					return nil, fmt.Errorf("dataflow: relation %q is not running", in.Table.Name)
				}
			}
			chans := make([][]chan Message, ups) // [upstream][downstream]
			for u := range chans {
				chans[u] = make([]chan Message, n)
				for d := range chans[u] {
					ch := make(chan Message, queueLen)
					chans[u][d] = ch
					actors[d].ports = append(actors[d].ports, &inputPort{ch: ch, input: input, slot: u, resume: make(chan struct{})})
				}
			}
			group := func(u int) *outputGroup {
				outs := make([]chan<- Message, n)
				for d := range outs {
					outs[d] = chans[u][d]
				}
				return newOutputGroup(in.Dist, in.Keys, r.vnodes, owner, outs)
			}
			if in.Fragment >= 0 {
				for u, up := range byID[in.Fragment] {
					g := group(u)
					g.job = id
					up.out.groups = append(up.out.groups, g)
				}
				continue
			}
			for u, pub := range r.publishers[in.Table.ID] {
				u := u
				subs[pub] = append(subs[pub], &subscription{job: id, group: func() *outputGroup { return group(u) }})
			}
			// A source stores nothing: its consumers see its rows from
			// their creation on.
			if withBackfill && !in.Table.Source {
				for d, a := range actors {
					route := group(0)
					d := d
					pending.Add(1)
					a.setPre(input, &backfill{ctx: r.ctx, table: in.Table, engine: r.store.Engine(), wait: r.mgr.WaitCommitted,
						owns: func(row []types.Datum) bool { return route.route(row) == d }, finished: pending.Done, more: r.mgr.RequestBarrier})
				}
			}
		}
	}
	last := g.Fragments[len(g.Fragments)-1]
	r.publishers[id] = byID[last.ID]
	r.jobs[id] = j
	for _, a := range j.actors {
		r.start(a)
	}
	if _, err := r.mgr.Inject(r.ctx, &AddMutation{Subscribers: subs}, len(j.actors), 0); err != nil {
		return nil, err
	}
	go func() {
		pending.Wait()
		close(j.created)
	}()
	if withBackfill {
		r.mgr.RequestBarrier()
	}
	return j.created, nil
}

// StopJob stops a job's actors at one barrier and waits until that epoch
// is committed.
func (r *Runtime) StopJob(ctx context.Context, id uint32) error {
	r.mu.Lock()
	j, ok := r.jobs[id]
	if ok {
		delete(r.jobs, id)
		delete(r.publishers, id)
	}
	r.mu.Unlock()
	if !ok {
		return nil
	}
	epoch, err := r.mgr.Inject(ctx, &StopMutation{Jobs: []uint32{id}}, 0, len(j.actors))
	if err != nil {
		return err
	}
	if j.source {
		r.mgr.removeSource(sourceKey{job: id})
	}
	for _, k := range j.roots {
		r.mgr.removeSource(k)
	}
	return r.mgr.WaitCommitted(ctx, epoch)
}
