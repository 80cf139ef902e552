package control

import (
	"context"
	"errors"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
)

// transport carries the runtime's queues between nodes over the cluster's
// queue streams.
type transport struct{ q *cluster.Queues }

var _ dataflow.Transport = transport{}

// Open implements dataflow.Transport.
func (t transport) Open(ctx context.Context, node, key string) (dataflow.FrameSender, error) {
	return t.q.Open(ctx, node, key)
}

// Listen implements dataflow.Transport.
func (t transport) Listen(key string, deliver func(context.Context, []byte) error) func() {
	return t.q.Listen(key, func(ctx context.Context, frame []byte) (bool, error) {
		err := deliver(ctx, frame)
		if errors.Is(err, dataflow.ErrLastFrame) {
			return false, nil
		}
		return err == nil, err
	})
}
