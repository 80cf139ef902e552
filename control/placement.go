package control

import (
	"cmp"
	"slices"

	"github.com/streamdb/streamdb/meta"
)

// Place returns the nodes of a job's n actor slots: each node gets a share
// of the slots in proportion to its cores (within one slot), and slots go
// round the nodes so that contiguous vnode ranges spread too. Nodes are
// taken in id order, so every node computes the same placement.
func Place(nodes []*meta.Node, n int) []string {
	if len(nodes) == 0 || n <= 0 {
		return nil
	}
	nodes = slices.SortedFunc(slices.Values(nodes), func(a, b *meta.Node) int { return cmp.Compare(a.ID, b.ID) })
	total := 0
	for _, nd := range nodes {
		total += max(nd.Cores, 1)
	}
	// Largest remainder: each node's quota of n in proportion to cores.
	quota := make([]int, len(nodes))
	type rem struct{ i, r int }
	var rems []rem
	given := 0
	for i, nd := range nodes {
		c := max(nd.Cores, 1)
		quota[i] = n * c / total
		given += quota[i]
		rems = append(rems, rem{i, n * c % total})
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return cmp.Compare(b.r, a.r) })
	for k := 0; given < n; k++ {
		quota[rems[k%len(rems)].i]++
		given++
	}
	out := make([]string, 0, n)
	for len(out) < n {
		for i, nd := range nodes {
			if quota[i] > 0 {
				out = append(out, nd.ID)
				quota[i]--
			}
		}
	}
	return out
}

// Load is what a node runs: the actor slots of jobs placed on it and the
// key groups they own, summed over jobs.
type Load struct {
	Actors, VNodes int
}

// NodeLoads returns each node's load from the catalog's placements.
func NodeLoads(cat *meta.Catalog) map[string]Load {
	out := map[string]Load{}
	for _, t := range jobsInOrder(cat) {
		nodes := JobPlacement(cat, t)
		for _, n := range nodes {
			l := out[n]
			l.Actors++
			out[n] = l
		}
		for _, s := range JobAssignment(t) {
			if s < len(nodes) {
				l := out[nodes[s]]
				l.VNodes++
				out[nodes[s]] = l
			}
		}
	}
	return out
}
