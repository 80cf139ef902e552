// Package control is streamdb's control plane: it decides the epochs of
// the cluster (DESIGN.md §4, §9). The controller picks each barrier's
// epoch and time, has every node inject it, together with the graph
// change it carries (a job started or stopped, a rescale step), and
// commits an epoch through meta's Raft log once every node has sealed it.
// One barrier is decided at a time, so graph changes and checkpoints are
// totally ordered.
package control

import (
	"context"
	"sync"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
)

// Controller decides a node's epochs. Every change of the streaming graph
// goes through it, so that it happens at one barrier.
type Controller struct {
	rt   *dataflow.Runtime
	mgr  *dataflow.BarrierManager
	meta *meta.Meta

	// mu orders barriers: the epoch counter and the last barrier time.
	mu       sync.Mutex
	epoch    uint64
	lastTime int64
	// records are what each epoch's commit records besides the epoch: a
	// rescale step its barrier switched.
	recMu   sync.Mutex
	records map[uint64]*meta.RescaleStep

	kick     chan struct{}
	interval chan time.Duration
	failed   func(error)
}

// New returns the controller of a node whose runtime rt and barrier
// manager mgr run its actors, starting after meta's committed epoch.
// failed is told when a commit fails (the node must recover).
func New(m *meta.Meta, rt *dataflow.Runtime, mgr *dataflow.BarrierManager, failed func(error)) *Controller {
	return &Controller{rt: rt, mgr: mgr, meta: m, epoch: m.CommittedEpoch(), records: map[uint64]*meta.RescaleStep{},
		kick: make(chan struct{}, 1), interval: make(chan time.Duration), failed: failed}
}

// next returns the next barrier's tick: a new epoch, and a time that
// never goes back.
func (c *Controller) next() dataflow.Tick {
	c.epoch++
	c.lastTime = max(time.Now().UnixMicro(), c.lastTime+1)
	return dataflow.Tick{Epoch: c.epoch, Time: c.lastTime}
}

// barrier injects one barrier made by inject with the next tick, with
// record to commit with it, and returns the tick.
func (c *Controller) barrier(record *meta.RescaleStep, inject func(dataflow.Tick) error) (dataflow.Tick, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tick := c.next()
	if record != nil {
		c.recMu.Lock()
		c.records[tick.Epoch] = record
		c.recMu.Unlock()
	}
	return tick, inject(tick)
}

// Sealed is the barrier manager's report that an epoch is sealed on this
// node: with every node sealed, the epoch is committed in Raft, with the
// record its barrier made.
func (c *Controller) Sealed(epoch uint64) {
	c.recMu.Lock()
	rec := c.records[epoch]
	delete(c.records, epoch)
	c.recMu.Unlock()
	if err := c.meta.CommitEpoch(context.Background(), epoch, rec); err != nil {
		c.failed(err)
	}
}

// Run injects a checkpoint barrier every interval, and at once when asked
// (RequestBarrier), until ctx ends.
func (c *Controller) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-c.interval:
			t.Reset(d)
			continue
		case <-t.C:
		case <-c.kick:
		}
		if _, err := c.Barrier(ctx); err != nil {
			if ctx.Err() == nil {
				c.failed(err)
			}
			return
		}
	}
}

// SetInterval changes the time between periodic barriers.
func (c *Controller) SetInterval(ctx context.Context, d time.Duration) {
	select {
	case c.interval <- d:
	case <-ctx.Done():
	}
}

// RequestBarrier asks for a barrier as soon as possible (group commit:
// concurrent requests share one barrier).
func (c *Controller) RequestBarrier() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// Barrier injects a plain checkpoint barrier now and returns its epoch.
func (c *Controller) Barrier(ctx context.Context) (uint64, error) {
	tick, err := c.barrier(nil, func(t dataflow.Tick) error { return c.rt.Inject(ctx, t) })
	return tick.Epoch, err
}

// StartJob starts a job at the next barrier (see dataflow.Runtime.StartJob)
// and returns that barrier's epoch.
func (c *Controller) StartJob(ctx context.Context, id uint32, g *dataflow.GraphSpec, owner []int, nodes dataflow.Placement, withBackfill bool) (<-chan struct{}, uint64, error) {
	var created <-chan struct{}
	tick, err := c.barrier(nil, func(t dataflow.Tick) error {
		var err error
		created, err = c.rt.StartJob(ctx, t, id, g, owner, nodes, withBackfill)
		return err
	})
	return created, tick.Epoch, err
}

// StopJob stops a job at the next barrier and waits until its epoch is
// committed.
func (c *Controller) StopJob(ctx context.Context, id uint32) error {
	tick, err := c.barrier(nil, func(t dataflow.Tick) error { return c.rt.StopJob(ctx, t, id) })
	if err != nil {
		return err
	}
	return c.mgr.WaitCommitted(ctx, tick.Epoch)
}

// Reassign switches a job's vnodes to owner at the next barrier, whose
// commit records step, and returns once that epoch is committed.
func (c *Controller) Reassign(ctx context.Context, id uint32, owner []int, nodes dataflow.Placement, o dataflow.ReassignOptions, step *meta.RescaleStep) (dataflow.ReassignResult, error) {
	var res dataflow.ReassignResult
	tick, err := c.barrier(step, func(t dataflow.Tick) error {
		var err error
		res, err = c.rt.Reassign(ctx, t, id, owner, nodes, o)
		return err
	})
	if err != nil {
		return res, err
	}
	return res, c.mgr.WaitCommitted(ctx, tick.Epoch)
}

// Pause stops the world: sources and table writes are held from the next
// barrier on, which it waits to see committed.
func (c *Controller) Pause(ctx context.Context) error {
	tick, err := c.barrier(nil, func(t dataflow.Tick) error { return c.rt.Pause(ctx, t) })
	if err != nil {
		return err
	}
	return c.mgr.WaitCommitted(ctx, tick.Epoch)
}

// Resume lets sources and writes go on from the next barrier: after a
// Pause, and after every job restarted from committed state.
func (c *Controller) Resume(ctx context.Context) error {
	_, err := c.barrier(nil, func(t dataflow.Tick) error { return c.rt.Resume(ctx, t) })
	return err
}
