package control

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2/objstorage/remote"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/latency"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
)

// Options configure a node's streaming.
type Options struct {
	// BarrierInterval is the time between checkpoint barriers; default
	// 1 s. The cluster setting BarrierIntervalParam wins over it.
	BarrierInterval time.Duration
	// StateCacheBytes bounds the memory of cached operator state; default
	// dataflow.DefaultCacheBytes.
	StateCacheBytes int64
	// FollowHeap lowers the state cache's budget while the Go heap is
	// short of room under the runtime's memory limit
	// (dataflow.Store.FollowHeap): for the one node of a server process.
	FollowHeap bool
	// Shared is the shared storage of durable checkpoints (nil: none;
	// see storage/shared).
	Shared remote.Storage
	Logger *slog.Logger
}

// BarrierIntervalParam is the cluster setting (ALTER SYSTEM SET) of the
// time between barriers, in milliseconds; the catalog keeps it across
// restarts.
const BarrierIntervalParam = "barrier_interval_ms"

// Streaming is a node's streaming side: its state store, barrier manager
// and runtime, the controller and worker over them, the node's reader of
// relations across the cluster, and the write path into tables' streams
// (with their hidden row ids).
type Streaming struct {
	meta   *meta.Meta
	opts   Options
	store  *dataflow.Store
	mgr    *dataflow.BarrierManager
	rt     *dataflow.Runtime
	ctrl   *Controller
	rowIDs *rowIDs
	// ctx ends when the streaming closes; rescales run under it.
	ctx context.Context
	// bg counts the goroutines Close waits for.
	bg     sync.WaitGroup
	cancel context.CancelFunc

	// jobsMu serializes the changes of the set of jobs and their
	// assignments (LockJobs).
	jobsMu sync.Mutex
	// rescales holds each job's latest rescale (SHOW JOBS).
	rescaleMu sync.Mutex
	rescales  map[uint32]*Rescaling
	// steps sums the rescale steps this node ran (Stats).
	steps stepTotals
}

// Start starts a node's part of the streaming runtime over its store st;
// builder builds jobs that take planning. The controller (on the Raft
// leader) then recovers the cluster: every node's versions written after
// the last committed epoch are deleted, every table's, source's and
// materialized view's job restarts from that epoch (sources from their
// offsets at that epoch), and barriers begin; Ready tells when this node's
// part runs. Then the rescales this node ran when it stopped go on.
func Start(m *meta.Meta, st *storage.Engine, builder Builder, opts Options) (*Streaming, error) {
	if opts.BarrierInterval <= 0 {
		opts.BarrierInterval = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	// This node's catalog may lag the cluster's until the leader's log
	// reaches it, so storage is rolled back only by the controller's
	// recovery, to the epoch the leader knows committed.
	ids, err := loadRowIDs(st)
	if err != nil {
		return nil, err
	}
	s := &Streaming{meta: m, opts: opts, rowIDs: ids, rescales: map[uint32]*Rescaling{}}
	ctx, cancel := context.WithCancel(context.Background())
	s.ctx, s.cancel = ctx, cancel
	store := dataflow.NewStore(st)
	if opts.StateCacheBytes > 0 {
		store.SetCacheBytes(opts.StateCacheBytes)
	}
	s.store = store
	var ctrl *Controller
	s.mgr = dataflow.NewBarrierManager(store, m.CommittedEpoch(), dataflow.Hooks{
		Sealed:      func(epoch uint64, synced bool) { ctrl.Sealed(ctx, epoch, synced) },
		Request:     func() { ctrl.RequestBarrier() },
		Failed:      func(err error) { ctrl.Failed(err) },
		CommitSyncs: func() bool { return ctrl.commitSyncs() },
	})
	s.rt = dataflow.NewRuntime(ctx, store, s.mgr, rowkey.VNodes, opts.Logger)
	ctrl = newController(ctx, s.background, m.NodeID(), m, s.rt, s.mgr, st, opts.Shared, builder, opts.Logger)
	s.ctrl = ctrl
	ctrl.shared.rowIDs = ids
	m.OnCommit(s.mgr.SetCommitted)
	s.background(func() { s.mgr.Run(ctx) })
	if opts.FollowHeap {
		s.background(func() { store.FollowHeap(ctx, time.Second) })
	}
	interval := opts.BarrierInterval
	if v, ok := m.Catalog().System(BarrierIntervalParam); ok {
		// ALTER SYSTEM SET outlives restarts and wins over the option.
		if ms, err := strconv.Atoi(v); err == nil {
			interval = time.Duration(ms) * time.Millisecond
		}
	}
	s.background(func() { ctrl.Run(ctx, interval) })
	s.background(func() { s.autoRebalance(ctx) })
	s.background(func() { s.durableLoop(ctx) })
	s.background(func() { s.collectLoop(ctx) })
	s.background(func() {
		select {
		case <-s.Ready():
			s.resumeRescales()
		case <-ctx.Done():
		}
	})
	return s, nil
}

// background runs fn in a goroutine that Close waits for.
func (s *Streaming) background(fn func()) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		fn()
	}()
}

// Close stops streaming on this node and waits for its goroutines to end.
// Uncommitted epochs are discarded by the next start's recovery.
func (s *Streaming) Close() {
	s.cancel()
	s.bg.Wait()
}

// LockJobs waits until no other caller holds the jobs lock and takes it,
// returning its unlock: DDL that starts or stops jobs holds it, and so
// does every rescale while it moves, so that they run one at a time.
func (s *Streaming) LockJobs() (unlock func()) {
	s.jobsMu.Lock()
	return s.jobsMu.Unlock
}

// Controller returns the node's controller, which makes graph changes.
func (s *Streaming) Controller() *Controller { return s.ctrl }

// Reader returns the node's reader of relations across the cluster.
func (s *Streaming) Reader() *Reader { return s.ctrl.reader }

// Ready returns a channel closed once this node's part of every job runs
// (after the controller's latest recovery).
func (s *Streaming) Ready() <-chan struct{} { return s.ctrl.Worker().Ready() }

// DefaultBarrierInterval returns the time between barriers when the
// cluster setting BarrierIntervalParam is not set.
func (s *Streaming) DefaultBarrierInterval() time.Duration { return s.opts.BarrierInterval }

// Committed returns the newest committed epoch: what a new statement
// reads.
func (s *Streaming) Committed() uint64 { return s.mgr.Committed() }

// WaitCommitted returns once epoch is committed. If the barrier that ends
// epoch has not been injected yet, it asks for one at once (group commit)
// rather than waiting for the barrier interval.
func (s *Streaming) WaitCommitted(ctx context.Context, epoch uint64) error {
	s.requestFor(epoch)
	return s.mgr.WaitCommitted(ctx, epoch)
}

// catchUpCatalog waits until this node's catalog holds what the leader
// recorded with the epochs committed so far (a rescale's steps, a job's
// placement). A follower hears of a commit from the leader at once, but
// its Raft log only with the next entry, 50-100 ms later when nothing
// else is written (Raft's commit timeout); what follows a rescale (the
// next job's, a drain's relocation, SHOW JOBS) reads the catalog. DML
// acknowledgements need not wait for it.
func (s *Streaming) catchUpCatalog(ctx context.Context) error {
	return s.meta.WaitApplied(ctx, s.ctrl.Worker().commitIndex.Load())
}

// AwaitCommitted returns once epoch is committed, without asking for a
// barrier: a reader that follows the committed epochs (SUBSCRIBE) waits
// for them at the barrier interval, never driving barriers itself.
func (s *Streaming) AwaitCommitted(ctx context.Context, epoch uint64) error {
	return s.mgr.WaitCommitted(ctx, epoch)
}

// Flush returns once everything sent before it is committed.
func (s *Streaming) Flush(ctx context.Context) error {
	return s.WaitCommitted(ctx, s.mgr.CurrentEpoch())
}

// requestFor asks for a barrier at once if the one that ends epoch has not
// been injected yet.
func (s *Streaming) requestFor(epoch uint64) {
	if epoch >= s.mgr.CurrentEpoch() {
		s.mgr.RequestBarrier()
	}
}

// BarrierLatency summarizes, over the node's life, the time from each
// barrier's injection until its epoch was committed.
func (s *Streaming) BarrierLatency() latency.Summary { return s.mgr.BarrierLatency() }

// Owners returns the vnode owners of job's parallel fragments as this
// node runs them (nil: the job has none here).
func (s *Streaming) Owners(job uint32) []int { return s.rt.Owners(job) }

// Fail fails this node's streaming as a failed actor does: the cluster
// recovers from the last committed epoch.
func (s *Streaming) Fail(err error) { s.mgr.Fail(err) }
