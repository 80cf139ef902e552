package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Flow control of queue streams: gRPC's per-stream window bounds the
// bytes in flight on each queue between nodes, so that a barrier never
// waits behind more than that (plus the queues at both ends).
const (
	streamWindow = 1 << 20
	connWindow   = 16 << 20
)

// listenTimeout bounds how long a stream waits for its queue to be
// registered on the receiving node (which learns of the queue from the
// coordinator's barrier, maybe after the sender).
const listenTimeout = 30 * time.Second

// Frame is a message of bytes sent as they are (no JSON): the frames of
// queue streams, of remote reads and of state in transit. Receiving into
// a Frame reuses its buffer if it has room.
type Frame struct{ B []byte }

// queueStream is the stream of a queue's frames: its first message is the
// queue's key.
var queueStream = grpc.StreamDesc{StreamName: "Queue", ClientStreams: true}

const queueMethod = "/streamdb.queues/Queue"

// Queues carries named streams of byte frames between nodes, one gRPC
// stream each, in order: the queues between actors on different nodes.
type Queues struct {
	client *Client
	// addr resolves a node id to its cluster address.
	addr func(node string) (string, error)

	mu       sync.Mutex
	cond     *sync.Cond
	handlers map[string]Deliver
}

// Deliver receives the frames of one queue; more=false ends the stream.
type Deliver func(ctx context.Context, frame []byte) (more bool, err error)

// NewQueues returns the queue service of a node: it opens streams through
// client to the nodes addr resolves.
func NewQueues(client *Client, addr func(node string) (string, error)) *Queues {
	q := &Queues{client: client, addr: addr, handlers: map[string]Deliver{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Service returns the gRPC service receiving queue streams.
func (q *Queues) Service() *grpc.ServiceDesc {
	s := queueStream
	s.Handler = func(_ any, ss grpc.ServerStream) error { return q.serve(ss) }
	return Service("streamdb.queues", nil, []grpc.StreamDesc{s})
}

// Listen registers deliver for the queue named key, until cancel.
func (q *Queues) Listen(key string, deliver Deliver) (cancel func()) {
	q.mu.Lock()
	q.handlers[key] = deliver
	q.cond.Broadcast()
	q.mu.Unlock()
	return func() {
		q.mu.Lock()
		delete(q.handlers, key)
		q.mu.Unlock()
	}
}

// handler waits until key is registered.
func (q *Queues) handler(ctx context.Context, key string) (Deliver, error) {
	ctx, cancel := context.WithTimeout(ctx, listenTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	defer stop()
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if d, ok := q.handlers[key]; ok {
			return d, nil
		}
		if ctx.Err() != nil {
			return nil, status.Errorf(codes.NotFound, "no queue %s on this node after %s", key, listenTimeout)
		}
		q.cond.Wait()
	}
}

func (q *Queues) serve(ss grpc.ServerStream) error {
	ctx := ss.Context()
	var f Frame
	if err := ss.RecvMsg(&f); err != nil {
		return err
	}
	deliver, err := q.handler(ctx, string(f.B))
	if err != nil {
		return err
	}
	for {
		if err := ss.RecvMsg(&f); err != nil {
			if err == io.EOF {
				return ss.SendMsg(&Frame{})
			}
			return err
		}
		more, err := deliver(ctx, f.B)
		if err != nil {
			return err
		}
		if !more {
			return ss.SendMsg(&Frame{})
		}
	}
}

// Open opens a stream to the queue named key on node.
func (q *Queues) Open(ctx context.Context, node, key string) (*Sender, error) {
	addr, err := q.addr(node)
	if err != nil {
		return nil, err
	}
	cc, err := q.client.Conn(addr)
	if err != nil {
		return nil, err
	}
	s, err := cc.NewStream(ctx, &queueStream, queueMethod)
	if err != nil {
		return nil, fmt.Errorf("cluster: open queue %s on %s: %w", key, node, err)
	}
	if err := s.SendMsg(&Frame{B: []byte(key)}); err != nil {
		return nil, fmt.Errorf("cluster: open queue %s on %s: %w", key, node, err)
	}
	return &Sender{s: s}, nil
}

// Sender sends the frames of one queue stream.
type Sender struct {
	s grpc.ClientStream
	f Frame
}

// Send sends one frame; it blocks while the stream's window is full. It
// takes b: gRPC may still hold the encoded message after SendMsg returns,
// so the caller must not touch b again.
func (s *Sender) Send(b []byte) error {
	s.f.B = b
	err := s.s.SendMsg(&s.f)
	if err == io.EOF {
		// The receiver ended the stream: its status says why.
		var f Frame
		if rerr := s.s.RecvMsg(&f); rerr != nil && rerr != io.EOF {
			return rerr
		}
		return errors.New("cluster: the receiver ended the queue stream")
	}
	return err
}

// Close ends the stream and waits for the receiver to have taken every
// frame.
func (s *Sender) Close() error {
	if err := s.s.CloseSend(); err != nil {
		return err
	}
	var f Frame
	if err := s.s.RecvMsg(&f); err != nil && err != io.EOF {
		return err
	}
	return nil
}
