package dataflow

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// SinkWriter delivers the committed changes of a sink's log to another
// system. Each actor of a sink's job has its own, over the vnodes it owns;
// vnodes move between actors at a rescale, so what a target has received
// is recorded per vnode, in the target itself (exactly-once).
type SinkWriter interface {
	// Write delivers the changes of blocks (of vnodes, ordered by epoch)
	// in one transaction of the target, skipping a block whose epoch the
	// target records as delivered for its vnode, and records upto as
	// delivered for each of vnodes.
	Write(ctx context.Context, vnodes []uint16, upto uint64, blocks []ChangeBlock) error
	// Close releases the writer's connections.
	Close()
}

// Bounds of a delivery's retries: the wait doubles from the first to the
// last after each failure.
const (
	firstRetry = 100 * time.Millisecond
	lastRetry  = 10 * time.Second
)

// delivery follows a sink log's committed epochs on the vnodes of one
// actor and hands their changes to the sink's writer, outside the actor's
// goroutine: a slow or unreachable target holds back neither barriers
// nor the actor, only the log's trimming.
type delivery struct {
	w      SinkWriter
	store  *Store
	table  uint32
	owned  *Bitmap
	vnodes []uint16
	wait   func(ctx context.Context, epoch uint64) error
	// staged is the newest epoch whose changes the actor staged, kicked
	// signals a new one; delivered is the newest epoch the target holds
	// (as far as these vnodes go).
	staged    atomic.Uint64
	kicked    chan struct{}
	delivered atomic.Uint64
	cancel    context.CancelFunc
	done      chan struct{}
}

// startDelivery starts delivering the log of table on owned's vnodes
// with w.
func startDelivery(env *Env, table uint32, w SinkWriter) *delivery {
	d := &delivery{w: w, store: env.Store, table: table, owned: env.VNodes, wait: env.WaitCommitted,
		kicked: make(chan struct{}, 1), done: make(chan struct{})}
	env.VNodes.Each(func(v int) { d.vnodes = append(d.vnodes, uint16(v)) })
	ctx, cancel := context.WithCancel(env.Ctx)
	d.cancel = cancel
	go d.run(ctx)
	return d
}

// stage tells the delivery that epoch's changes are staged.
func (d *delivery) stage(epoch uint64) {
	d.staged.Store(epoch)
	select {
	case d.kicked <- struct{}{}:
	default:
	}
}

// run delivers each staged epoch once it is committed, until ctx ends.
func (d *delivery) run(ctx context.Context) {
	defer close(d.done)
	var after uint64
	retry := firstRetry
	for {
		upto := d.staged.Load()
		if upto <= after {
			select {
			case <-d.kicked:
				continue
			case <-ctx.Done():
				return
			}
		}
		err := d.wait(ctx, upto)
		if err == nil {
			err = d.deliver(ctx, after, upto)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			slog.Warn("sink delivery failed; retrying", "log_table", d.table, "epoch", upto, "retry_in", retry.String(), "err", err)
			select {
			case <-time.After(retry):
			case <-ctx.Done():
				return
			}
			retry = min(2*retry, lastRetry)
			continue
		}
		retry = firstRetry
		after = upto
		d.delivered.Store(upto)
	}
}

// deliver writes the changes of epochs (after, upto], committed.
func (d *delivery) deliver(ctx context.Context, after, upto uint64) error {
	blocks, err := readChangelog(d.store.Engine(), d.table, d.owned, after, upto, upto, true)
	if err != nil || len(blocks) == 0 {
		return err
	}
	return d.w.Write(ctx, d.vnodes, upto, blocks)
}

// close stops the delivery and its writer.
func (d *delivery) close() {
	d.cancel()
	<-d.done
	d.w.Close()
}
