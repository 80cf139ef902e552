// Package sql runs SQL sessions: it parses statements with sql/parser,
// binds and plans them with planner, executes DDL through the Raft catalog
// (meta), runs queries over storage at the newest committed epoch, and
// feeds DML into the streaming runtime, acknowledging it once the epoch
// that carries it is committed. It implements pgwire's Handler and Session
// interfaces.
package sql

import (
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"google.golang.org/grpc"
)

// Options configure an Engine.
type Options struct {
	// Version is reported to clients as server_version.
	Version string
	// BarrierInterval is the time between checkpoint barriers; default 1 s.
	BarrierInterval time.Duration
	// Parallelism is the default number of actors per fragment of a
	// materialized view; default the number of cores.
	Parallelism int
	// StateCacheBytes bounds the memory of cached operator state; default
	// dataflow.DefaultCacheBytes.
	StateCacheBytes int64
	Logger          *slog.Logger
}

// Engine is a node's SQL engine: the catalog, the state store and the
// streaming runtime whose epochs order every write.
type Engine struct {
	Meta    *meta.Meta
	Storage *storage.Engine
	opts    Options
	rt      *dataflow.Runtime
	mgr     *dataflow.BarrierManager
	ctrl    *control.Controller
	// reader reads relations wherever their state is in the cluster.
	reader *control.Reader
	// bg counts the engine's goroutines (Close waits for them).
	bg     sync.WaitGroup
	cancel context.CancelFunc

	// writers orders the writes of each table (a *tableWriter by table
	// id).
	writers sync.Map
	// rowIDs allocates hidden row ids.
	rowIDs *rowIDs
	// ddlMu serializes DDL that starts or stops streaming jobs, and
	// rescales.
	ddlMu sync.Mutex
	// ctx ends when the engine closes; background rescales run under it.
	ctx context.Context
	// rescales holds each job's latest rescale (SHOW JOBS).
	rescaleMu sync.Mutex
	rescales  map[uint32]*rescaleJob
}

// rowIDKey is the node-local high-water mark of hidden row ids.
var rowIDKey = storage.AppendKey(nil, 0, 0, []byte("row_id"))

// NewEngine starts a node's SQL engine and its part of the streaming
// runtime. The controller (on the Raft leader) then recovers the cluster:
// every node's versions written after the last committed epoch are
// deleted, every table's, source's and materialized view's job restarts
// from that epoch (sources from their offsets at that epoch), and
// barriers begin; Ready tells when this node's part runs.
func NewEngine(m *meta.Meta, st *storage.Engine, opts Options) (*Engine, error) {
	if opts.BarrierInterval <= 0 {
		opts.BarrierInterval = time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	// This node's catalog may lag the cluster's until the leader's log
	// reaches it, so storage is rolled back only by the controller's
	// recovery, to the epoch the leader knows committed. Hidden row ids
	// continue from the latest high-water mark, committed or not: ids only
	// have to be new.
	committed := m.CommittedEpoch()
	var nextRowID int64
	if v, ok, err := st.Get(rowIDKey, math.MaxUint64); err != nil {
		return nil, err
	} else if ok && len(v) == 8 {
		nextRowID = int64(binary.BigEndian.Uint64(v))
	}
	e := &Engine{Meta: m, Storage: st, opts: opts, rowIDs: newRowIDs(nextRowID), rescales: map[uint32]*rescaleJob{}}
	ctx, cancel := context.WithCancel(context.Background())
	e.ctx, e.cancel = ctx, cancel
	store := dataflow.NewStore(st)
	if opts.StateCacheBytes > 0 {
		store.SetCacheBytes(opts.StateCacheBytes)
	}
	var ctrl *control.Controller
	e.mgr = dataflow.NewBarrierManager(store, committed, dataflow.Hooks{
		Sealed:  func(epoch uint64) { ctrl.Sealed(ctx, epoch) },
		Request: func() { ctrl.RequestBarrier() },
		Failed:  func(err error) { ctrl.Failed(err) },
	})
	e.rt = dataflow.NewRuntime(ctx, store, e.mgr, rowkey.VNodes, opts.Logger)
	ctrl = control.New(m.NodeID(), m, e.rt, e.mgr, st, planner.NewJobs(m.Catalog), opts.Logger)
	e.ctrl = ctrl
	e.reader = ctrl.Reader()
	m.OnCommit(e.mgr.SetCommitted)
	e.background(func() { e.mgr.Run(ctx) })
	interval := opts.BarrierInterval
	if v, ok := m.Catalog().System(barrierIntervalParam); ok {
		// ALTER SYSTEM SET outlives restarts and wins over the flag.
		if ms, err := strconv.Atoi(v); err == nil {
			interval = time.Duration(ms) * time.Millisecond
		}
	}
	e.background(func() { ctrl.Run(ctx, interval) })
	e.background(func() {
		select {
		case <-ctrl.Worker().Ready():
			if m.IsLeader() {
				e.resumeRescales()
			}
		case <-ctx.Done():
		}
	})
	return e, nil
}

// Services returns the engine's services between nodes, for the node's
// cluster server.
func (e *Engine) Services() []*grpc.ServiceDesc {
	return append(e.ctrl.Services(), e.dmlService())
}

// Ready returns a channel closed once this node's part of every job runs
// (after the controller's recovery).
func (e *Engine) Ready() <-chan struct{} { return e.ctrl.Worker().Ready() }

// barrierIntervalParam is the cluster setting for the barrier interval.
const barrierIntervalParam = "barrier_interval_ms"

// alterSystem sets a cluster setting: barrier_interval_ms (10 to
// 3600000) takes effect at once and is kept in the catalog.
func (e *Engine) alterSystem(ctx context.Context, name, value string) error {
	if name != barrierIntervalParam {
		return pgerror.New(pgerror.CodeUndefinedObject, "unrecognized system parameter %q", name).
			WithHint("The system parameters are: %s.", barrierIntervalParam)
	}
	ms, err := strconv.Atoi(value)
	if err != nil || ms < 10 || ms > 3600000 {
		return pgerror.New(pgerror.CodeInvalidParameterValue, "%s must be an integer from 10 to 3600000", name)
	}
	if err := e.Meta.SetSystem(ctx, name, value); err != nil {
		return err
	}
	e.ctrl.SetInterval(ctx, time.Duration(ms)*time.Millisecond)
	return nil
}

// removeNode removes a node that runs nothing from the cluster (ALTER
// SYSTEM REMOVE NODE).
func (e *Engine) removeNode(ctx context.Context, id string) error {
	if load := control.NodeLoads(e.Meta.Catalog())[id]; load.Actors > 0 {
		return pgerror.New(pgerror.CodeObjectInUse, "node %q runs %d actors of the cluster's jobs", id, load.Actors).
			WithHint("Move its work to other nodes first (draining comes with online migration between nodes).")
	}
	return e.Meta.RemoveNode(ctx, id)
}

// systemParam returns a cluster setting's current value.
func (e *Engine) systemParam(name string) (string, bool) {
	if name != barrierIntervalParam {
		return "", false
	}
	if v, ok := e.Meta.Catalog().System(name); ok {
		return v, true
	}
	return strconv.Itoa(int(e.opts.BarrierInterval / time.Millisecond)), true
}

// background runs fn in a goroutine that Close waits for.
func (e *Engine) background(fn func()) {
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		fn()
	}()
}

// Close stops streaming and waits for the engine's goroutines to end.
// Uncommitted epochs are discarded by the next start's recovery.
func (e *Engine) Close() {
	e.cancel()
	e.bg.Wait()
}

// ReadEpoch returns the epoch a new statement reads at: the newest
// committed one.
func (e *Engine) ReadEpoch() uint64 { return e.mgr.Committed() }

// Flush returns once everything acknowledged before it is visible in every
// materialized view: the current epoch is committed.
func (e *Engine) Flush(ctx context.Context) error {
	return e.WaitCommitted(ctx, e.mgr.CurrentEpoch())
}

// waitWritten returns once the epoch of a write is committed, sent when
// the barrier manager's Resets returned since (see WaitCommitted).
func (e *Engine) waitWritten(ctx context.Context, epoch, since uint64) error {
	if epoch >= e.mgr.CurrentEpoch() {
		e.mgr.RequestBarrier()
	}
	err := e.mgr.WaitWritten(ctx, epoch, since)
	if errors.Is(err, dataflow.ErrRecovered) {
		return errRolledBack{}
	}
	return err
}

// errRolledBack fails a write whose epoch a recovery rolled back; the
// statement, which was not applied, runs again up to maxWriteRetries
// times before the client is told (40001).
type errRolledBack struct{}

func (errRolledBack) Error() string { return dataflow.ErrRecovered.Error() }

// As makes the error a PostgreSQL one for pgerror.From.
func (errRolledBack) As(target any) bool {
	pe, ok := target.(**pgerror.Error)
	if ok {
		*pe = pgerror.New(pgerror.CodeSerializationFailure, "%v", dataflow.ErrRecovered)
	}
	return ok
}

const maxWriteRetries = 3

// WaitCommitted returns once epoch is committed. If the barrier that ends
// epoch has not been injected yet, it asks for one at once (group commit)
// rather than waiting for the barrier interval.
func (e *Engine) WaitCommitted(ctx context.Context, epoch uint64) error {
	if epoch >= e.mgr.CurrentEpoch() {
		e.mgr.RequestBarrier()
	}
	return e.mgr.WaitCommitted(ctx, epoch)
}
