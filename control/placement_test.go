package control

import (
	"fmt"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/meta"
	"pgregory.net/rapid"
)

func TestPlace(t *testing.T) {
	nodes := func(cores ...int) []*meta.Node {
		var out []*meta.Node
		for i, c := range cores {
			out = append(out, &meta.Node{ID: fmt.Sprintf("n%d", i+1), Cores: c})
		}
		return out
	}
	for _, tc := range []struct {
		nodes []*meta.Node
		n     int
		want  string
	}{
		{nodes(2, 2, 2), 6, "[n1 n2 n3 n1 n2 n3]"},
		{nodes(2, 2, 2), 4, "[n1 n2 n3 n1]"},
		{nodes(4, 2), 6, "[n1 n2 n1 n2 n1 n1]"},
		{nodes(1), 3, "[n1 n1 n1]"},
		{nodes(2, 2), 1, "[n1]"},
		{nil, 3, "[]"},
	} {
		if got := fmt.Sprint(Place(tc.nodes, tc.n)); got != tc.want {
			t.Errorf("Place(%v cores, %d) = %s, want %s", tc.nodes, tc.n, got, tc.want)
		}
	}
}

// TestPlaceProportional checks that every node's share of slots is its
// share of the cores within one slot, for any cluster.
func TestPlaceProportional(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cores := rapid.SliceOfN(rapid.IntRange(1, 16), 1, 8).Draw(t, "cores")
		n := rapid.IntRange(1, 256).Draw(t, "n")
		var nodes []*meta.Node
		total := 0
		for i, c := range cores {
			nodes = append(nodes, &meta.Node{ID: fmt.Sprintf("n%02d", i), Cores: c})
			total += c
		}
		got := Place(nodes, n)
		if len(got) != n {
			t.Fatalf("%d slots placed, want %d", len(got), n)
		}
		count := map[string]int{}
		for _, id := range got {
			count[id]++
		}
		for i, nd := range nodes {
			share := float64(n) * float64(cores[i]) / float64(total)
			if d := float64(count[nd.ID]) - share; d <= -1 || d >= 1 {
				t.Fatalf("node %s with %d of %d cores got %d of %d slots", nd.ID, cores[i], total, count[nd.ID], n)
			}
		}
	})
}

// TestPlanRescale checks, for random clusters, current placements and
// targets, that a plan uses n slots spread over the nodes as share
// shares them out, balanced within one vnode, with slot 0 and every kept
// slot on the node it was on.
func TestPlanRescale(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var nodes []*meta.Node
		for i := range rapid.IntRange(1, 5).Draw(rt, "nodes") {
			nodes = append(nodes, &meta.Node{ID: fmt.Sprintf("n%d", i+1), Cores: rapid.IntRange(1, 4).Draw(rt, "cores")})
		}
		// The job as some earlier cluster placed it.
		was := nodes[:rapid.IntRange(1, len(nodes)).Draw(rt, "earlier nodes")]
		n0 := rapid.IntRange(1, 12).Draw(rt, "from")
		view := &meta.Table{ID: 7, Kind: meta.KindMaterializedView, Placement: Place(was, n0), Parallelism: n0}
		owner := JobAssignment(view)
		n := rapid.IntRange(1, 12).Draw(rt, "to")
		target, placement := PlanRescale(view.ID, view.Placement, owner, nodes, n)
		if placement[0] != view.Placement[0] {
			rt.Fatalf("slot 0 moved from %s to %s", view.Placement[0], placement[0])
		}
		perSlot := map[int]int{}
		for _, s := range target {
			perSlot[s]++
		}
		if len(perSlot) != n {
			rt.Fatalf("%d slots own vnodes, want %d: %v", len(perSlot), n, target)
		}
		perNode := map[string]int{}
		for s, c := range perSlot {
			if c < len(target)/n || c > (len(target)+n-1)/n {
				rt.Fatalf("slot %d owns %d of %d vnodes over %d slots", s, c, len(target), n)
			}
			perNode[placement[s]]++
			if _, had := slices.BinarySearch(slices.Sorted(slices.Values(owner)), s); had && placement[s] != view.Placement[s] {
				rt.Fatalf("slot %d kept its vnodes but moved from %s to %s", s, view.Placement[s], placement[s])
			}
		}
		want := share(nodes, n, int(view.ID))
		for nd, k := range want {
			if k == 0 {
				delete(want, nd)
			}
		}
		if fmt.Sprint(perNode) != fmt.Sprint(want) {
			rt.Fatalf("slots per node %v, want %v (share)", perNode, want)
		}
		for _, s := range target {
			if s < len(view.Placement) && slices.Contains(owner, s) && placement[s] != view.Placement[s] {
				rt.Fatalf("slot %d changed node", s)
			}
		}
	})
}

// TestShareSpreadsExtraSlots checks that jobs whose slots do not divide
// over the nodes take their extra slots on different nodes.
func TestShareSpreadsExtraSlots(t *testing.T) {
	var nodes []*meta.Node
	for i := range 4 {
		nodes = append(nodes, &meta.Node{ID: fmt.Sprintf("n%d", i+1), Cores: 2})
	}
	used := map[string]int{}
	for job := range 4 {
		q := share(nodes, 3, job)
		total := 0
		for nd, k := range q {
			total += k
			used[nd] += k
		}
		if total != 3 {
			t.Fatalf("job %d: %v shares %d slots, want 3", job, q, total)
		}
	}
	if fmt.Sprint(used) != "map[n1:3 n2:3 n3:3 n4:3]" {
		t.Fatalf("slots of four jobs of 3 by node: %v, want 3 each", used)
	}
}
