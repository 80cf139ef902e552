package control

import (
	"cmp"
	"slices"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/rowkey"
)

// Place returns the nodes of a job's n actor slots: each node gets a share
// of the slots in proportion to its cores (within one slot, share), and
// slots go round the nodes so that contiguous vnode ranges spread too.
// Nodes are taken in id order, so every node computes the same placement.
func Place(nodes []*meta.Node, n int) []string {
	if len(nodes) == 0 || n <= 0 {
		return nil
	}
	nodes = byID(nodes)
	quota := share(nodes, n, 0)
	out := make([]string, 0, n)
	for len(out) < n {
		for _, nd := range nodes {
			if quota[nd.ID] > 0 {
				out = append(out, nd.ID)
				quota[nd.ID]--
			}
		}
	}
	return out
}

// share returns how many of n actor slots each of nodes (in id order)
// runs: a share in proportion to its cores, by largest remainder, ties
// going to the nodes from offset on (round the list), so that jobs whose
// slots do not divide evenly spread their extra slots over different
// nodes.
func share(nodes []*meta.Node, n, offset int) map[string]int {
	quota := map[string]int{}
	if len(nodes) == 0 || n <= 0 {
		return quota
	}
	total := 0
	for _, nd := range nodes {
		total += max(nd.Cores, 1)
	}
	type rem struct{ i, r int }
	var rems []rem
	given := 0
	for i, nd := range nodes {
		c := max(nd.Cores, 1)
		quota[nd.ID] = n * c / total
		given += quota[nd.ID]
		rems = append(rems, rem{(i - offset%len(nodes) + len(nodes)) % len(nodes), n * c % total})
	}
	slices.SortFunc(rems, func(a, b rem) int { return cmp.Or(cmp.Compare(b.r, a.r), cmp.Compare(a.i, b.i)) })
	for k := 0; given < n; k++ {
		i := (rems[k%len(rems)].i + offset) % len(nodes)
		quota[nodes[i].ID]++
		given++
	}
	return quota
}

// byID returns nodes sorted by id.
func byID(nodes []*meta.Node) []*meta.Node {
	return slices.SortedFunc(slices.Values(nodes), func(a, b *meta.Node) int { return cmp.Compare(a.ID, b.ID) })
}

// Load is what a node runs: the actors of jobs placed on it (those owning
// vnodes, and each job's first, which runs its singleton fragments or a
// table's writer) and the key groups they own, summed over jobs.
type Load struct {
	Actors, VNodes int
}

// NodeLoads returns each node's load from the catalog's placements.
func NodeLoads(cat *meta.Catalog) map[string]Load {
	out := map[string]Load{}
	for _, t := range jobsInOrder(cat) {
		nodes := JobPlacement(cat, t)
		owner := JobAssignment(t)
		for s, n := range nodes {
			if s == 0 || slices.Contains(owner, s) {
				l := out[n]
				l.Actors++
				out[n] = l
			}
		}
		for _, s := range owner {
			if s < len(nodes) {
				l := out[nodes[s]]
				l.VNodes++
				out[nodes[s]] = l
			}
		}
	}
	return out
}

// PlanRescale returns the vnode owners and slot placement of a job, whose
// actors own owner now and run on the nodes of place (slot -> node; slot 0
// the job's first, where its singleton fragments run), rescaled to n
// actors spread over nodes by cores
// (share, ties by job): each node keeps its slots that own most, up to its share, the
// others give their vnodes up, and new slots (the smallest numbers free)
// are placed on nodes short of their share; the vnodes move as few as
// balance allows (meta.RebalanceTo). Slot 0 stays on its node (singleton
// fragments run there). The placement covers the slots of both owner
// and target, for the steps between them; TrimPlacement cuts it to a
// target's slots.
func PlanRescale(job uint32, place []string, owner []int, nodes []*meta.Node, n int) (target []int, placement []string) {
	home := place[0]
	count := map[int]int{}
	for _, s := range owner {
		count[s]++
	}
	// Jobs take their extra slots on different nodes, by id.
	want := share(byID(nodes), n, int(job))
	// Each node keeps its slots owning most, up to its share.
	var current []int
	for s := range count {
		current = append(current, s)
	}
	slices.SortFunc(current, func(a, b int) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	nodeOf := map[int]string{}
	kept := map[string]int{}
	for _, s := range current {
		nd := placementNode(place, s)
		if kept[nd] < want[nd] {
			kept[nd]++
			nodeOf[s] = nd
		}
	}
	// New slots: the smallest numbers owning nothing now, slot 0 only on
	// its node.
	next := 0
	for _, nd := range sortedNodes(want) {
		for ; kept[nd] < want[nd]; kept[nd]++ {
			for count[next] > 0 || nodeOf[next] != "" || (next == 0 && nd != home) {
				next++
			}
			nodeOf[next] = nd
			next++
		}
		next = 0
	}
	slots := make([]int, 0, len(nodeOf))
	for s := range nodeOf {
		slots = append(slots, s)
	}
	target = meta.RebalanceTo(owner, slots)
	size := len(place)
	for _, s := range slots {
		size = max(size, s+1)
	}
	placement = make([]string, size)
	for s := range placement {
		switch {
		case nodeOf[s] != "":
			placement[s] = nodeOf[s]
		case s < len(place):
			placement[s] = place[s]
		default:
			placement[s] = home
		}
	}
	placement[0] = home
	return target, placement
}

// TrimPlacement returns placement cut to the slots assignment uses
// (slot 0 always kept).
func TrimPlacement(placement []string, assignment []int) []string {
	slots := 1
	for _, s := range assignment {
		slots = max(slots, s+1)
	}
	return slices.Clone(placement[:min(slots, len(placement))])
}

// sortedNodes returns the keys of m in order.
func sortedNodes(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for nd := range m {
		out = append(out, nd)
	}
	slices.Sort(out)
	return out
}

// DefaultParallelism is the parallelism of a job created without one: the
// nodes' cores, at most one actor per vnode.
func DefaultParallelism(nodes []*meta.Node) int {
	cores := 0
	for _, nd := range nodes {
		cores += nd.Cores
	}
	return min(max(cores, 1), rowkey.VNodes)
}
