package control

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The graph changes sessions ask for. On the leader they run at once; on
// other nodes they are forwarded to the leader's controller. Each returns
// the epoch of the barrier that made the change.

// StartJob starts the job of def (a materialized view, a source or a
// table with a connector; with backfill, a new one reads its inputs'
// current contents first) with vnode owners owner and slot placement
// nodes, and returns once every node has created its part.
func (c *Controller) StartJob(ctx context.Context, def *meta.Table, owner []int, nodes []string, backfill bool) (uint64, error) {
	return c.forward(ctx, methodStartJob, &jobRequest{Change: &Change{Kind: changeStartJob, Job: def.ID, Def: def, Owner: owner, Nodes: nodes, Backfill: backfill}},
		func() (uint64, error) {
			return c.startJob(ctx, &Change{Kind: changeStartJob, Job: def.ID, Def: def, Owner: owner, Nodes: nodes, Backfill: backfill})
		})
}

// StartTable starts the job of a table fed by DML on node.
func (c *Controller) StartTable(ctx context.Context, def *meta.Table, node string) (uint64, error) {
	ch := &Change{Kind: changeStartTable, Job: def.ID, Def: def, Nodes: []string{node}}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// StopJob stops a job.
func (c *Controller) StopJob(ctx context.Context, job uint32) (uint64, error) {
	ch := &Change{Kind: changeStopJob, Job: job}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// Drop has every node delete its part of tables no job writes any more (a
// dropped relation's, after the epoch that stopped its job committed).
func (c *Controller) Drop(ctx context.Context, tables []uint32) (uint64, error) {
	ch := &Change{Kind: changeDrop, Drop: tables}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// Reassign switches a job's vnodes from owners expect to owner and its
// slots to nodes at one barrier, whose commit records step. If the job's
// owners are no longer expect (another rescale moved them), it is refused
// (55006) and nothing changes.
func (c *Controller) Reassign(ctx context.Context, job uint32, expect, owner []int, nodes []string, replace bool, cache string, step *meta.RescaleStep) (uint64, error) {
	ch := &Change{Kind: changeReassign, Job: job, Expect: expect, Owner: owner, Nodes: nodes, Replace: replace, Cache: cache}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch, Step: step}, func() (uint64, error) { return c.change(ctx, ch, step) })
}

// Pause stops the world: sources and table writes are held from the
// barrier on.
func (c *Controller) Pause(ctx context.Context) (uint64, error) {
	ch := &Change{Kind: changePause}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// Resume lets sources and writes go on from the barrier.
func (c *Controller) Resume(ctx context.Context) (uint64, error) {
	ch := &Change{Kind: changeResume}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// Barrier injects a plain barrier now and returns its epoch.
func (c *Controller) Barrier(ctx context.Context) (uint64, error) {
	ch := &Change{}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// forward runs local on the leader, else asks the leader's controller;
// while there is no leader (an election) it waits for one.
func (c *Controller) forward(ctx context.Context, method string, req *jobRequest, local func() (uint64, error)) (uint64, error) {
	for {
		if c.meta.IsLeader() {
			epoch, err := local()
			if pgerror.Code(err) == codeNoLeader && !c.meta.IsLeader() {
				continue // leadership moved meanwhile
			}
			return epoch, err
		}
		if addr := c.meta.LeaderAddr(); addr != "" {
			resp, err := cluster.Call[jobResponse](ctx, c.client, addr, method, req)
			if pgerror.Code(err) == codeNoLeader || status.Code(err) == codes.Unavailable {
				// The leader stepped down or died: ask the next.
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return 0, err
				}
				continue
			}
			if err != nil {
				return 0, err
			}
			return resp.Epoch, nil
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return 0, err
		}
	}
}

// change makes ch at the next barrier (on the leader).
func (c *Controller) change(ctx context.Context, ch *Change, step *meta.RescaleStep) (uint64, error) {
	if ch.Kind == changeRelocate {
		return c.relocate(ctx, ch.Relocate)
	}
	tick, err := c.barrier(ctx, step, ch)
	return tick.Epoch, err
}

// startJob starts a job at the next barrier and waits until every node
// has created its part (on the leader).
func (c *Controller) startJob(ctx context.Context, ch *Change) (uint64, error) {
	c.cmu.Lock()
	delete(c.createdBy, ch.Job)
	c.cmu.Unlock()
	tick, err := c.barrier(ctx, nil, ch)
	if err != nil {
		return 0, err
	}
	gen := c.gen.Load()
	if gen == nil {
		return 0, errNoLeader()
	}
	wake := func() {
		c.cmu.Lock()
		c.cond.Broadcast()
		c.cmu.Unlock()
	}
	stop := context.AfterFunc(ctx, wake)
	defer stop()
	// A failed generation (a backfill's actor failed, say) recovers from
	// the committed epoch, where the backfill is lost: the creation fails
	// with the generation's error.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-gen.failed:
			wake()
		case <-done:
		}
	}()
	c.cmu.Lock()
	defer c.cmu.Unlock()
	for len(c.createdBy[ch.Job]) < len(gen.nodes) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		select {
		case <-gen.failed:
			return 0, gen.err
		default:
		}
		c.cond.Wait()
	}
	delete(c.createdBy, ch.Job)
	return tick.Epoch, nil
}
