package control

import (
	"cmp"
	"slices"
	"time"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/rowkey"
)

// Rescale strategies (meta.Rescale.Strategy): how a rescale moves a job's
// vnodes.
const (
	// StrategyFluid moves the vnodes in steps of at most the plan's step
	// vnodes, one step per barrier, while the job runs.
	StrategyFluid = "fluid"
	// StrategyAllAtOnce moves every vnode at one barrier while the job
	// runs.
	StrategyAllAtOnce = "all_at_once"
	// StrategyRestart is the stop-and-restart baseline: sources and
	// writes are held at a checkpoint, every actor is replaced and
	// restores its state (by default: CacheEager), then the world
	// resumes.
	StrategyRestart = "restart"
	// strategyRelocate records a relocation (relocate) in the catalog:
	// not a rescale, but it too moves the job, so it claims it.
	strategyRelocate = "relocate"
)

// Cache modes (meta.Rescale.Cache): how a moved vnode's new owner gets its
// cached state.
const (
	// CacheHandover hands the old owner's cached groups over.
	CacheHandover = "handover"
	// CacheEager loads the vnode's state from storage at the switch.
	CacheEager = "eager"
	// CacheLazy reads the vnode's state on first use.
	CacheLazy = "lazy"
)

// Fluid steps without a given size adapt it so that each switch holds the
// moved vnodes' rows for about stepPause beyond what any switch costs
// (its barrier's and the next epoch's commits, which every epoch pays):
// the first moves firstStep vnodes, the next ones scale by how long the
// last one held them, at most doubling.
const (
	stepPause = 25 * time.Millisecond
	firstStep = 4
)

// rescaleSteps decides the switches of a rescale, without I/O or clocks:
// which vnodes each moves, how many the next fluid one moves, and when the
// rescale is done. The shell (Streaming.runRescale) makes each switch and
// reports how long it took.
type rescaleSteps struct {
	cur, target []int
	// replace: every actor is replaced (restart), so that every vnode
	// moves, to a new owner or in place.
	replace bool
	// adapt: the step size follows the switches' pauses (fluid without
	// a given step).
	adapt bool
	// size is the most vnodes the next switch moves.
	size int
	// floor is the quickest switch so far: what a switch costs whatever
	// it moves.
	floor time.Duration
	// total is the vnodes the whole rescale moves.
	total int
}

// rescaleStep is one switch of a rescale.
type rescaleStep struct {
	// to is the job's assignment from the switch on.
	to []int
	// vnodes are the vnodes that move in it: they change owner, or
	// their actor is replaced.
	vnodes []int
	// last: the switch reaches the target.
	last bool
}

// newRescaleSteps returns the steps of plan from assignment owner.
func newRescaleSteps(owner []int, plan *meta.Rescale) *rescaleSteps {
	s := &rescaleSteps{cur: owner, target: plan.Target, replace: plan.Strategy == StrategyRestart, size: plan.Step}
	switch {
	case plan.Strategy != StrategyFluid:
		s.size = rowkey.VNodes
	case plan.Step == 0:
		s.size, s.adapt = firstStep, true
	}
	s.total = len(s.moving(owner, plan.Target))
	return s
}

// moving returns the vnodes that move from assignment from to to.
func (s *rescaleSteps) moving(from, to []int) []int {
	var out []int
	for v := range from {
		if from[v] != to[v] || s.replace {
			out = append(out, v)
		}
	}
	return out
}

// next returns the next switch: the first size vnodes (by number) that
// still differ from the target take their target owner.
func (s *rescaleSteps) next() rescaleStep {
	to := meta.NextStep(s.cur, s.target, s.size)
	return rescaleStep{to: to, vnodes: s.moving(s.cur, to), last: slices.Equal(to, s.target)}
}

// switched records that the job made switch st, which took took: an
// adaptive step size scales by stepPause over how much longer than the
// quickest switch it took, at most doubling, at least one vnode.
func (s *rescaleSteps) switched(st rescaleStep, took time.Duration) {
	if s.floor == 0 || took < s.floor {
		s.floor = took
	}
	if s.adapt {
		held := took - s.floor
		s.size = max(1, min(2*s.size, int(float64(s.size)*float64(stepPause)/float64(max(held, time.Millisecond)))))
	}
	s.cur = st.to
}

// record adds switch st, made (after switched) with bytes of its vnodes'
// state in storage and cache bytes of cached state handed to their new
// owners, to p; the steps left are estimated at the next step's size.
func (s *rescaleSteps) record(p *RescaleProgress, st rescaleStep, bytes, cache int64) {
	p.StepsDone++
	p.VNodesMoved = min(p.VNodesMoved+len(st.vnodes), p.VNodesTotal)
	p.StepsTotal = p.StepsDone + (p.VNodesTotal-p.VNodesMoved+s.size-1)/s.size
	p.BytesMoved += bytes
	p.CacheBytesMoved += cache
}

// nodeMove is the vnodes one switch moves from node From to node To.
type nodeMove struct {
	From, To string
	VNodes   []int
}

// nodeMoves returns the vnodes that move between nodes when a job's
// assignment goes from cur to next, its slots placed by place, by pair of
// nodes in order.
func nodeMoves(cur, next []int, place []string) []nodeMove {
	var out []nodeMove
	for v := range cur {
		from, to := placementNode(place, cur[v]), placementNode(place, next[v])
		if from == to {
			continue
		}
		i := slices.IndexFunc(out, func(m nodeMove) bool { return m.From == from && m.To == to })
		if i < 0 {
			i = len(out)
			out = append(out, nodeMove{From: from, To: to})
		}
		out[i].VNodes = append(out[i].VNodes, v)
	}
	slices.SortFunc(out, func(a, b nodeMove) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	return out
}
