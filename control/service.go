package control

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"google.golang.org/grpc"
)

// The control plane's services between nodes: the worker's (the leader
// calls every node's) and the controller's (nodes call the leader's).
const (
	workerService  = "streamdb.worker"
	controlService = "streamdb.control"

	methodApply     = "/" + workerService + "/Apply"
	methodReset     = "/" + workerService + "/Reset"
	methodCommitted = "/" + workerService + "/Committed"
	methodTake      = "/" + workerService + "/Take"
	methodSealed    = "/" + controlService + "/Sealed"
	methodCreated   = "/" + controlService + "/Created"
	methodFailed    = "/" + controlService + "/Failed"
	methodRequest   = "/" + controlService + "/Request"
	methodStartJob  = "/" + controlService + "/StartJob"
	methodChange    = "/" + controlService + "/Change"
)

type empty struct{}

type applyRequest struct {
	Fence  meta.Fence    `json:"fence"`
	Tick   dataflow.Tick `json:"tick"`
	Change *Change       `json:"change"`
}

type resetRequest struct {
	Fence     meta.Fence `json:"fence"`
	Committed uint64     `json:"committed"`
	Prev      uint64     `json:"prev"`
	// Restore: Committed is a restore's durable checkpoint, which the
	// node's catalog records once it applied the leader's log to Index.
	Restore bool   `json:"restore,omitempty"`
	Index   uint64 `json:"index,omitempty"`
}

// resetResponse carries the node's last epoch after a reset.
type resetResponse struct {
	Last uint64 `json:"last"`
}

type committedRequest struct {
	Fence meta.Fence `json:"fence"`
	Epoch uint64     `json:"epoch"`
	Index uint64     `json:"index"`
}

type sealedRequest struct {
	Node  string `json:"node"`
	Epoch uint64 `json:"epoch"`
}

type failedRequest struct {
	Node  string     `json:"node"`
	Fence meta.Fence `json:"fence"`
	Err   string     `json:"err"`
}

type createdRequest struct {
	Node string `json:"node"`
	Job  uint32 `json:"job"`
}

// jobRequest asks the leader's controller for a graph change: the change
// and, for a rescale step, what to commit with it.
type jobRequest struct {
	Change *Change           `json:"change"`
	Step   *meta.RescaleStep `json:"step,omitempty"`
}

type jobResponse struct {
	Epoch uint64 `json:"epoch"`
}

// Services returns the control plane's services for this node's cluster
// server.
func (c *Controller) Services() []*grpc.ServiceDesc {
	w := c.local
	return []*grpc.ServiceDesc{
		c.queues.Service(),
		c.reader.service(),
		c.transfer.service(),
		c.shared.service(c),
		cluster.Service(workerService, []grpc.MethodDesc{
			cluster.Unary("Apply", func(ctx context.Context, r *applyRequest) (*empty, error) {
				return &empty{}, w.Apply(context.WithoutCancel(ctx), r.Fence, r.Tick, r.Change)
			}),
			cluster.Unary("Reset", func(ctx context.Context, r *resetRequest) (*resetResponse, error) {
				if err := w.meta.WaitApplied(ctx, r.Index); err != nil {
					return nil, err
				}
				last, err := w.Reset(r.Fence, r.Committed, r.Prev, r.Restore)
				return &resetResponse{Last: last}, err
			}),
			cluster.Unary("Committed", func(_ context.Context, r *committedRequest) (*empty, error) {
				return &empty{}, w.Committed(r.Fence, r.Epoch, r.Index)
			}),
			cluster.Unary("Take", func(ctx context.Context, r *relocateRequest) (*bytesResponse, error) {
				n, err := w.take(ctx, r)
				return &bytesResponse{Bytes: n}, err
			}),
		}, nil),
		cluster.Service(controlService, []grpc.MethodDesc{
			cluster.Unary("Sealed", func(_ context.Context, r *sealedRequest) (*empty, error) {
				c.sealed(r.Node, r.Epoch)
				return &empty{}, nil
			}),
			cluster.Unary("Failed", func(_ context.Context, r *failedRequest) (*empty, error) {
				c.failed(r.Node, r.Fence, fmt.Errorf("node %s: %s", r.Node, r.Err))
				return &empty{}, nil
			}),
			cluster.Unary("Created", func(_ context.Context, r *createdRequest) (*empty, error) {
				if !c.meta.IsLeader() {
					// The sender retries with the new leader.
					return nil, errNoLeader()
				}
				c.recordCreated(r.Node, r.Job)
				return &empty{}, nil
			}),
			cluster.Unary("Request", func(context.Context, *empty) (*empty, error) {
				c.RequestBarrier()
				return &empty{}, nil
			}),
			cluster.Unary("StartJob", func(ctx context.Context, r *jobRequest) (*jobResponse, error) {
				epoch, err := c.startJob(ctx, r.Change)
				return &jobResponse{Epoch: epoch}, err
			}),
			cluster.Unary("Change", func(ctx context.Context, r *jobRequest) (*jobResponse, error) {
				epoch, err := c.change(ctx, r.Change, r.Step)
				return &jobResponse{Epoch: epoch}, err
			}),
		}, nil),
	}
}

// callNode calls method on node with req and returns its response (the
// zero one on failure, the error naming the node).
func callNode[R any](ctx context.Context, m *meta.Meta, client *cluster.Client, node, method string, req any) (R, error) {
	var zero R
	addr, err := m.NodeAddr(node)
	if err != nil {
		return zero, err
	}
	resp, err := cluster.Call[R](ctx, client, addr, method, req)
	if err != nil {
		return zero, fmt.Errorf("node %s: %w", node, err)
	}
	return *resp, nil
}

// localConn is this node's worker as the controller calls it.
type localConn struct{ w *Worker }

func (l localConn) Apply(ctx context.Context, f meta.Fence, tick dataflow.Tick, ch *Change) error {
	return l.w.Apply(ctx, f, tick, ch)
}

func (l localConn) Reset(_ context.Context, f meta.Fence, committed, prev uint64, restore bool) (uint64, error) {
	return l.w.Reset(f, committed, prev, restore)
}

func (l localConn) Committed(_ context.Context, f meta.Fence, epoch, index uint64) error {
	return l.w.Committed(f, epoch, index)
}

// remoteWorker is another node's worker.
type remoteWorker struct {
	c    *Controller
	node string
}

func (r *remoteWorker) Apply(ctx context.Context, f meta.Fence, tick dataflow.Tick, ch *Change) error {
	return r.call(ctx, methodApply, &applyRequest{Fence: f, Tick: tick, Change: ch})
}

func (r *remoteWorker) Reset(ctx context.Context, f meta.Fence, committed, prev uint64, restore bool) (uint64, error) {
	addr, err := r.c.meta.NodeAddr(r.node)
	if err != nil {
		return 0, err
	}
	resp, err := cluster.Call[resetResponse](ctx, r.c.client, addr, methodReset, &resetRequest{Fence: f, Committed: committed, Prev: prev, Restore: restore, Index: r.c.meta.AppliedIndex()})
	if err != nil {
		return 0, err
	}
	return resp.Last, nil
}

func (r *remoteWorker) Committed(ctx context.Context, f meta.Fence, epoch, index uint64) error {
	return r.call(ctx, methodCommitted, &committedRequest{Fence: f, Epoch: epoch, Index: index})
}

func (r *remoteWorker) call(ctx context.Context, method string, req any) error {
	addr, err := r.c.meta.NodeAddr(r.node)
	if err != nil {
		return err
	}
	_, err = cluster.Call[empty](ctx, r.c.client, addr, method, req)
	return err
}
