package planner

import (
	"math/bits"
	"testing"

	"pgregory.net/rapid"
)

// eq is an equality between a column of relation l and one of relation r
// that keeps sel of their rows.
func eq(l, r int, sel float64) graphCond {
	return graphCond{refs: 1<<l | 1<<r, sel: sel, eqL: 1 << l, eqR: 1 << r}
}

// TestJoinOrder checks the order chosen for small join graphs.
func TestJoinOrder(t *testing.T) {
	tests := []struct {
		name  string
		rows  []float64
		conds []graphCond
		want  string
	}{
		{"two relations: the smaller one is hashed", []float64{10, 1000},
			[]graphCond{eq(0, 1, 0.001)}, "(1 0)"},
		{"chain written out of order: no cross product", []float64{100, 100, 100},
			[]graphCond{eq(0, 2, 0.01), eq(2, 1, 0.01)}, "((0 2) 1)"},
		{"star: the filtered satellite joins the hub first", []float64{10000, 100, 5, 100},
			[]graphCond{eq(0, 1, 1e-4), eq(0, 2, 1e-4), eq(0, 3, 1e-4)}, "(1 (3 (0 2)))"},
		{"a selective join goes first", []float64{100, 100, 100, 100},
			[]graphCond{eq(0, 1, 0.5), eq(1, 2, 0.5), eq(2, 3, 0.0001)}, "(0 (1 (2 3)))"},
		{"two components: each joined, then crossed", []float64{10, 20, 30, 40},
			[]graphCond{eq(0, 2, 0.1), eq(1, 3, 0.05)}, "((3 1) (2 0))"},
		{"no conditions: the smallest crossed first", []float64{30, 10, 20},
			nil, "((2 1) 0)"},
		{"a condition over three relations joins them once all are there", []float64{10, 10, 10},
			[]graphCond{{refs: 7, sel: 0.01}}, "((0 1) 2)"},
		{"a non-equality condition still connects, but is not hashed", []float64{50, 60, 70},
			[]graphCond{{refs: 1 | 4, sel: 1.0 / 3}, eq(1, 2, 1.0/70)}, "((2 1) 0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &joinGraph{rows: tt.rows, conds: tt.conds}
			if got := g.order().String(); got != tt.want {
				t.Errorf("order %s, want %s", got, tt.want)
			}
		})
	}
}

// TestJoinOrderGreedy checks that a chain written in an order where no two
// neighbours are joined is ordered without a cross product, by DP (up to
// dpLimit relations) and greedily (beyond).
func TestJoinOrderGreedy(t *testing.T) {
	for _, n := range []int{dpLimit, dpLimit + 1, 30} {
		g := &joinGraph{rows: make([]float64, n)}
		// Relation i is chain link perm(i): even links, then odd ones.
		link := func(i int) int {
			if i < (n+1)/2 {
				return 2 * i
			}
			return 2*(i-(n+1)/2) + 1
		}
		pos := make([]int, n)
		for i := range n {
			g.rows[i] = float64(10 + i*37%91)
			pos[link(i)] = i
		}
		for k := 0; k+1 < n; k++ {
			g.conds = append(g.conds, eq(pos[k], pos[k+1], 1/max(g.rows[pos[k]], g.rows[pos[k+1]])))
		}
		tree := g.order()
		if c := crossJoin(g, tree); c != nil {
			t.Errorf("%d relations: cross product %s in %s", n, c, tree)
		}
		if bits.OnesCount64(tree.set) != n {
			t.Errorf("%d relations: the order covers %b", n, tree.set)
		}
	}
}

// crossJoin returns a join of tree whose sides no condition connects, nil
// if there is none.
func crossJoin(g *joinGraph, tree *joinTree) *joinTree {
	if tree.left == nil {
		return nil
	}
	if !g.connected(tree.left.set, tree.right.set) {
		return tree
	}
	if c := crossJoin(g, tree.left); c != nil {
		return c
	}
	return crossJoin(g, tree.right)
}

// TestJoinOrderConnected checks on random connected graphs (a random
// spanning tree and extra edges) that every relation is joined once and
// that no join is a cross product, by DP and by the greedy search.
func TestJoinOrderConnected(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 16).Draw(t, "relations")
		g := &joinGraph{rows: make([]float64, n)}
		for i := range n {
			g.rows[i] = float64(rapid.IntRange(1, 100000).Draw(t, "rows"))
		}
		for i := 1; i < n; i++ {
			j := rapid.IntRange(0, i-1).Draw(t, "parent")
			g.conds = append(g.conds, eq(i, j, 1/max(g.rows[i], g.rows[j])))
		}
		for range rapid.IntRange(0, n).Draw(t, "extra") {
			i, j := rapid.IntRange(0, n-1).Draw(t, "i"), rapid.IntRange(0, n-1).Draw(t, "j")
			if i != j {
				g.conds = append(g.conds, graphCond{refs: 1<<i | 1<<j, sel: 1.0 / 3})
			}
		}
		tree := g.order()
		if tree.set != 1<<n-1 {
			t.Fatalf("the order covers %b", tree.set)
		}
		if c := crossJoin(g, tree); c != nil {
			t.Fatalf("cross product %s in %s", c, tree)
		}
	})
}

// BenchmarkJoinOrderSearch times the search on the worst graph DP takes
// (dpLimit relations, every pair joined) and on the greedy search's chain
// of 30 relations.
func BenchmarkJoinOrderSearch(b *testing.B) {
	clique := &joinGraph{rows: make([]float64, dpLimit)}
	for i := range dpLimit {
		clique.rows[i] = float64(10 * (i + 1))
		for j := range i {
			clique.conds = append(clique.conds, eq(i, j, 0.01))
		}
	}
	chain := &joinGraph{rows: make([]float64, 30)}
	for i := range 30 {
		chain.rows[i] = float64(10 + i*37%91)
		if i > 0 {
			chain.conds = append(chain.conds, eq(i-1, i, 0.01))
		}
	}
	for _, g := range []struct {
		name string
		g    *joinGraph
	}{{"clique", clique}, {"chain30", chain}} {
		b.Run(g.name, func(b *testing.B) {
			for range b.N {
				g.g.order()
			}
		})
	}
}
