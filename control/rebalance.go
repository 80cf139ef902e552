package control

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
)

// Cluster settings of placement (ALTER SYSTEM SET).
const (
	// AutoRebalanceParam, when on, has the leader rebalance every job
	// whenever the cluster's nodes change (a node joins, is removed or
	// drained).
	AutoRebalanceParam = "auto_rebalance"
	// drainingParam lists the nodes being drained, comma-separated: no
	// job places actors there.
	drainingParam = "draining_nodes"
)

// Draining returns the nodes of cat being drained.
func Draining(cat *meta.Catalog) []string {
	v, _ := cat.System(drainingParam)
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// ActiveNodes returns the nodes of cat that jobs may be placed on: those
// not being drained.
func ActiveNodes(cat *meta.Catalog) []*meta.Node {
	draining := Draining(cat)
	return slices.DeleteFunc(cat.Nodes(), func(n *meta.Node) bool { return slices.Contains(draining, n.ID) })
}

// Rebalance spreads the actors of every parallel job (views, sinks,
// subscriptions, sources and tables with connectors) over the nodes that
// jobs may be placed on now (ActiveNodes), each at its parallelism, one
// job after another, each as a rescale with the strategy, step and cache
// of how (fluid by default); it returns once every job is rebalanced. A
// job already balanced does not move.
func (s *Streaming) Rebalance(ctx context.Context, how *meta.Rescale) error {
	var errs []error
	for _, t := range jobsInOrder(s.meta.Catalog()) {
		if fedByDML(t) {
			continue
		}
		if err := s.rebalanceJob(ctx, t, how); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rebalanceTries bounds the times a rebalance of one job is planned again
// after another rescale of it got in the way (the auto_rebalance of the
// leader and a DRAIN at once, say); rebalanceWait is how often it looks
// whether that one has ended, for at most rebalanceBusy.
const (
	rebalanceTries = 50
	rebalanceWait  = 200 * time.Millisecond
	rebalanceBusy  = 10 * time.Minute
)

// rebalanceJob rebalances t's job over the active nodes at its
// parallelism (a job of the default parallelism: the active nodes' cores
// now), waiting for the rescale to end; a rescale of the job by someone
// else (running, or moving its vnodes meanwhile) makes it wait for that
// one to end and plan again from where it left the job.
func (s *Streaming) rebalanceJob(ctx context.Context, t *meta.Table, how *meta.Rescale) error {
	busyUntil := time.Now().Add(rebalanceBusy)
	for try := 1; ; try++ {
		err := s.rebalanceOnce(ctx, t, how)
		var busy *RescalingError
		if try == rebalanceTries || !errors.As(err, &busy) && pgerror.Code(err) != pgerror.CodeObjectInUse {
			return err
		}
		for s.rescaling(t.ID) && time.Now().Before(busyUntil) {
			if err := sleep(ctx, rebalanceWait); err != nil {
				return err
			}
		}
		if err := sleep(ctx, rebalanceWait); err != nil {
			return err
		}
	}
}

// rescaling reports whether job is being rescaled: by this node, or as
// the catalog records by another.
func (s *Streaming) rescaling(job uint32) bool {
	s.rescaleMu.Lock()
	_, moving := s.movingLocked(job)
	s.rescaleMu.Unlock()
	if moving {
		return true
	}
	t, ok := s.meta.Catalog().TableByID(job)
	return ok && t.Rescale != nil
}

// rebalanceOnce plans and runs one rescale that rebalances t's job.
func (s *Streaming) rebalanceOnce(ctx context.Context, t *meta.Table, how *meta.Rescale) error {
	owner := s.Owners(t.ID)
	if owner == nil {
		if _, ok := s.meta.Catalog().TableByID(t.ID); !ok {
			return nil // dropped meanwhile
		}
		return pgerror.New(pgerror.CodeObjectInUse, "%s %q does not run on this node yet (the cluster is recovering)", t.Kind, t.Name).
			WithHint("Run the statement again once SHOW NODES shows every node up.")
	}
	cat := s.meta.Catalog()
	nodes := ActiveNodes(cat)
	n := meta.Slots(owner)
	if t.Parallelism == 0 {
		n = DefaultParallelism(nodes)
	}
	place := s.Placement(t)
	target, placement := PlanRescale(t.ID, place, owner, nodes, n)
	if slices.Equal(target, owner) && slices.Equal(TrimPlacement(placement, target), TrimPlacement(place, owner)) {
		return nil
	}
	plan := &meta.Rescale{Parallelism: t.Parallelism, Target: target, Placement: placement, Strategy: how.Strategy, Step: how.Step, Cache: how.Cache, From: meta.Slots(owner)}
	r, err := s.Rescale(ctx, t, plan)
	if err != nil {
		return err
	}
	select {
	case <-r.Done():
		return r.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Drain moves every job's work off node while the jobs run (ALTER SYSTEM
// DRAIN NODE): it records the node as draining, so that no placement uses
// it, rebalances every parallel job as how says, and then moves the first
// actors that run there (views' singleton fragments, tables' writers, a
// job's slot 0) to the least loaded nodes, all at one pause (relocate).
func (s *Streaming) Drain(ctx context.Context, node string, how *meta.Rescale) error {
	cat := s.meta.Catalog()
	if _, ok := cat.Node(node); !ok {
		return pgerror.New(pgerror.CodeUndefinedObject, "node %q does not exist", node).WithHint("SHOW NODES lists the cluster's nodes.")
	}
	if len(ActiveNodes(cat)) <= 1 && !slices.Contains(Draining(cat), node) {
		return pgerror.New(pgerror.CodeObjectInUse, "node %q is the last node jobs can run on", node).
			WithHint("Add a node (streamdb start --join) before draining this one.")
	}
	if !slices.Contains(Draining(cat), node) {
		if err := s.meta.SetSystem(ctx, drainingParam, strings.Join(append(Draining(cat), node), ",")); err != nil {
			return err
		}
	}
	if err := s.Rebalance(ctx, how); err != nil {
		return err
	}
	cat = s.meta.Catalog()
	// The least loaded active node for each first actor, by actors per
	// core, counting those placed before it.
	actors := map[string]int{}
	for n, l := range NodeLoads(cat) {
		actors[n] = l.Actors
	}
	active := ActiveNodes(cat)
	target := func() string { return meta.PickLeastLoaded(active, actors) }
	var homed []*meta.Table
	for _, t := range jobsInOrder(cat) {
		if JobPlacement(cat, t)[0] == node {
			homed = append(homed, t)
		}
	}
	_, err := s.relocate(ctx, homed, node, target)
	return err
}

// wholeAtSlotZero reports whether the node of t's job's first actor slot
// holds all of its state that no vnode ownership places (a view's
// singleton state, a table's rows written by DML): not a source's, or a
// connector's table's, whose state is all by vnode, on every node of the
// job.
func wholeAtSlotZero(t *meta.Table) bool {
	return t.Kind.Planned() || fedByDML(t)
}

// fedByDML reports whether t is a table written by DML through its
// writer (slot 0), not by a connector's splits.
func fedByDML(t *meta.Table) bool { return t.Kind == meta.KindTable && t.Connector() == "" }

// undrain forgets that node was being drained (it was removed).
func (s *Streaming) undrain(ctx context.Context, node string) error {
	d := Draining(s.meta.Catalog())
	if !slices.Contains(d, node) {
		return nil
	}
	d = slices.DeleteFunc(slices.Clone(d), func(n string) bool { return n == node })
	return s.meta.SetSystem(ctx, drainingParam, strings.Join(d, ","))
}

// RemoveNode removes a node that runs nothing of the cluster's jobs
// (ALTER SYSTEM REMOVE NODE): one never used, or drained.
func (s *Streaming) RemoveNode(ctx context.Context, id string) error {
	if load := NodeLoads(s.meta.Catalog())[id]; load.Actors > 0 {
		return pgerror.New(pgerror.CodeObjectInUse, "node %q runs %d actors of the cluster's jobs", id, load.Actors).
			WithHint("Move its work to other nodes first: ALTER SYSTEM DRAIN NODE '%s'.", id)
	}
	if err := s.meta.RemoveNode(ctx, id); err != nil {
		return err
	}
	return s.undrain(ctx, id)
}

// whileLeading returns a context of ctx that ends once this node no
// longer leads (a rebalance of the former leader stops between views: the
// new leader's goes on), or stop is called.
func (s *Streaming) whileLeading(ctx context.Context) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		defer cancel()
		for s.meta.IsLeader() && sleep(ctx, 100*time.Millisecond) == nil {
		}
	}()
	return ctx, cancel
}

// autoRebalanceEvery is how often the leader looks whether the cluster's
// nodes changed, with auto_rebalance on.
const autoRebalanceEvery = time.Second

// autoRebalance rebalances every view, on the leader with auto_rebalance
// on, whenever the members differ from those it last balanced for (a
// node joined or was removed; at first: whenever it starts leading),
// until ctx ends.
func (s *Streaming) autoRebalance(ctx context.Context) {
	var balanced []string
	for sleep(ctx, autoRebalanceEvery) == nil {
		cat := s.meta.Catalog()
		if v, _ := cat.System(AutoRebalanceParam); v != "on" || !s.meta.IsLeader() {
			balanced = nil
			continue
		}
		select {
		case <-s.Ready():
		default:
			continue // the cluster recovers: its jobs are not running yet
		}
		// The members, draining or not: a drain rebalances by itself, and
		// two rebalances of one job from two nodes must not run at once.
		nodes := memberIDs(cat)
		if slices.Equal(nodes, balanced) {
			continue
		}
		s.opts.Logger.Info("control: the cluster's nodes changed; rebalancing every view", "nodes", nodes)
		lctx, stop := s.whileLeading(ctx)
		err := s.Rebalance(lctx, &meta.Rescale{Strategy: StrategyFluid})
		stop()
		if err != nil {
			// Tried again at the next look (a job was rescaling, say).
			s.opts.Logger.Warn("control: rebalancing failed; trying again", "err", err)
			continue
		}
		balanced = nodes
	}
}
