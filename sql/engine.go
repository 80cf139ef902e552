// Package sql runs SQL sessions: it parses statements with sql/parser,
// binds and plans them with planner, executes DDL through the Raft catalog
// (meta) and the controller (control), runs queries at the newest
// committed epoch, and writes DML into tables' streams (control), which
// acknowledges it once the epoch that carries it is committed. It
// implements pgwire's Handler and Session interfaces.
package sql

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"google.golang.org/grpc"
)

// Options configure an Engine.
type Options struct {
	// Version is reported to clients as server_version.
	Version string
	// Parallelism is the default number of actors per fragment of a
	// materialized view; default the number of cores.
	Parallelism int
	Logger      *slog.Logger
}

// Engine is a node's SQL engine over the catalog and the node's streaming,
// whose epochs order every write.
type Engine struct {
	Meta   *meta.Meta
	opts   Options
	stream *control.Streaming
	ctrl   *control.Controller
	// reader reads relations wherever their state is in the cluster.
	reader *control.Reader

	// writers orders the writes of each table (a *tableWriter by table
	// id).
	writers sync.Map
	// lockMu guards the holders of the writers and what transactions
	// wait for (deadlock detection).
	lockMu sync.Mutex
	// sessions are the node's client sessions by process ID.
	sessions sync.Map
	// backends are the connections of the node's server (SetBackends).
	backends atomic.Pointer[Backends]
	// seqs hands out the node's sequence values.
	seqs *control.Sequences
}

// Backends are the client connections of a node's server, by process ID
// (pgwire.Server): what pg_cancel_backend and pg_terminate_backend signal.
type Backends interface {
	CancelBackend(pid uint32) bool
	TerminateBackend(pid uint32, cause *pgerror.Error) bool
}

// SetBackends gives the engine the connections of the server that serves
// its sessions.
func (e *Engine) SetBackends(b Backends) { e.backends.Store(&b) }

// NewEngine returns a node's SQL engine over its catalog m and its
// streaming.
func NewEngine(m *meta.Meta, stream *control.Streaming, opts Options) *Engine {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Engine{Meta: m, opts: opts, stream: stream, ctrl: stream.Controller(), reader: stream.Reader(), seqs: control.NewSequences(m)}
}

// Services returns the engine's services between nodes, for the node's
// cluster server.
func (e *Engine) Services() []*grpc.ServiceDesc {
	return []*grpc.ServiceDesc{e.dmlService()}
}

// alterSystem sets a cluster setting, kept in the catalog:
// barrier_interval_ms (10 to 3600000) takes effect at once;
// auto_rebalance (on or off) has the leader rebalance every view when the
// cluster's nodes change.
func (e *Engine) alterSystem(ctx context.Context, name, value string) error {
	switch name {
	case control.BarrierIntervalParam:
		ms, err := strconv.Atoi(value)
		if err != nil || ms < 10 || ms > 3600000 {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "%s must be an integer from 10 to 3600000", name)
		}
		if err := e.Meta.SetSystem(ctx, name, value); err != nil {
			return err
		}
		e.ctrl.SetInterval(ctx, time.Duration(ms)*time.Millisecond)
		return nil
	case control.AutoRebalanceParam:
		b, ok := parseBool(value)
		if !ok {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "%s must be on or off", name)
		}
		return e.Meta.SetSystem(ctx, name, map[bool]string{true: "on", false: "off"}[b])
	case control.MigrationHandoffParam:
		if value != control.HandoffCopy && value != control.HandoffShared {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "%s must be %s or %s", name, control.HandoffCopy, control.HandoffShared)
		}
		return e.Meta.SetSystem(ctx, name, value)
	case control.DurableIntervalParam, control.NodeDeadTimeoutParam:
		d, err := control.ParseDuration(value)
		if err != nil {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "%s: %v", name, err)
		}
		if name == control.DurableIntervalParam && d < 100*time.Millisecond {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "%s must be at least 100ms", name)
		}
		return e.Meta.SetSystem(ctx, name, d.String())
	}
	return pgerror.New(pgerror.CodeUndefinedObject, "unrecognized system parameter %q", name).
		WithHint("The system parameters are: %s.", strings.Join(systemParams, ", "))
}

// systemParams are the cluster settings ALTER SYSTEM SET sets.
var systemParams = []string{control.BarrierIntervalParam, control.AutoRebalanceParam, control.DurableIntervalParam, control.NodeDeadTimeoutParam, control.MigrationHandoffParam}

// systemParam returns a cluster setting's current value.
func (e *Engine) systemParam(name string) (string, bool) {
	switch name {
	case control.BarrierIntervalParam:
		if v, ok := e.Meta.Catalog().System(name); ok {
			return v, true
		}
		return strconv.Itoa(int(e.stream.DefaultBarrierInterval() / time.Millisecond)), true
	case control.AutoRebalanceParam:
		if v, ok := e.Meta.Catalog().System(name); ok {
			return v, true
		}
		return "off", true
	case control.DurableIntervalParam:
		return control.DurationParam(e.Meta.Catalog(), name, control.DefaultDurableInterval).String(), true
	case control.NodeDeadTimeoutParam:
		return control.DurationParam(e.Meta.Catalog(), name, control.DefaultNodeDeadTimeout).String(), true
	case control.MigrationHandoffParam:
		if v, ok := e.Meta.Catalog().System(name); ok {
			return v, true
		}
		return control.HandoffCopy, true
	}
	return "", false
}

// ReadEpoch returns the epoch a new statement reads at: the newest
// committed one.
func (e *Engine) ReadEpoch() uint64 { return e.stream.Committed() }

// Flush returns once everything acknowledged before it is visible in every
// materialized view: the current epoch is committed.
func (e *Engine) Flush(ctx context.Context) error { return e.stream.Flush(ctx) }

// waitWritten returns once the epoch of a write is committed, sent when
// the streaming's Resets returned since.
func (e *Engine) waitWritten(ctx context.Context, epoch, since uint64) error {
	err := e.stream.WaitWritten(ctx, epoch, since)
	if errors.Is(err, control.ErrRecovered) {
		return errRolledBack{}
	}
	return err
}

// errRolledBack fails a write whose epoch a recovery rolled back; the
// statement, which was not applied, runs again up to maxWriteRetries
// times before the client is told (40001).
type errRolledBack struct{}

func (errRolledBack) Error() string { return control.ErrRecovered.Error() }

// As makes the error a PostgreSQL one for pgerror.From.
func (errRolledBack) As(target any) bool {
	pe, ok := target.(**pgerror.Error)
	if ok {
		*pe = pgerror.New(pgerror.CodeSerializationFailure, "%v", control.ErrRecovered)
	}
	return ok
}

const maxWriteRetries = 3

// WaitCommitted returns once epoch is committed. If the barrier that ends
// epoch has not been injected yet, it asks for one at once (group commit)
// rather than waiting for the barrier interval.
func (e *Engine) WaitCommitted(ctx context.Context, epoch uint64) error {
	return e.stream.WaitCommitted(ctx, epoch)
}
