package dataflow

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// Runtime runs a node's streaming jobs: one job per table (its DML source
// and materialization) and one per materialized view or source. It keeps
// the running graph (fragments, their actors by slot, the queues between
// them) and changes it at barriers: jobs start and stop, fragments are
// reassigned (Reassign).
type Runtime struct {
	// ctx is the context the actors run under; Reset cancels it and
	// makes a new one from base.
	ctx    context.Context
	cancel context.CancelFunc
	base   context.Context
	// actors counts the running actor goroutines (Reset waits for them).
	running sync.WaitGroup
	// listens are the registrations of queues from other nodes.
	listens []func()
	store   *Store
	mgr     *BarrierManager
	log     *slog.Logger
	vnodes  int
	// BackfillBatch is how many snapshot rows a backfill actor reads per
	// barrier (DefaultBackfillBatch); set it before jobs start.
	BackfillBatch int

	// mu orders changes of the graph and their barriers.
	mu sync.Mutex
	// publishers are the fragments whose output carries a relation's
	// changes.
	publishers map[uint32]*fragment
	jobs       map[uint32]*job
	rowErrors  *RowErrors
	nextActor  int
	// paused: sources are held back (Pause); new source actors start so.
	paused bool

	// self is this node's id and transport carries queues to actors on
	// other nodes (nil on a one-node cluster: every actor is local);
	// reader reads the committed state of relations wherever it is.
	self      string
	transport Transport
	reader    storage.Reader
	// gen names the recovery the running jobs were restarted by (see
	// Reset): queues between nodes carry it in their names, so an actor of
	// an older recovery on a node that has not been reset yet (one cut off
	// from the others) never feeds an actor of the new one.
	gen string
	// mutations are the mutations this node injected with recent
	// barriers, for barriers of the same epochs from other nodes.
	mutMu     sync.Mutex
	mutations map[uint64]Mutation
	// migrator copies the state of vnodes gained from other nodes;
	// released are the losers of switches that other nodes copy from
	// (under relMu, taken after mu).
	migrator Migrator
	relMu    sync.Mutex
	released map[releaseKey]*releaseSet
	// partitioned maps the tables parallel fragments write to their job;
	// ownerships are each job's recent vnode owners (TableOwners).
	partitioned map[uint32]uint32
	ownerships  map[uint32][]ownership
}

// SetCluster makes r a node of a cluster: self is its node id, t carries
// the queues between its actors and other nodes', and reader reads
// relations' committed state from the nodes that hold it (backfills).
// Call it before any job starts.
func (r *Runtime) SetCluster(self string, t Transport, reader storage.Reader) {
	r.self, r.transport, r.reader = self, t, reader
}

// inject records in's mutation for barriers from other nodes, then injects
// the barrier of tick on this node (under r.mu).
func (r *Runtime) inject(ctx context.Context, tick Tick, in injection) error {
	r.recordMutation(tick.Epoch, in.mutation)
	return r.mgr.Inject(ctx, tick, in)
}

type job struct {
	id uint32
	// zone is the TimeZone the job's expressions run in (nil: UTC).
	zone   *time.Location
	actors []*actor
	frags  []*fragment
	// source is set for a table's job, whose input is a source queue.
	source bool
	// created is closed when every backfill of the job has finished.
	created chan struct{}
	// align aligns the watermarks of the job's source actors on this
	// node (align.go).
	align alignGroup
}

// parallelFragments returns the job's fragments that run at its
// parallelism.
func (j *job) parallelFragments() []*fragment {
	var out []*fragment
	for _, f := range j.frags {
		if f.parallel() {
			out = append(out, f)
		}
	}
	return out
}

// prepareRoot readies a root actor of a new job (one without inputs):
// a values operator at the head of its chain emits its rows only when the
// job is created (with backfill), not when it restarts from committed
// state; a source at the head of a restarted job waits for Resume.
func prepareRoot(a *actor, created bool, pending *sync.WaitGroup) {
	a.paused = a.paused || !created
	if v, ok := a.chain[0].(*values); ok {
		if v.done = !created; !v.done {
			pending.Add(1)
			v.finished = pending.Done
		}
	}
}

// Inject injects the plain checkpoint barrier of tick.
func (r *Runtime) Inject(ctx context.Context, tick Tick) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inject(ctx, tick, injection{})
}

// Resume starts the sources of restarted jobs at the barrier of tick:
// call it once every job has restarted, so that each consumer sees their
// rows from the same point on. It also ends a Pause.
func (r *Runtime) Resume(ctx context.Context, tick Tick) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paused = false
	r.mgr.setPaused(false)
	return r.inject(ctx, tick, injection{mutation: &ResumeMutation{}})
}

// Pause holds every source back from the barrier of tick on, and table
// writes from now on, until Resume: the world stops (the restart
// baseline of a rescale).
func (r *Runtime) Pause(ctx context.Context, tick Tick) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paused = true
	r.mgr.setPaused(true)
	return r.inject(ctx, tick, injection{mutation: &PauseMutation{}})
}

// NewRuntime returns a runtime over store whose epochs mgr drives.
func NewRuntime(ctx context.Context, store *Store, mgr *BarrierManager, vnodes int, log *slog.Logger) *Runtime {
	r := &Runtime{base: ctx, store: store, mgr: mgr, log: log, vnodes: vnodes, reader: store.Engine(), BackfillBatch: DefaultBackfillBatch,
		publishers: map[uint32]*fragment{}, jobs: map[uint32]*job{}, rowErrors: NewRowErrors(log), mutations: map[uint64]Mutation{}, released: map[releaseKey]*releaseSet{}, partitioned: map[uint32]uint32{}, ownerships: map[uint32][]ownership{}}
	r.ctx, r.cancel = context.WithCancel(ctx)
	return r
}

// Reset stops every actor and forgets every job, for a recovery from the
// committed epoch: it waits until the actors have ended, then empties the
// store's staged writes and the barrier manager's epochs (which resume
// after prev, with committed as the newest committed epoch). The caller
// removes the uncommitted versions from storage and restarts the jobs.
// gen names the recovery, unique in the cluster.
func (r *Runtime) Reset(committed, prev uint64, gen string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cancel()
	r.running.Wait()
	for _, cancel := range r.listens {
		cancel()
	}
	r.listens = nil
	r.jobs, r.publishers = map[uint32]*job{}, map[uint32]*fragment{}
	r.mutMu.Lock()
	r.mutations = map[uint64]Mutation{}
	r.mutMu.Unlock()
	r.paused = false
	r.gen = gen
	r.store.reset()
	r.mgr.reset(committed, prev)
	r.ctx, r.cancel = context.WithCancel(r.base)
}

// Barriers returns the barrier manager.
func (r *Runtime) Barriers() *BarrierManager { return r.mgr }

func (r *Runtime) env(vnodes *Bitmap, zone *time.Location) *Env {
	ev := &Evaluator{Ctx: expr.NewCtx(r.ctx, nil), Errors: r.rowErrors}
	ev.Ctx.Loc = zone
	return &Env{Ctx: r.ctx, VNodes: vnodes, VNodeCount: r.vnodes, Store: r.store, Eval: ev, WaitCommitted: r.mgr.WaitCommitted}
}

func (r *Runtime) start(a *actor) {
	a.mgr = r.mgr
	ctx := r.ctx
	r.running.Add(1)
	go func() {
		defer r.running.Done()
		if err := a.run(ctx); err != nil && ctx.Err() == nil {
			r.log.Error("streaming actor failed; streaming stops until restart", "actor", a.id, "job", a.job, "err", err)
			r.mgr.Fail(err)
		}
	}()
}

// StartTable starts a table's job: its DML source queue feeds one actor,
// on node ("": this one), that makes the rows' watermarks (if the table
// declares one), materializes the rows and publishes the changes. The
// actor joins the running graph at the next barrier.
func (r *Runtime) StartTable(t *TableRef, node string) error {
	specs := t.specs()
	r.mu.Lock()
	defer r.mu.Unlock()
	j := &job{id: t.ID, source: true}
	a := &actor{id: r.nextActor, job: t.ID, frag: -1, node: node, specs: specs, out: &dispatcher{}}
	r.nextActor++
	f := &fragment{job: j, owner: make([]int, r.vnodes), actors: map[int]*actor{0: a}, types: t.Types}
	a.rows = &f.rows
	j.frags = []*fragment{f}
	r.publishers[t.ID] = f
	r.jobs[t.ID] = j
	if !r.local(a) {
		return nil
	}
	ch := make(chan Message, queueLen)
	a.ports = []*inputPort{newPort(ch, 0)}
	if err := a.build(r.env(FullBitmap(r.vnodes), nil)); err != nil {
		return err
	}
	j.actors = []*actor{a}
	r.start(a)
	r.mgr.addSource(sourceKey{job: t.ID}, ch, 1)
	return nil
}

// specs returns the operators of a table's job.
func (t *TableRef) specs() []Spec {
	specs := []Spec{&MaterializeSpec{TableID: t.ID, PK: t.PK, Types: t.Types}}
	if t.Watermark != nil {
		specs = append([]Spec{t.Watermark}, specs...)
	}
	return specs
}

// StateTables returns the state tables of a table's job, which its one
// actor holds whole.
func (t *TableRef) StateTables() []uint32 { return chainTables(t.specs()) }

// Contiguous returns the default assignment of g vnodes to n actors:
// balanced contiguous ranges, vnode -> slot.
func Contiguous(g, n int) []int {
	owner := make([]int, g)
	for v := range owner {
		owner[v] = v * n / g
	}
	return owner
}

// StartJob starts a job (a materialized view's, a source's or a table's
// with a connector) whose parallel fragments' vnodes are owned as owner
// says (vnode -> actor slot; see Contiguous). With backfill (a new job),
// it first feeds the job the current contents of its inputs; the returned
// channel is closed when that is done. Without (a job restarted from
// committed state), its sources wait for Resume. The job joins the running
// graph at the barrier of tick. nodes places its actors; this node runs
// those placed on it, and the channel is closed when their backfills are
// done.
func (r *Runtime) StartJob(ctx context.Context, tick Tick, id uint32, g *GraphSpec, owner []int, nodes Placement, withBackfill bool) (<-chan struct{}, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	j := &job{id: id, created: make(chan struct{})}
	if g.Zone != "" {
		var err error
		if j.zone, _, err = types.ParseZone(g.Zone); err != nil {
			return nil, err
		}
	}
	rs := r.newReshape(tick, nodes)
	rs.creating = withBackfill
	byID := map[int]*fragment{}
	var pending sync.WaitGroup
	for _, fs := range g.Fragments {
		f := &fragment{job: j, spec: fs, types: fs.OutTypes}
		for input, in := range fs.Inputs {
			from := byID[in.Fragment]
			if in.Fragment < 0 {
				if from = r.publishers[in.Table.ID]; from == nil {
					return nil, fmt.Errorf("dataflow: relation %q is not running", in.Table.Name)
				}
			}
			e := &edge{from: from, to: f, input: input, dist: in.Dist, keys: in.Keys, cols: in.Cols, queues: map[actorPair]chan Message{}, remote: map[actorPair]*remoteQueue{}}
			f.ins = append(f.ins, e)
		}
		fo := owner
		if !f.parallel() {
			fo = make([]int, r.vnodes)
		}
		if err := rs.reassign(f, fo, false); err != nil {
			return nil, err
		}
		if len(fs.Inputs) == 0 {
			for _, a := range f.actors {
				if r.local(a) {
					prepareRoot(a, withBackfill, &pending)
				}
			}
		}
		byID[fs.ID] = f
		j.frags = append(j.frags, f)
	}
	for _, f := range j.frags {
		for _, e := range f.ins {
			e.from.outs = append(e.from.outs, e)
			rs.relink(e)
			// A source stores nothing: its consumers see its rows from
			// their creation on.
			if in := f.spec.Inputs[e.input]; withBackfill && in.Fragment < 0 && !in.Table.Source {
				r.backfill(f, e, in.Table, &pending)
			}
		}
	}
	r.publishers[id] = j.frags[len(j.frags)-1]
	r.jobs[id] = j
	r.noteOwners(j, 0)
	if err := rs.start(ctx, tick, id); err != nil {
		return nil, err
	}
	if !withBackfill {
		// Nothing to feed: the job is created once it runs (a rescale
		// resumed right after a restart must not find it creating).
		close(j.created)
		return j.created, nil
	}
	go func() {
		pending.Wait()
		close(j.created)
	}()
	r.mgr.RequestBarrier()
	return j.created, nil
}

// backfill puts a backfill of table in front of input e of each actor of
// f: it reads the rows of the table the actor owns.
func (r *Runtime) backfill(f *fragment, e *edge, table *TableRef, pending *sync.WaitGroup) {
	slots := f.slots()
	for d, s := range slots {
		a := f.actors[s]
		if !r.local(a) {
			continue
		}
		route := e.group(e.from.actors[e.from.slots()[0]])
		pending.Add(1)
		a.setPre(e.input, &backfill{ctx: r.ctx, table: table, engine: r.reader, wait: r.mgr.WaitCommitted,
			owns: func(row []types.Datum) bool { return e.dist == DistBroadcast || route.route(row) == d }, finished: pending.Done, more: r.mgr.RequestBarrier, batch: r.BackfillBatch,
			pin: func(epoch uint64) (func(), error) { return r.store.Engine().PinFor(epoch, backfillHold) }})
	}
}

// StopJob stops a job's actors at the barrier of tick (a plain barrier if
// the job does not run).
func (r *Runtime) StopJob(ctx context.Context, tick Tick, id uint32) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	j, ok := r.jobs[id]
	if !ok {
		return r.inject(ctx, tick, injection{})
	}
	delete(r.jobs, id)
	delete(r.publishers, id)
	in := injection{mutation: &StopMutation{Jobs: []uint32{id}}, stopping: len(j.actors)}
	if j.source && len(j.actors) > 0 {
		in.dropRoots = append(in.dropRoots, sourceKey{job: id})
	}
	for _, f := range j.frags {
		for _, e := range f.ins {
			e.from.outs = slices.DeleteFunc(e.from.outs, func(x *edge) bool { return x == e })
			e.end(tick.Epoch)
		}
		if f.spec != nil && len(f.spec.Inputs) == 0 {
			for _, a := range f.actors {
				if r.local(a) {
					in.dropRoots = append(in.dropRoots, rootKey(f, a))
				}
			}
		}
	}
	return r.inject(ctx, tick, in)
}
