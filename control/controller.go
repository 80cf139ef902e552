// Package control is streamdb's control plane (DESIGN.md §4, §9): the
// controller decides the epochs of the whole cluster, and every node's
// worker applies them. The controller runs on the Raft leader: it picks
// each barrier's epoch and time and has every node inject the barrier,
// together with the graph change it carries (a job started or stopped, a
// rescale step); it commits an epoch through meta's Raft log once every
// node has sealed it. One barrier is decided at a time, so graph changes
// and checkpoints are totally ordered across the cluster. When it takes
// over, and whenever a node fails or the membership changes, it recovers:
// every node drops what it wrote after the last committed epoch and the
// jobs restart from there. On other nodes the controller forwards what
// sessions ask of it to the leader's.
//
// Streaming is a node's streaming side as the SQL layer uses it: the
// runtime and its controller, started together, the write path of table
// rows into their streams (with their hidden row ids), acknowledged once
// their epoch commits, the jobs of sources, the rescales of jobs, and the
// figures of the running jobs.
package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
)

// Controller is a node's control plane: active on the Raft leader, a
// forwarder elsewhere.
type Controller struct {
	self  string
	meta  *meta.Meta
	local *Worker
	// shared is the node's side of durable checkpoints; durableKick asks
	// the leader's loop for one at once.
	shared        *SharedStore
	durableKick   chan struct{}
	durableFailed atomic.Pointer[durableFailure]
	// leading is when this node last became the leader (Unix nanos; 0:
	// it does not lead).
	leading atomic.Int64
	client  *cluster.Client
	log     *slog.Logger

	// mu orders barriers: the epoch counter changes and the last barrier
	// time. The counter is the epoch of the newest barrier injected; the
	// leader's loop reads it without mu.
	mu       sync.Mutex
	epoch    atomic.Uint64
	lastTime int64
	// gen is the current generation of workers (nil while not leading or
	// recovering). Commits read it without mu, which a barrier holds
	// while nodes inject it (and injecting may wait for a commit).
	gen atomic.Pointer[generation]

	// cmu guards the generation's commits (its queue, and committing in
	// order) and which nodes have created each job.
	cmu       sync.Mutex
	cond      *sync.Cond
	createdBy map[uint32]map[string]bool

	// kick asks the leader's loop for a barrier at once; commitKick tells
	// it that an epoch committed (both hold at most one signal).
	kick       chan struct{}
	commitKick chan struct{}
	interval   chan time.Duration
	// gens numbers this controller's recoveries (Fence.Gen).
	gens uint64

	// queues carry the runtime's queues between nodes; reader reads
	// relations wherever their state is; transfer moves vnode ranges'
	// state between nodes' stores.
	queues   *cluster.Queues
	reader   *Reader
	transfer *Transfer
}

// generation is the workers of the cluster between two recoveries.
type generation struct {
	// fence names the recovery that started it.
	fence   meta.Fence
	nodes   []string // sorted
	workers map[string]workerConn
	// commits decides when its epochs commit (under the controller's cmu).
	commits *commitQueue
	// committed is the newest epoch committed in this generation (or its
	// start), readable without the controller's cmu.
	committed atomic.Uint64
	// failed is closed when a barrier or a commit failed, err saying
	// why: the controller recovers.
	failed chan struct{}
	err    error
	once   sync.Once
}

func (g *generation) fail(err error) { g.once.Do(func() { g.err = err; close(g.failed) }) }

// workerConn is a node's worker as the controller calls it, for a
// recovery.
type workerConn interface {
	Apply(ctx context.Context, f meta.Fence, tick dataflow.Tick, ch *Change) error
	// Reset returns the node's last epoch afterwards: prev, or a later one
	// it had injected. With restore, committed is the epoch of the durable
	// checkpoint that a restore (meta.Restore) goes back to.
	Reset(ctx context.Context, f meta.Fence, committed, prev uint64, restore bool) (uint64, error)
	// Committed tells the node that epoch is committed, by the Raft
	// entry at index.
	Committed(ctx context.Context, f meta.Fence, epoch, index uint64) error
}

// codeNoLeader is the SQLSTATE of errNoLeader: cannot connect now.
const codeNoLeader = "57P03"

// errNoLeader refuses work on a node that does not lead (the caller asks
// the leader) or while the controller recovers.
func errNoLeader() error {
	return pgerror.New(codeNoLeader, "the streaming controller is recovering or has no leader").
		WithHint("Retry shortly; SHOW NODES tells whether every node is up.")
}

// newController returns the controller and the worker of node self,
// whose runtime rt and barrier manager mgr run the node's actors over st;
// builder builds jobs from the catalog; ctx and spawn are the node's
// streaming life and its background work.
func newController(ctx context.Context, spawn func(func()), self string, m *meta.Meta, rt *dataflow.Runtime, mgr *dataflow.BarrierManager, st *storage.Engine, shared remote.Storage, builder Builder, log *slog.Logger) *Controller {
	c := &Controller{self: self, meta: m, client: m.Client(), log: log, createdBy: map[uint32]map[string]bool{},
		kick: make(chan struct{}, 1), commitKick: make(chan struct{}, 1), interval: make(chan time.Duration), durableKick: make(chan struct{}, 1)}
	c.shared = &SharedStore{self: self, store: shared, engine: st, meta: m, log: log}
	c.cond = sync.NewCond(&c.cmu)
	c.local = &Worker{node: self, rt: rt, mgr: mgr, storage: st, shared: c.shared, builder: builder, meta: m, log: log, up: c,
		ready: make(chan struct{}), cacheBytes: map[uint32]func() int64{}}
	c.queues = cluster.NewQueues(c.client, m.NodeAddr)
	c.reader = NewReader(self, m, st)
	c.reader.owners = rt.TableOwners
	c.transfer = NewTransfer(ctx, spawn, self, m, st, rt, c.reader, log)
	c.local.transfer = c.transfer
	c.transfer.shared = c.shared
	rt.SetCluster(self, transport{c.queues}, c.reader)
	rt.SetMigrator(c.transfer)
	return c
}

// ledSince returns when this node last became the leader.
func (c *Controller) ledSince() time.Time { return time.Unix(0, c.leading.Load()) }

// Worker returns this node's worker.
func (c *Controller) Worker() *Worker { return c.local }

// Sealed is the local barrier manager's report that an epoch is sealed on
// this node.
func (c *Controller) Sealed(ctx context.Context, epoch uint64, synced bool) {
	var remote func() error
	if !synced {
		// The seal left its sync to this node's commit record: a seal
		// that goes to another leader, which writes that record, must
		// be durable first.
		remote = c.local.storage.Sync
	}
	c.report(ctx, "sealed epoch", methodSealed, &sealedRequest{Node: c.self, Epoch: epoch}, func() { c.sealed(c.self, epoch) }, remote)
}

// commitSyncs reports whether the commit of an epoch this node seals now
// will be recorded after the seal in its state store's WAL, synced: this
// node leads, and its Raft log shares that WAL (dataflow.Hooks).
func (c *Controller) commitSyncs() bool { return c.meta.SyncsState() && c.meta.IsLeader() }

// Failed is the local barrier manager's report that streaming failed on
// this node: the leader recovers the cluster.
func (c *Controller) Failed(err error) {
	c.log.Error("control: streaming failed on this node; the cluster recovers", "err", err)
	fence := c.local.currentFence()
	c.report(context.Background(), "failure", methodFailed, &failedRequest{Node: c.self, Fence: fence, Err: err.Error()}, func() { c.failed(c.self, fence, err) }, nil)
}

// report delivers a report of this node's to the leader's controller (to
// local, when this node leads). A report the leader does not hear of holds
// the cluster up (a seal every later commit, a creation the CREATE that
// waits for it, a failure the recovery), so it is retried, following
// leadership, until it is delivered or this node is recovered (its fence
// moves on), which makes it moot. Before it first goes to another node,
// remote (nil: nothing) runs; if it fails, the report is not sent and the
// node's streaming fails.
func (c *Controller) report(ctx context.Context, what, method string, req any, local func(), remote func() error) {
	fence := c.local.currentFence()
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		if c.meta.IsLeader() {
			local()
			return
		}
		if addr := c.meta.LeaderAddr(); addr != "" {
			if remote != nil {
				if err := remote(); err != nil {
					c.local.mgr.Fail(fmt.Errorf("control: before reporting %s: %w", what, err))
					return
				}
				remote = nil
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, err := cluster.Call[empty](cctx, c.client, addr, method, req, cluster.WhenReachable)
			cancel()
			if err == nil {
				return
			}
			c.log.Warn("control: a report to the leader failed; retrying", "report", what, "err", err)
		}
		if c.local.currentFence() != fence || sleep(ctx, wait) != nil {
			return
		}
	}
}

// failed fails the running generation with err, if node's failure
// happened in it, so that the cluster recovers.
func (c *Controller) failed(node string, f meta.Fence, err error) {
	if gen := c.gen.Load(); gen != nil && gen.fence == f {
		c.log.Warn("control: a node's streaming failed; recovering", "node", node, "err", err)
		gen.fail(err)
	}
}

// created is the local worker's report that it finished creating job.
func (c *Controller) created(ctx context.Context, node string, job uint32) {
	c.report(ctx, "job created", methodCreated, &createdRequest{Node: node, Job: job}, func() { c.recordCreated(node, job) }, nil)
}

// recordCreated records, on the leader, that node finished creating job.
func (c *Controller) recordCreated(node string, job uint32) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.createdBy[job] == nil {
		c.createdBy[job] = map[string]bool{}
	}
	c.createdBy[job][node] = true
	c.cond.Broadcast()
}

// toLeader sends a request to the leader's controller, best effort (a
// lost barrier request waits for the next periodic barrier).
func (c *Controller) toLeader(ctx context.Context, method string, req any) {
	addr := c.meta.LeaderAddr()
	if addr == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := cluster.Call[empty](ctx, c.client, addr, method, req); err != nil {
		c.log.Warn("control: a report to the leader failed", "method", method, "err", err)
	}
}

// sealed records that node sealed epoch and commits, in order, every
// epoch that every node of the generation has sealed.
func (c *Controller) sealed(node string, epoch uint64) {
	gen := c.gen.Load()
	if gen == nil {
		return
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	for _, r := range gen.commits.seal(node, epoch) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		index, err := c.meta.CommitEpoch(ctx, gen.fence, r.epoch, r.step)
		cancel()
		if err != nil {
			c.log.Error("control: committing an epoch failed; recovering", "epoch", r.epoch, "err", err)
			gen.fail(err)
			return
		}
		gen.committed.Store(r.epoch)
		c.announce(gen, r.epoch, index)
		select {
		case c.commitKick <- struct{}{}:
		default:
		}
	}
}

// announce tells every node of gen at once that epoch is committed: a
// follower's copy of the Raft log learns of a commit only with the next
// entry, which may be a barrier interval away, and acknowledgements and
// reads wait for it. index is the Raft index of the epoch's commit record:
// what a node's catalog must have applied to show the rescale step it
// records.
func (c *Controller) announce(gen *generation, epoch, index uint64) {
	for _, n := range gen.nodes {
		w := gen.workers[n]
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = w.Committed(ctx, gen.fence, epoch, index)
		}()
	}
}

// next returns the next barrier's tick: a new epoch, and a time that
// never goes back (under mu).
func (c *Controller) next() dataflow.Tick {
	epoch := c.epoch.Add(1)
	c.lastTime = max(time.Now().UnixMicro(), c.lastTime+1)
	return dataflow.Tick{Epoch: epoch, Time: c.lastTime}
}

// barrier has every node of the generation inject the next barrier with
// ch, and commits record with its epoch; it returns the tick. A node that
// fails it fails the generation.
func (c *Controller) barrier(ctx context.Context, record *meta.RescaleStep, ch *Change) (dataflow.Tick, error) {
	if _, err := c.waitGen(ctx); err != nil {
		return dataflow.Tick{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.gen.Load()
	if gen == nil {
		return dataflow.Tick{}, errNoLeader()
	}
	if ch.Kind == changeReassign && ch.Expect != nil && !slices.Equal(c.local.rt.Owners(ch.Job), ch.Expect) {
		return dataflow.Tick{}, errOvertaken(ch.Job)
	}
	tick := c.next()
	if ch.Kind == changeStartJob || ch.Kind == changeStartTable {
		// Only a start reads definitions from the catalog; the others
		// would wait for the commit of the last epoch's Raft entry,
		// which followers learn of with the next heartbeat (up to
		// 100 ms).
		ch.CatalogIndex = c.meta.AppliedIndex()
	}
	if record != nil {
		c.cmu.Lock()
		gen.commits.record(tick.Epoch, record)
		c.cmu.Unlock()
	}
	if err := applyAll(ctx, gen, func(w workerConn) error { return w.Apply(ctx, gen.fence, tick, ch) }); err != nil {
		gen.fail(err)
		return tick, err
	}
	return tick, nil
}

// waitGen waits while the controller recovers the cluster (a node is down
// or coming back) and returns the generation then running; it fails once
// this node no longer leads or ctx ends.
func (c *Controller) waitGen(ctx context.Context) (*generation, error) {
	for {
		if gen := c.gen.Load(); gen != nil {
			return gen, nil
		}
		if !c.meta.IsLeader() {
			return nil, errNoLeader()
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// applyAll calls fn on every worker of gen at once and returns the first
// error.
func applyAll(ctx context.Context, gen *generation, fn func(workerConn) error) error {
	return inParallel(len(gen.nodes), func(i int) error {
		if err := fn(gen.workers[gen.nodes[i]]); err != nil {
			return fmt.Errorf("node %s: %w", gen.nodes[i], err)
		}
		return nil
	})
}

// inParallel calls fn(i) for every i below n at once, waits for them all
// and returns their errors joined.
func inParallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Run leads the cluster's epochs while this node is the Raft leader, until
// ctx ends: it recovers the cluster (every node back to the committed
// epoch, the jobs restarted), then injects a barrier every interval, and
// at once when asked; it recovers again when a node fails or the cluster's
// membership changes.
func (c *Controller) Run(ctx context.Context, interval time.Duration) {
	var backoff time.Duration
	retry := minRetry
	for ctx.Err() == nil {
		if !c.meta.IsLeader() {
			c.leading.Store(0)
			if sleep(ctx, 50*time.Millisecond) != nil {
				return
			}
			continue
		}
		c.leading.CompareAndSwap(0, time.Now().UnixNano())
		gen, err := c.recover(ctx)
		if err != nil {
			// A node is down or restarting: try again soon, then every
			// second, so that it is back in the cluster soon after it is up.
			if ctx.Err() == nil {
				c.log.Warn("control: recovery failed; retrying", "err", err, "in", retry)
				_ = sleep(ctx, retry)
				retry = min(2*retry, time.Second)
			}
			continue
		}
		retry = minRetry
		began := time.Now()
		interval = c.lead(ctx, gen, interval)
		c.gen.Store(nil)
		// A generation that fails soon after it began may fail again for
		// the same cause: recover less often each time, up to every
		// maxBackoff, so that a failing job does not keep the cluster busy.
		backoff = nextBackoff(backoff, time.Since(began), gen)
		if backoff > 0 {
			c.log.Warn("control: the cluster failed again soon after recovering; waiting before the next recovery", "wait", backoff)
			_ = sleep(ctx, backoff)
		}
	}
}

// minRetry is the first wait after a recovery that failed (a node did not
// answer).
const minRetry = 100 * time.Millisecond

// maxBackoff bounds the wait between recoveries of a failing cluster.
const maxBackoff = 10 * time.Second

// nextBackoff returns the wait before the next recovery after gen ended
// having lived for lived: none unless it failed within maxBackoff of
// starting, then doubling from 100 ms.
func nextBackoff(prev, lived time.Duration, gen *generation) time.Duration {
	select {
	case <-gen.failed:
		if errors.Is(gen.err, errRelocated) {
			return 0 // not a failure
		}
	default:
		return 0
	}
	if lived >= maxBackoff {
		return 0
	}
	return min(max(2*prev, 100*time.Millisecond), maxBackoff)
}

// lead injects barriers for gen until it fails, leadership is lost, the
// membership changes or ctx ends; it returns the interval then in force.
//
// Barriers come every interval, and at once when asked (RequestBarrier)
// unless an earlier barrier has not committed yet: then the request waits
// for that commit and one barrier serves every request made meanwhile.
// This is group commit: a barrier costs a round of checkpoints and a Raft
// commit whatever it carries, so concurrent writers share one instead of
// queueing a barrier each (each with one row, at the rate barriers can go).
// A lone writer still gets its barrier at once.
func (c *Controller) lead(ctx context.Context, gen *generation, interval time.Duration) time.Duration {
	t := time.NewTicker(interval)
	defer t.Stop()
	check := time.NewTicker(100 * time.Millisecond)
	defer check.Stop()
	asked := false // a request waits for the barrier in flight to commit
	for {
		select {
		case <-ctx.Done():
			return interval
		case <-gen.failed:
			return interval
		case d := <-c.interval:
			interval = d
			t.Reset(d)
			continue
		case <-check.C:
			if !c.meta.IsLeader() || !slices.Equal(memberIDs(c.meta.Catalog()), gen.nodes) {
				return interval
			}
			continue
		case <-t.C:
		case <-c.kick:
			if c.epoch.Load() > gen.committed.Load() {
				asked = true
				continue
			}
		case <-c.commitKick:
			if !asked || c.epoch.Load() > gen.committed.Load() {
				continue
			}
		}
		asked = false
		if _, err := c.barrier(ctx, nil, &Change{}); err != nil && ctx.Err() == nil {
			c.log.Warn("control: a barrier failed; recovering", "err", err)
		}
	}
}

func memberIDs(cat *meta.Catalog) []string {
	var ids []string
	for _, n := range cat.Nodes() {
		ids = append(ids, n.ID)
	}
	return ids
}

// recover brings every node back to the committed epoch and restarts
// every job there, in id order (a view after what it reads), then lets
// sources go at one barrier.
func (c *Controller) recover(ctx context.Context) (*generation, error) {
	cat := c.meta.Catalog()
	c.gens++
	gen := &generation{fence: meta.Fence{Term: c.meta.Term(), Gen: c.gens}, nodes: memberIDs(cat), workers: map[string]workerConn{}, failed: make(chan struct{})}
	for _, n := range gen.nodes {
		if n == c.self {
			gen.workers[n] = localConn{c.local}
		} else {
			gen.workers[n] = &remoteWorker{c: c, node: n}
		}
	}
	// The recovery is recorded before the committed epoch is read: no
	// commit of an earlier generation (a deposed leader's, forwarded once
	// the network heals, or one in flight when its generation failed) can
	// land after the read, and every earlier leader's commit has been
	// applied here by then.
	if err := c.meta.BeginRecovery(ctx, gen.fence); err != nil {
		return nil, err
	}
	committed := c.meta.CommittedEpoch()
	c.mu.Lock()
	prev := max(c.epoch.Load(), committed)
	c.mu.Unlock()
	timeout := 30 * time.Second
	restore := c.meta.Restore()
	if restore != nil {
		// Every node goes back to the durable checkpoint and restores
		// what it holds from shared storage; epochs go on after prev.
		committed, timeout = restore.Epoch, restoreTimeout
		c.log.Warn("control: restoring every job from the last durable checkpoint in shared storage", "lost_node", restore.Node, "durable_epoch", restore.Epoch)
	}
	c.log.Info("control: recovering the cluster", "recovery", gen.fence.String(), "nodes", gen.nodes, "committed_epoch", committed)
	began := time.Now()
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastMu sync.Mutex
	err := applyAll(rctx, gen, func(w workerConn) error {
		last, err := w.Reset(rctx, gen.fence, committed, prev, restore != nil)
		lastMu.Lock()
		prev = max(prev, last)
		lastMu.Unlock()
		return err
	})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.epoch.Store(prev)
	c.mu.Unlock()
	gen.commits = newCommitQueue(gen.nodes, prev)
	gen.committed.Store(prev)
	c.cmu.Lock()
	c.createdBy = map[uint32]map[string]bool{}
	c.cmu.Unlock()
	c.gen.Store(gen)
	jobs := jobsInOrder(cat)
	for _, t := range jobs {
		ch := restartChange(cat, t)
		if restore != nil {
			ch.Restore = restore.Epoch
		}
		if _, err := c.barrier(rctx, nil, ch); err != nil {
			c.dropGen(gen)
			return nil, fmt.Errorf("restart %s %q: %w", t.Kind, t.Name, err)
		}
	}
	if _, err := c.barrier(rctx, nil, &Change{Kind: changeResume}); err != nil {
		c.dropGen(gen)
		return nil, err
	}
	c.log.Info("control: the cluster's jobs run", "nodes", gen.nodes, "committed_epoch", committed, "jobs", len(jobs), "took", time.Since(began).Round(time.Millisecond))
	return gen, nil
}

// errOvertaken refuses a rescale step of job whose vnode owners another
// rescale changed since it planned (55006: not resumed, planned again).
func errOvertaken(job uint32) error {
	return pgerror.New(pgerror.CodeObjectInUse, "the vnode owners of job %d changed while it was being rescaled: another rescale moved them", job).
		WithHint("Run ALTER ... SET PARALLELISM again once SHOW JOBS shows no rescale of it moving.")
}

// dropGen forgets gen after a failed recovery.
func (c *Controller) dropGen(gen *generation) {
	c.gen.CompareAndSwap(gen, nil)
}

// jobsInOrder returns the relations that run jobs, by id.
func jobsInOrder(cat *meta.Catalog) []*meta.Table {
	var out []*meta.Table
	for _, t := range cat.Tables() {
		if t.Kind == meta.KindTable || t.Kind == meta.KindSource || t.Kind.Planned() {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *meta.Table) int { return int(a.ID) - int(b.ID) })
	return out
}

// restartChange is the change that restarts t's job from committed state.
func restartChange(cat *meta.Catalog, t *meta.Table) *Change {
	nodes := JobPlacement(cat, t)
	if fedByDML(t) {
		return &Change{Kind: changeStartTable, Job: t.ID, Def: t, Nodes: nodes}
	}
	return &Change{Kind: changeStartJob, Job: t.ID, Def: t, Owner: JobAssignment(t), Nodes: nodes}
}

// JobPlacement returns the nodes of t's job's actor slots: as recorded,
// or, for a job recorded without one, every slot on the cluster's first
// node.
func JobPlacement(cat *meta.Catalog, t *meta.Table) []string {
	if len(t.Placement) > 0 {
		return t.Placement
	}
	n := max(meta.Slots(JobAssignment(t)), 1)
	out := make([]string, n)
	for i := range out {
		out[i] = cat.Origin()
	}
	return out
}

// JobAssignment returns the vnode owners of t's job: the assignment its
// last committed rescale step recorded, else contiguous ranges over its
// placement's slots.
func JobAssignment(t *meta.Table) []int {
	if len(t.Assignment) > 0 {
		return t.Assignment
	}
	return dataflow.Contiguous(rowkey.VNodes, max(len(t.Placement), t.Parallelism, 1))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// RequestBarrier asks for a barrier as soon as possible (group commit:
// concurrent requests share one barrier).
func (c *Controller) RequestBarrier() {
	if !c.meta.IsLeader() {
		go c.toLeader(context.Background(), methodRequest, &empty{})
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// SetInterval changes the time between periodic barriers (on the leader).
func (c *Controller) SetInterval(ctx context.Context, d time.Duration) {
	select {
	case c.interval <- d:
	case <-ctx.Done():
	case <-time.After(time.Second):
		// Not leading: the leader reads the setting when it takes over.
	}
}
