package meta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/pgerror"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// serviceName is meta's gRPC service between nodes.
const serviceName = "streamdb.meta"

// Methods of meta's service.
const (
	methodApply     = "/" + serviceName + "/Apply"
	methodJoin      = "/" + serviceName + "/Join"
	methodPing      = "/" + serviceName + "/Ping"
	methodRemove    = "/" + serviceName + "/RemoveNode"
	methodReadIndex = "/" + serviceName + "/ReadIndex"
)

// applyRequest carries an encoded command to the leader.
type applyRequest struct {
	Data []byte `json:"data"`
}

// applyResponse is the leader's outcome of an applied command: its log
// index and the FSM's value as JSON.
type applyResponse struct {
	Index uint64          `json:"index"`
	Value json.RawMessage `json:"value"`
}

// pingRequest and pingResponse check that a node answers (liveness).
type pingRequest struct {
	From string `json:"from"`
}

type pingResponse struct {
	ID string `json:"id"`
}

type removeNodeRequest struct {
	ID string `json:"id"`
	// Force removes a node lost for good (ForceRemoveNode).
	Force bool `json:"force,omitempty"`
}

type removeNodeResponse struct{}

func (m *Meta) service() *grpc.ServiceDesc {
	return cluster.Service(serviceName, []grpc.MethodDesc{
		cluster.Unary("Apply", func(ctx context.Context, r *applyRequest) (*applyResponse, error) {
			index, v, err := m.applyLocal(ctx, r.Data)
			if err != nil {
				return nil, err
			}
			raw, err := json.Marshal(v)
			return &applyResponse{Index: index, Value: raw}, err
		}),
		cluster.Unary("Join", m.handleJoin),
		cluster.Unary("ReadIndex", m.serveReadIndex),
		cluster.Unary("Ping", func(_ context.Context, r *pingRequest) (*pingResponse, error) {
			if m.live != nil && r.From != "" {
				m.live.heard(r.From)
			}
			return &pingResponse{ID: string(m.id)}, nil
		}),
		cluster.Unary("RemoveNode", func(ctx context.Context, r *removeNodeRequest) (*removeNodeResponse, error) {
			if r.Force {
				return &removeNodeResponse{}, m.removeNodeLocal(ctx, r.ID, opForceRemove, forceRemoveCmd{ID: r.ID})
			}
			return &removeNodeResponse{}, m.removeNodeLocal(ctx, r.ID, opRemoveNode, removeNodeCmd{ID: r.ID})
		}),
	}, nil)
}

// errNotLeader says that this node cannot apply commands now: it is not
// (or no longer) the leader.
var errNotLeader = errors.New("meta: not the leader")

// applyLocal applies data on this node, which must be the leader, and
// returns the entry's index and the FSM's value.
func (m *Meta) applyLocal(ctx context.Context, data []byte) (uint64, any, error) {
	if m.raft.State() != raft.Leader {
		return 0, nil, errNotLeaderStatus()
	}
	timeout := enqueueTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	f := m.raft.Apply(data, timeout)
	if err := f.Error(); err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrLeadershipTransferInProgress) {
			return 0, nil, errNotLeaderStatus()
		}
		return 0, nil, fmt.Errorf("meta: catalog change not committed: %w", err)
	}
	r := f.Response().(result)
	return f.Index(), r.value, r.err
}

// errNotLeaderStatus is errNotLeader as a PostgreSQL error, so that it
// survives a hop between nodes and the forwarder retries.
func errNotLeaderStatus() error {
	return pgerror.New(codeNotLeader, "%s", errNotLeader.Error())
}

// codeNotLeader marks errNotLeader across nodes (SQLSTATE class 40,
// transaction rollback: retry).
const codeNotLeader = "40NL0"

// applyData applies an encoded command through the leader, wherever it
// is, retrying while leadership moves, until ctx ends. A command the
// leader applied for this node is waited for here too, so that the
// catalog this node reads reflects it when applyData returns.
func (m *Meta) applyData(ctx context.Context, data []byte) (any, error) {
	return m.onLeader(ctx, func(ctx context.Context) (any, error) {
		_, v, err := m.applyLocal(ctx, data)
		return v, err
	}, func(ctx context.Context, leader string) (any, error) {
		resp, err := cluster.Call[applyResponse](ctx, m.client, leader, methodApply, &applyRequest{Data: data})
		if err != nil {
			return nil, err
		}
		if err := m.WaitApplied(ctx, resp.Index); err != nil {
			return nil, err
		}
		return resp.Value, nil
	})
}

// onLeader runs local when this node leads, else remote with the
// leader's cluster address; it retries while there is no leader or it
// changes, until ctx ends.
func (m *Meta) onLeader(ctx context.Context, local func(context.Context) (any, error), remote func(context.Context, string) (any, error)) (any, error) {
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		var v any
		var err error
		addr, _ := m.raft.LeaderWithID()
		switch {
		case m.raft.State() == raft.Leader:
			v, err = local(ctx)
		case addr != "":
			v, err = remote(ctx, string(addr))
		default:
			err = errNotLeaderStatus()
		}
		if !isRetryable(err) {
			return v, err
		}
		if sleepCtx(ctx, wait) != nil {
			return nil, pgerror.New(pgerror.CodeCannotConnectNow, "the catalog has no Raft leader: %v", err).
				WithHint("A majority of the cluster's voters must be running and connected; check SHOW NODES on another node.")
		}
	}
}

// isRetryable reports whether a command may be sent again: no leader, or
// the leader could not be reached.
func isRetryable(err error) bool {
	if err == nil {
		return false
	}
	return pgerror.Code(err) == codeNotLeader || status.Code(err) == codes.Unavailable
}

// AppliedIndex returns the index of the last entry this node's FSM applied
// (Raft's AppliedIndex may run ahead: it counts entries handed to the FSM).
func (m *Meta) AppliedIndex() uint64 { return m.fsm.applied.Load() }

// WaitApplied waits until this node's FSM has applied the entry at index.
func (m *Meta) WaitApplied(ctx context.Context, index uint64) error {
	for wait := time.Millisecond; m.AppliedIndex() < index; wait = min(2*wait, 20*time.Millisecond) {
		if err := sleepCtx(ctx, wait); err != nil {
			return fmt.Errorf("meta: the catalog change did not reach this node: %w", err)
		}
	}
	return nil
}

// sleepCtx sleeps for d unless ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
