package control

import (
	"fmt"
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
