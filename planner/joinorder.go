package planner

import (
	"fmt"
	"math/bits"
)

// The search for a join order, over a join graph: relations with estimated
// row counts, and conditions over sets of them with a selectivity.
// joinregion.go builds the graph from a logical plan and the plan from the
// order found.

// dpLimit is the largest number of connected relations whose join order
// is searched exhaustively, by dynamic programming over connected subsets
// (as PostgreSQL below geqo_threshold); larger graphs are ordered
// greedily.
const dpLimit = 10

// joinGraph is what the search knows of a set of relations to join.
type joinGraph struct {
	// rows is each relation's estimated row count after its own
	// conditions.
	rows []float64
	// conds are the conditions that read more than one relation.
	conds []graphCond

	// Set up by order: the relations that conditions over two relations
	// join each relation to (with an equality: hashAdj), the conditions
	// over more, and estimatedRows's memo.
	adj, hashAdj []uint64
	wide         []graphCond
	setRows      map[uint64]float64
}

// graphCond is a condition over the relations in refs (a bit per
// relation) that keeps a fraction sel of their rows. An equality whose
// operands read the disjoint sets eqL and eqR can be a hash key of a join
// that has them on different sides (both are zero otherwise).
type graphCond struct {
	refs     uint64
	sel      float64
	eqL, eqR uint64
}

// joinTree is a join order: a relation, or a join of two trees (the right
// one is the hash join's build side). rows and cost are estimates: cost is
// the rows the tree reads, hashes, compares and produces.
type joinTree struct {
	set         uint64
	rel         int // the relation of a leaf
	left, right *joinTree
	rows, cost  float64
}

// String renders the tree with relation numbers, e.g. "((0 1) 2)".
func (t *joinTree) String() string {
	if t.left == nil {
		return fmt.Sprint(t.rel)
	}
	return "(" + t.left.String() + " " + t.right.String() + ")"
}

// order returns the cheapest join order it finds: each connected part of
// the graph is ordered alone (never through a cross product), then the
// parts are crossed, the cheapest cross first.
func (g *joinGraph) order() *joinTree {
	g.setRows = map[uint64]float64{}
	g.adj, g.hashAdj, g.wide = make([]uint64, len(g.rows)), make([]uint64, len(g.rows)), nil
	for _, c := range g.conds {
		if bits.OnesCount64(c.refs) > 2 {
			g.wide = append(g.wide, c)
			continue
		}
		i, j := bits.TrailingZeros64(c.refs), 63-bits.LeadingZeros64(c.refs)
		g.adj[i] |= 1 << j
		g.adj[j] |= 1 << i
		if c.eqL != 0 {
			g.hashAdj[i] |= 1 << j
			g.hashAdj[j] |= 1 << i
		}
	}
	var parts []*joinTree
	for _, c := range g.components() {
		var t *joinTree
		if bits.OnesCount64(c) <= dpLimit {
			t = g.dp(c)
		}
		if t == nil {
			// Too large, or connected only through conditions over three
			// or more relations (no pair of its relations is).
			t = g.greedy(g.leaves(c))
		}
		parts = append(parts, t)
	}
	return g.greedy(parts)
}

// components returns the sets of relations that the conditions connect.
func (g *joinGraph) components() []uint64 {
	var out []uint64
	var seen uint64
	for i := range g.rows {
		if seen&(1<<i) != 0 {
			continue
		}
		c := uint64(1) << i
		for grown := true; grown; {
			grown = false
			for _, k := range g.conds {
				if k.refs&c != 0 && k.refs&^c != 0 {
					c |= k.refs
					grown = true
				}
			}
		}
		seen |= c
		out = append(out, c)
	}
	return out
}

// leaves returns a one-relation tree for each relation in set.
func (g *joinGraph) leaves(set uint64) []*joinTree {
	var out []*joinTree
	for s := set; s != 0; s &= s - 1 {
		i := bits.TrailingZeros64(s)
		out = append(out, &joinTree{set: 1 << i, rel: i, rows: g.rows[i]})
	}
	return out
}

// dp returns the cheapest tree over set that joins only connected
// subsets, nil if there is none.
func (g *joinGraph) dp(set uint64) *joinTree {
	rels := g.leaves(set)
	// best is indexed by subsets of rels (bit k: rels[k]); global holds
	// each subset's relation set.
	best := make([]*joinTree, 1<<len(rels))
	global := make([]uint64, len(best))
	for m := 1; m < len(best); m++ {
		low := m & -m
		global[m] = global[m&^low] | rels[bits.TrailingZeros(uint(low))].set
		if m == low {
			best[m] = rels[bits.TrailingZeros(uint(m))]
			continue
		}
		// Each split into a (with m's lowest relation) and b once.
		for a := (m - 1) & m; a > 0; a = (a - 1) & m {
			b := m ^ a
			if a&low == 0 || best[a] == nil || best[b] == nil || !g.connected(global[a], global[b]) {
				continue
			}
			if t := g.join(best[a], best[b]); best[m] == nil || t.cost < best[m].cost {
				keep := t
				best[m] = &keep
			}
		}
	}
	return best[len(best)-1]
}

// greedy joins trees two at a time until one is left, each time the
// connected pair (any pair when none is connected) whose join costs
// least itself.
func (g *joinGraph) greedy(trees []*joinTree) *joinTree {
	for len(trees) > 1 {
		var best *joinTree
		var bi, bj int
		var bestStep float64
		bestLinked := false
		for i := range trees {
			for j := i + 1; j < len(trees); j++ {
				linked := g.connected(trees[i].set, trees[j].set)
				if bestLinked && !linked {
					continue
				}
				t := g.join(trees[i], trees[j])
				step := t.cost - trees[i].cost - trees[j].cost
				if best == nil || linked && !bestLinked || step < bestStep {
					best, bi, bj, bestStep, bestLinked = &t, i, j, step, linked
				}
			}
		}
		trees[bi] = best
		trees = append(trees[:bj], trees[bj+1:]...)
	}
	return trees[0]
}

// join joins a and b (a holds the relations written first), building
// the hash table on the smaller side. It returns a value: the searches
// weigh many joins and keep few.
func (g *joinGraph) join(a, b *joinTree) joinTree {
	l, r := a, b
	if r.rows > l.rows {
		l, r = r, l
	}
	t := joinTree{set: a.set | b.set, left: l, right: r}
	t.rows = g.estimatedRows(t.set)
	work := l.rows * r.rows // every pair compared
	if g.hashable(l.set, r.set) {
		work = l.rows + r.rows
	}
	t.cost = l.cost + r.cost + work + t.rows
	return t
}

// estimatedRows estimates the rows of the join of the relations in set:
// the product of their rows and of the selectivities of the conditions
// over them, at least one.
func (g *joinGraph) estimatedRows(set uint64) float64 {
	if v, ok := g.setRows[set]; ok {
		return v
	}
	v := 1.0
	for s := set; s != 0; s &= s - 1 {
		v *= g.rows[bits.TrailingZeros64(s)]
	}
	for _, c := range g.conds {
		if c.refs&^set == 0 {
			v *= c.sel
		}
	}
	v = max(v, 1)
	g.setRows[set] = v
	return v
}

// connected reports whether a condition over a ∪ b reads both a and b.
func (g *joinGraph) connected(a, b uint64) bool {
	for s := a; s != 0; s &= s - 1 {
		if g.adj[bits.TrailingZeros64(s)]&b != 0 {
			return true
		}
	}
	for _, c := range g.wide {
		if c.refs&a != 0 && c.refs&b != 0 && c.refs&^(a|b) == 0 {
			return true
		}
	}
	return false
}

// hashable reports whether an equality can be a hash key of a join of l
// and r.
func (g *joinGraph) hashable(l, r uint64) bool {
	for s := l; s != 0; s &= s - 1 {
		if g.hashAdj[bits.TrailingZeros64(s)]&r != 0 {
			return true
		}
	}
	for _, c := range g.wide {
		if c.eqL != 0 && (c.eqL&^l == 0 && c.eqR&^r == 0 || c.eqL&^r == 0 && c.eqR&^l == 0) {
			return true
		}
	}
	return false
}
