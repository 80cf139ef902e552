package meta

import (
	"cmp"
	"slices"

	"github.com/streamdb/streamdb/pgerror"
)

// Rescale is the plan of a job's rescale in progress (DESIGN.md §6),
// recorded in Raft when it begins; each step is recorded with the
// checkpoint that switches it, so that after a crash the job restarts with
// the assignment of the last committed step and the rescale goes on from
// there to Target.
type Rescale struct {
	// Parallelism is the job's Parallelism once done (0: the node's
	// default); Target the assignment it moves to.
	Parallelism int   `json:"parallelism,omitempty"`
	Target      []int `json:"target"`
	// Strategy is fluid, all_at_once or restart; Step the vnodes a fluid
	// step moves (0: as many as keep each switch's pause short).
	Strategy string `json:"strategy"`
	Step     int    `json:"step,omitempty"`
	// Cache is how moved vnodes' new owners get their cached state:
	// handover (default), eager or lazy.
	Cache string `json:"cache,omitempty"`
	// From is the job's actor count when the rescale began.
	From int `json:"from"`
	// Placement maps every slot the rescale uses, old and new, to its
	// node (nil: the job's placement as it was): the job's placement
	// while it moves; its last step records the target's slots only.
	Placement []string `json:"placement,omitempty"`
	// Runner is the node that runs the rescale: the only one that may
	// move the job's vnodes until the rescale ends (beginRescale).
	Runner string `json:"runner,omitempty"`
}

// RescaleStep is one switch of a rescale: the job's assignment from the
// step's checkpoint on; Done marks the last.
type RescaleStep struct {
	Table      uint32 `json:"table"`
	Assignment []int  `json:"assignment"`
	// Placement is the job's slot placement from the step on (nil: as
	// it was).
	Placement []string `json:"placement,omitempty"`
	Done      bool     `json:"done,omitempty"`
}

// beginRescale records r as t's rescale in progress. One node at a time
// moves a job's vnodes, since two rescales planned from the same owners
// would each copy state the other moves away: while a rescale recorded
// by another runner has not ended (its last step, endRescale, or its
// node's removal), r is refused (55006). The runner's own record is
// replaced (a plan that failed and is tried again).
func (c *Catalog) beginRescale(id uint32, r *Rescale) (*Catalog, error) {
	t, ok := c.byID[id]
	if !ok {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "relation with id %d does not exist", id)
	}
	if cur := t.Rescale; cur != nil && cur.Runner != "" && cur.Runner != r.Runner {
		return nil, pgerror.New(pgerror.CodeObjectInUse, "%s %q is being rescaled by node %s", t.Kind, t.Name, cur.Runner).
			WithHint("SHOW JOBS on node %s shows its progress; run the statement again once it has ended.", cur.Runner)
	}
	nt := *t
	nt.Rescale = r
	nc := c.clone()
	nc.put(&nt)
	return nc.seal(), nil
}

// endRescale forgets t's rescale if runner runs it: it failed, and the
// job stays with the owners of its last committed step.
func (c *Catalog) endRescale(id uint32, runner string) *Catalog {
	t, ok := c.byID[id]
	if !ok || t.Rescale == nil || t.Rescale.Runner != runner {
		return c
	}
	nt := *t
	nt.Rescale = nil
	nc := c.clone()
	nc.put(&nt)
	return nc.seal()
}

// rescaleStep records a committed step of t's rescale; the last one ends
// it. A table dropped meanwhile is ignored.
func (c *Catalog) rescaleStep(s RescaleStep) (*Catalog, error) {
	t, ok := c.byID[s.Table]
	if !ok {
		return c, nil
	}
	nt := *t
	nt.Assignment = s.Assignment
	if s.Placement != nil {
		nt.Placement = s.Placement
	}
	if s.Done && nt.Rescale != nil {
		nt.Parallelism = nt.Rescale.Parallelism
		nt.Rescale = nil
	}
	nc := c.clone()
	nc.put(&nt)
	return nc.seal(), nil
}

// Slots returns the number of actors an assignment uses.
func Slots(assignment []int) int {
	seen := map[int]bool{}
	for _, s := range assignment {
		seen[s] = true
	}
	return len(seen)
}

// Rebalance returns an assignment of the vnodes of owner (vnode -> actor
// slot) to n actors, balanced within one vnode, that moves the fewest
// vnodes: the n slots owning most keep what fits their share, the others
// give theirs up, and new slots (the smallest free numbers) fill up.
func Rebalance(owner []int, n int) []int {
	count := map[int]int{}
	for _, s := range owner {
		count[s]++
	}
	slots := make([]int, 0, len(count))
	for s := range count {
		slots = append(slots, s)
	}
	// Most vnodes first: they keep theirs and get the larger shares.
	slices.SortFunc(slots, func(a, b int) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	if len(slots) > n {
		slots = slots[:n]
	}
	for s := 0; len(slots) < n; s++ {
		if _, used := count[s]; !used {
			slots = append(slots, s)
		}
	}
	return RebalanceTo(owner, slots)
}

// RebalanceTo returns an assignment of the vnodes of owner to the actor
// slots slots, balanced within one vnode, that moves the fewest vnodes:
// each slot of slots keeps what of its own fits its share (the slots
// owning most get the larger shares), and the vnodes of other slots, or
// beyond a share, fill the slots still short, in slot order.
func RebalanceTo(owner []int, slots []int) []int {
	g, n := len(owner), len(slots)
	count := map[int]int{}
	for _, s := range owner {
		count[s]++
	}
	slots = slices.Clone(slots)
	slices.SortStableFunc(slots, func(a, b int) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	quota := map[int]int{}
	for i, s := range slots {
		quota[s] = g / n
		if i < g%n {
			quota[s]++
		}
	}
	target := slices.Clone(owner)
	kept := map[int]int{}
	var free []int
	for v, s := range owner {
		if kept[s] < quota[s] {
			kept[s]++
			continue
		}
		free = append(free, v)
	}
	slices.Sort(slots)
	for _, s := range slots {
		for ; kept[s] < quota[s]; kept[s]++ {
			target[free[0]] = s
			free = free[1:]
		}
	}
	return target
}

// NextStep returns the assignment one step from owner towards target:
// the first step vnodes (by number) that differ take their target owner
// (step < 1: all of them).
func NextStep(owner, target []int, step int) []int {
	if step < 1 {
		step = len(owner)
	}
	next := slices.Clone(owner)
	for v := range next {
		if step == 0 {
			break
		}
		if next[v] != target[v] {
			next[v] = target[v]
			step--
		}
	}
	return next
}
