package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
)

// Relocation moves a job's first actor slot to another node (DESIGN.md
// §9): slot 0 runs the job's singleton fragments, or a table's writer,
// whose state is whole tables rather than vnodes, so it cannot move at a
// barrier as vnodes do. The new node copies what it will hold while the
// job runs; then every write and source is held at a checkpoint, the new
// node catches up on what changed since, the catalog records the new
// placement with the next checkpoint, and the cluster recovers with it:
// every job restarts from that checkpoint as the catalog now says, and
// the old node drops its copy as its jobs restart (Worker.dropStray). The
// pause lasts the catch-up and the recovery.

// errRelocated ends the generation after a relocation's checkpoint: the
// cluster recovers with the new placement.
var errRelocated = errors.New("control: a job's first actor moved to another node; the jobs restart where the catalog places them")

// relocateRequest asks the node that takes slot 0 of Job over from node
// From to copy what it holds of the job under placement New and did not
// under Old (vnode owners Owner), as of epoch To: all of it when Since is
// 0, else what changed after Since.
type relocateRequest struct {
	Job   uint32   `json:"job"`
	From  string   `json:"from"`
	Owner []int    `json:"owner"`
	Old   []string `json:"old"`
	New   []string `json:"new"`
	Since uint64   `json:"since,omitempty"`
	To    uint64   `json:"to"`
}

// relocate moves slot 0 of each job of tables from node from to the node
// target picks for it while the jobs run, holding writes only for the
// catch-up and one recovery (see above); it returns the bytes copied.
func (s *Streaming) relocate(ctx context.Context, tables []*meta.Table, from string, target func() string) (_ int64, err error) {
	defer s.LockJobs()()
	cat := s.meta.Catalog()
	var reqs []*relocateRequest
	var total int64
	start := time.Now()
	// Each job is claimed as a rescale is (no other node moves it
	// meanwhile); the relocation's steps end the claims, or a failure.
	var claimed []*meta.Table
	defer func() {
		if err != nil {
			for _, t := range claimed {
				s.endRescale(t)
			}
		}
	}()
	for _, t := range tables {
		old := JobPlacement(cat, t)
		if old[0] != from {
			continue
		}
		req := &relocateRequest{Job: t.ID, From: from, Owner: JobAssignment(t), Old: old, New: slices.Clone(old), To: s.ctrl.Worker().mgr.Committed()}
		req.New[0] = target()
		claim := &meta.Rescale{Parallelism: t.Parallelism, Target: req.Owner, Strategy: strategyRelocate, From: meta.Slots(req.Owner), Placement: req.New, Runner: s.meta.NodeID()}
		if err := s.meta.BeginRescale(ctx, t.ID, claim); err != nil {
			return total, err
		}
		claimed = append(claimed, t)
		n, err := s.takeOn(ctx, req.New[0], req)
		total += n
		if err != nil {
			return total, fmt.Errorf("copying the state of %s %q to node %s: %w", t.Kind, t.Name, req.New[0], err)
		}
		reqs = append(reqs, req)
	}
	if len(reqs) == 0 {
		return 0, nil
	}
	epoch, err := s.ctrl.Pause(ctx)
	if err == nil {
		err = s.WaitCommitted(ctx, epoch)
	}
	paused := time.Now()
	var steps []*meta.RescaleStep
	for _, req := range reqs {
		if err != nil {
			break
		}
		req.Since, req.To = req.To, epoch
		var n int64
		n, err = s.takeOn(ctx, req.New[0], req)
		total += n
		steps = append(steps, &meta.RescaleStep{Table: req.Job, Assignment: req.Owner, Placement: req.New, Done: true})
	}
	fence := s.ctrl.Worker().currentFence()
	if err == nil {
		_, err = s.ctrl.Relocate(ctx, steps)
	}
	if err != nil {
		// What the new nodes copied is stray: reads do not see it (slot
		// 0's node holds a job's whole tables), and their next restart
		// drops it.
		if _, rerr := s.ctrl.Resume(s.ctx); rerr != nil {
			s.opts.Logger.Warn("control: resuming after a failed move failed; the next recovery resumes", "err", rerr)
		}
		return total, fmt.Errorf("moving the first actors of node %s's jobs: %w", from, err)
	}
	err = s.waitRecovered(ctx, fence, 0, 0)
	s.opts.Logger.Info("control: moved jobs' first actors", "from", from, "jobs", len(reqs), "bytes", total,
		"took", time.Since(start), "paused", time.Since(paused), "err", err)
	return total, err
}

// takeOn has node take what req names (Worker.take).
func (s *Streaming) takeOn(ctx context.Context, node string, req *relocateRequest) (int64, error) {
	if node == s.meta.NodeID() {
		return s.ctrl.Worker().take(ctx, req)
	}
	resp, err := callNode[bytesResponse](ctx, s.meta, s.ctrl.client, node, methodTake, req)
	return resp.Bytes, err
}

// take copies into this node's store what req names from node req.From
// and returns the bytes copied; a first copy (Since 0) replaces what the
// store held of those ranges.
func (w *Worker) take(ctx context.Context, req *relocateRequest) (int64, error) {
	t := relationOf(w.meta.Catalog(), req.Job)
	if t == nil {
		return 0, pgerror.New(pgerror.CodeUndefinedTable, "relation with id %d does not exist", req.Job)
	}
	holdings, err := w.holdings(t, req.Owner)
	if err != nil {
		return 0, err
	}
	ranges := holdingRanges(gained(holdings(req.New), holdings(req.Old)))
	if len(ranges) == 0 {
		return 0, nil
	}
	if req.Since == 0 {
		if err := w.storage.ExciseVNodes(ctx, ranges...); err != nil {
			return 0, err
		}
	}
	return w.transfer.Pull(ctx, req.From, &exportRequest{Ranges: ranges, From: req.Since, To: req.To})
}

// holdings returns what this node holds of t's job, its vnodes owned as
// owner says, as a function of its slots' placement (nil: every slot
// here).
func (w *Worker) holdings(t *meta.Table, owner []int) (func(nodes []string) []dataflow.Holding, error) {
	if fedByDML(t) {
		ref, err := w.builder.TableRef(t)
		if err != nil {
			return nil, err
		}
		return func(nodes []string) []dataflow.Holding { return w.tableHoldings(ref, nodes) }, nil
	}
	g, err := w.graph(t)
	if err != nil {
		return nil, err
	}
	return func(nodes []string) []dataflow.Holding { return g.Holdings(owner, nodes, w.node) }, nil
}

// tableHoldings returns what this node holds of a table fed by DML whose
// writer runs as nodes says: the whole table where the writer runs.
func (w *Worker) tableHoldings(ref *dataflow.TableRef, nodes []string) []dataflow.Holding {
	if n := placementNode(nodes, 0); n != "" && n != w.node {
		return nil
	}
	var out []dataflow.Holding
	for _, id := range ref.StateTables() {
		out = append(out, dataflow.Holding{Table: id})
	}
	return out
}

// dropStray removes the whole tables of all (what this node would hold
// of a job with every slot here) that it does not hold as mine says: a
// copy left behind where the job's first actor ran before it moved, or
// one a move left unfinished. An empty table costs a seek.
func (w *Worker) dropStray(ctx context.Context, all, mine []dataflow.Holding) error {
	stray := slices.DeleteFunc(slices.Clone(all), func(h dataflow.Holding) bool {
		return h.VNodes != nil || slices.ContainsFunc(mine, func(m dataflow.Holding) bool { return m.Table == h.Table })
	})
	return w.storage.ExciseVNodes(ctx, holdingRanges(stray)...)
}

// gained returns what now holds beyond before: whole tables, and the
// vnodes of partitioned ones.
func gained(now, before []dataflow.Holding) []dataflow.Holding {
	var out []dataflow.Holding
	for _, h := range now {
		i := slices.IndexFunc(before, func(b dataflow.Holding) bool { return b.Table == h.Table })
		switch {
		case i < 0:
			out = append(out, h)
		case before[i].VNodes == nil:
		default:
			vs := slices.DeleteFunc(slices.Clone(h.VNodes), func(v int) bool { return slices.Contains(before[i].VNodes, v) })
			if len(vs) > 0 {
				out = append(out, dataflow.Holding{Table: h.Table, VNodes: vs})
			}
		}
	}
	return out
}

// holdingRanges returns the key ranges of holdings: a whole table as one
// range of every vnode.
func holdingRanges(holdings []dataflow.Holding) []storage.VNodeRange {
	var out []storage.VNodeRange
	for _, h := range holdings {
		if h.VNodes == nil {
			out = append(out, storage.VNodeRange{Table: h.Table, Lo: 0, Hi: rowkey.VNodes})
			continue
		}
		out = append(out, vnodeRanges([]uint32{h.Table}, slices.Sorted(slices.Values(h.VNodes)))...)
	}
	return out
}

// Relocate records each step's placement (jobs' first actors moved) with
// a checkpoint, then recovers the cluster, which restarts every job as
// the catalog says: a relocation's last step.
func (c *Controller) Relocate(ctx context.Context, steps []*meta.RescaleStep) (uint64, error) {
	ch := &Change{Kind: changeRelocate, Relocate: steps}
	return c.forward(ctx, methodChange, &jobRequest{Change: ch}, func() (uint64, error) { return c.change(ctx, ch, nil) })
}

// relocate, on the leader, commits each step with a plain barrier and
// fails the generation once the last has committed.
func (c *Controller) relocate(ctx context.Context, steps []*meta.RescaleStep) (uint64, error) {
	gen := c.gen.Load()
	var tick dataflow.Tick
	for _, step := range steps {
		var err error
		if tick, err = c.barrier(ctx, step, &Change{}); err != nil {
			return 0, err
		}
	}
	if err := c.local.mgr.WaitCommitted(ctx, tick.Epoch); err != nil {
		return 0, err
	}
	if gen != nil {
		gen.fail(errRelocated)
	}
	return tick.Epoch, nil
}
