package dataflow

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/streamdb/streamdb/types"
)

// Transport carries the queues between actors on different nodes
// (DESIGN.md §9): one ordered stream of frames per queue, flow-controlled
// in bytes so that a barrier waits behind a bounded amount of data.
// Actors on one node keep in-process queues.
type Transport interface {
	// Open opens a stream of frames to the queue named key on node.
	Open(ctx context.Context, node, key string) (FrameSender, error)
	// Listen makes deliver the receiver of the frames sent to the queue
	// named key; the stream ends when deliver returns ErrLastFrame or an
	// error. cancel forgets the queue.
	Listen(key string, deliver func(ctx context.Context, frame []byte) error) (cancel func())
}

// FrameSender sends the frames of one stream in order. Send blocks while
// the receiver is behind; it takes frame, which the caller must not touch
// again (the transport may still hold it after Send returns).
type FrameSender interface {
	Send(frame []byte) error
	// Close ends the stream after the frames sent.
	Close() error
}

// ErrLastFrame is what a delivery function returns after the queue's
// last message: the stream ends.
var ErrLastFrame = errors.New("dataflow: last frame of the queue")

// actorRef names an actor alike on every node: its job, its fragment (-1:
// a table's DML fragment), its slot, and the epoch of the barrier it
// started with (an actor that replaces another at the same slot is
// another actor).
type actorRef struct {
	job            uint32
	fragment, slot int
	born           uint64
}

// queueKey names the queue from actor from to actor to on an input, in
// the recovery gen.
func queueKey(gen string, from, to actorRef, input int) string {
	return fmt.Sprintf("%s:%d/%d/%d/%d>%d/%d/%d/%d#%d", gen, from.job, from.fragment, from.slot, from.born,
		to.job, to.fragment, to.slot, to.born, input)
}

// remoteQueue is one end, on this node, of a queue between nodes: its
// last epoch, once set, is the epoch of the barrier after which the queue
// ends (its producer or consumer goes at that barrier).
type remoteQueue struct {
	last atomic.Uint64
}

// ended reports whether the barrier of epoch is the queue's last message.
func (q *remoteQueue) ended(epoch uint64) bool {
	last := q.last.Load()
	return last != 0 && epoch >= last
}

// sendRemote forwards the messages put into ch to the queue key on node,
// until the barrier of the queue's last epoch.
func (r *Runtime) sendRemote(node, key string, rowTypes []types.T, ch <-chan Message, q *remoteQueue) {
	ctx := r.ctx
	go func() {
		err := func() error {
			s, err := r.transport.Open(ctx, node, key)
			if err != nil {
				return err
			}
			defer s.Close()
			// Each frame is a buffer of its own, which Send takes: sized
			// like the last one, it is allocated once and never copied.
			size := 0
			for {
				var m Message
				select {
				case m = <-ch:
				case <-ctx.Done():
					return nil
				}
				buf, err := AppendMessage(make([]byte, 0, size), m)
				if err != nil {
					return err
				}
				size = len(buf)
				if err := s.Send(buf); err != nil {
					return err
				}
				if b, ok := m.(*Barrier); ok && q.ended(b.Epoch) {
					return nil
				}
			}
		}()
		if err != nil && ctx.Err() == nil {
			r.log.Error("sending to another node failed; streaming stops until recovery", "node", node, "queue", key, "err", err)
			r.mgr.Fail(err)
		}
	}()
}

// receiveRemote delivers the frames of the queue key into ch: barriers
// once this node has injected their epoch, with this node's part of the
// barrier's mutation, up to the queue's last epoch.
func (r *Runtime) receiveRemote(key string, rowTypes []types.T, ch chan<- Message, q *remoteQueue) {
	var cancel func()
	cancel = r.transport.Listen(key, func(ctx context.Context, frame []byte) error {
		m, err := DecodeMessage(frame, rowTypes)
		if err != nil {
			return err
		}
		b, isBarrier := m.(*Barrier)
		if isBarrier {
			if err := r.mgr.WaitInjected(ctx, b.Epoch); err != nil {
				return err
			}
			b.Mutation = r.mutationAt(b.Epoch)
		}
		if err := send(ctx, ch, m); err != nil {
			return err
		}
		if isBarrier && q.ended(b.Epoch) {
			cancel()
			return ErrLastFrame
		}
		return nil
	})
	r.listens = append(r.listens, cancel)
}

// local reports whether actor a runs on this node.
func (r *Runtime) local(a *actor) bool { return a.node == "" || a.node == r.self }

// mutationAt returns the mutation this node injected with the barrier of
// epoch (nil: none).
func (r *Runtime) mutationAt(epoch uint64) Mutation {
	r.mutMu.Lock()
	defer r.mutMu.Unlock()
	return r.mutations[epoch]
}

// recordMutation keeps the mutation of the barrier of epoch for barriers
// of that epoch that arrive from other nodes, and forgets those of
// committed epochs.
func (r *Runtime) recordMutation(epoch uint64, m Mutation) {
	r.mutMu.Lock()
	defer r.mutMu.Unlock()
	committed := r.mgr.Committed()
	for e := range r.mutations {
		if e <= committed {
			delete(r.mutations, e)
		}
	}
	if m != nil {
		r.mutations[epoch] = m
	}
}
