package planner

import (
	"math/bits"
	"slices"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
)

// Join ordering of batch plans. The binder builds inner joins as written: a
// left-deep tree in FROM order, with WHERE's conditions in a Filter above
// it. OrderJoins takes each region of inner joins (with the filters and the
// column-only projections in it) apart into its relations (tables, outer
// joins, derived tables...) and its conditions, orders the relations by
// estimated cost (joinorder.go), and builds the region again: each
// condition sits at the lowest join, or relation, that has its columns, and
// a projection gives the region's columns back in their written order.
// Build then turns the equalities of each join into hash keys.
//
// A condition that must see the row as written stays where it is: one with
// a correlated subquery (it reads the row by position) or a volatile
// function (it must not run more or less often). Outer joins and lateral
// joins are relations of the region around them; regions inside them are
// ordered on their own.

const (
	// defaultRows is the row count assumed for a table without an estimate.
	defaultRows = 1000
	// eqSel and otherSel are the fractions of rows that an equality with a
	// constant and any other condition keep (PostgreSQL's defaults without
	// statistics). An equality of columns of two relations keeps 1 / the
	// larger one's rows.
	eqSel    = 0.005
	otherSel = 1.0 / 3
)

// RowCounts estimates how many rows a stored relation holds.
type RowCounts func(t *meta.Table) float64

// StorageRowCounts estimates row counts from env's storage (see
// exec.TableScan.EstimateRows); with a nil env every table counts
// defaultRows.
func StorageRowCounts(env *exec.Env) RowCounts {
	if env == nil {
		return func(*meta.Table) float64 { return defaultRows }
	}
	return func(t *meta.Table) float64 {
		n, err := tableScan(t).EstimateRows(env)
		if err != nil {
			return defaultRows
		}
		return n
	}
}

// OrderJoins returns n with each region of inner joins ordered by the
// estimated cost with counts' row counts. The result has n's columns.
func OrderJoins(n Node, counts RowCounts) Node {
	o := &orderer{counts: counts, tables: map[uint32]float64{}}
	return o.node(n)
}

// OrderDisconnectedJoins returns n with those regions of inner joins
// ordered (every table counted alike) whose written order would join a
// relation without an equality to the ones before it, or whose
// equalities an OR hides (factorOr); the others stay exactly as written.
// Streaming plans use it: each of their joins needs an equality to hash
// on, and a view whose written order is fine keeps its plan, and so the
// layout of its state, as it always was.
func OrderDisconnectedJoins(n Node) Node {
	o := &orderer{counts: StorageRowCounts(nil), tables: map[uint32]float64{}, onlyDisconnected: true}
	return o.node(n)
}

// orderer orders the joins of one plan.
type orderer struct {
	counts RowCounts
	tables map[uint32]float64
	// onlyDisconnected orders only the regions that need it (see
	// OrderDisconnectedJoins).
	onlyDisconnected bool
}

func (o *orderer) node(n Node) Node {
	// A filter's conditions that must see the written row stay above the
	// region, over its columns as written.
	body, pinned := n, expr.Expr(nil)
	if f, ok := n.(*Filter); ok {
		if p, free := splitPinned(f.Cond); p != nil && free != nil {
			body, pinned = &Filter{Input: f.Input, Cond: free}, p
		}
	}
	r := &region{}
	out := r.flatten(body)
	if len(r.rels) >= 2 && o.onlyDisconnected && !r.factored && r.writtenConnected() {
		return o.withinRelations(n, r.rels)
	}
	if len(r.rels) < 2 || len(r.rels) > 64 {
		// Nothing to order, or more relations than a set has bits: the
		// joins below are ordered as regions of their own.
		ins := n.Inputs()
		for i, in := range ins {
			ins[i] = o.node(in)
		}
		return withInputs(n, ins)
	}
	ordered := r.plan(o, out, body.Columns())
	if pinned != nil {
		return &Filter{Input: ordered, Cond: pinned}
	}
	return ordered
}

// withinRelations returns n, a region kept as written, with the regions
// inside its relations rels ordered.
func (o *orderer) withinRelations(n Node, rels []Node) Node {
	if slices.Contains(rels, n) {
		return o.node(n)
	}
	ins := n.Inputs()
	for i, in := range ins {
		ins[i] = o.withinRelations(in, rels)
	}
	return withInputs(n, ins)
}

// splitPinned splits a condition into the conjuncts that must be evaluated
// over the row as written and the others (nil when there are none).
func splitPinned(cond expr.Expr) (pinned, free expr.Expr) {
	return splitConjuncts(cond, isPinned)
}

// isPinned reports whether e has a correlated subquery or a volatile
// function.
func isPinned(e expr.Expr) bool {
	pinned := false
	expr.Walk(e, func(x expr.Expr) bool {
		switch x := x.(type) {
		case *expr.Subquery:
			pinned = pinned || x.Correlated
		case *expr.Func:
			pinned = pinned || x.Volatile()
		}
		return !pinned
	})
	return pinned
}

// region is a region of inner joins taken apart: its relations, whose
// columns concatenated in FROM order number the region's columns, and its
// conditions over those columns.
type region struct {
	rels  []Node
	first []int // each relation's first column
	conds []expr.Expr
	// width is the number of columns of the relations so far.
	width int
	// factored records that a condition common to every branch of an OR
	// was taken out of it (see factorOr).
	factored bool
}

// flatten adds n's relations and conditions to r and returns, for each of
// n's columns, the region column it is.
func (r *region) flatten(n Node) []int {
	switch x := n.(type) {
	case *Join:
		if x.Kind != InnerJoin || x.Temporal || x.On != nil && hasPinned(x.On) {
			break
		}
		out := append(r.flatten(x.L), r.flatten(x.R)...)
		r.addConds(x.On, out)
		return out
	case *Filter:
		if hasPinned(x.Cond) {
			break
		}
		out := r.flatten(x.Input)
		r.addConds(x.Cond, out)
		return out
	case *Project:
		refs := make([]int, len(x.Exprs))
		for i, e := range x.Exprs {
			c, ok := e.(*expr.ColRef)
			if !ok {
				return r.relation(n)
			}
			refs[i] = c.Idx
		}
		in := r.flatten(x.Input)
		out := make([]int, len(refs))
		for i, c := range refs {
			out[i] = in[c]
		}
		return out
	}
	return r.relation(n)
}

func hasPinned(cond expr.Expr) bool {
	p, _ := splitPinned(cond)
	return p != nil
}

// relation adds n as a relation of r.
func (r *region) relation(n Node) []int {
	w := len(n.Columns())
	r.rels = append(r.rels, n)
	r.first = append(r.first, r.width)
	out := make([]int, w)
	for i := range out {
		out[i] = r.width + i
	}
	r.width += w
	return out
}

// addConds adds the conjuncts of cond (nil: none), whose column i is
// region column out[i].
func (r *region) addConds(cond expr.Expr, out []int) {
	if cond == nil {
		return
	}
	for _, c := range conjuncts(cond) {
		parts := factorOr(c)
		r.factored = r.factored || len(parts) > 1
		for _, part := range parts {
			r.conds = append(r.conds, mapCols(part, func(i int) int { return out[i] }))
		}
	}
}

// factorOr takes the conjuncts common to every branch of the OR e out of
// it, as PostgreSQL's planner does: (a AND b) OR (a AND c) is a AND (b OR
// c), so that a join equality written in each branch joins by hash. It
// returns e alone when nothing is common.
func factorOr(e expr.Expr) []expr.Expr {
	or, ok := e.(*expr.Or)
	if !ok || len(or.Args) < 2 {
		return []expr.Expr{e}
	}
	branches := make([][]expr.Expr, len(or.Args))
	for i, a := range or.Args {
		branches[i] = conjuncts(a)
	}
	var common []expr.Expr
	for _, c := range branches[0] {
		inAll := true
		for _, b := range branches[1:] {
			inAll = inAll && slices.ContainsFunc(b, func(x expr.Expr) bool { return expr.Equal(x, c) })
		}
		if inAll && !slices.ContainsFunc(common, func(x expr.Expr) bool { return expr.Equal(x, c) }) {
			common = append(common, c)
		}
	}
	if len(common) == 0 {
		return []expr.Expr{e}
	}
	rest := make([]expr.Expr, 0, len(branches))
	for _, b := range branches {
		var left []expr.Expr
		for _, x := range b {
			if !slices.ContainsFunc(common, func(c expr.Expr) bool { return expr.Equal(x, c) }) {
				left = append(left, x)
			}
		}
		if len(left) == 0 {
			return common // a branch of the common conjuncts alone: the OR holds with them
		}
		rest = append(rest, andOf(left))
	}
	return append(common, expr.NewOr(rest...))
}

// writtenConnected reports whether, in FROM order, each relation after
// the first has an equality with the ones before it.
func (r *region) writtenConnected() bool {
	for k := 1; k < len(r.rels); k++ {
		rel, before := uint64(1)<<k, uint64(1)<<k-1
		if !slices.ContainsFunc(r.conds, func(c expr.Expr) bool {
			b, ok := c.(*expr.Binary)
			if !ok || b.Op != "=" {
				return false
			}
			lr, rr := r.refs(b.L), r.refs(b.R)
			if (lr|rr)&^(before|rel) != 0 {
				return false // reads a relation joined later
			}
			return lr&before != 0 && rr == rel || rr&before != 0 && lr == rel
		}) {
			return false
		}
	}
	return true
}

// relOf returns the relation that region column col belongs to.
func (r *region) relOf(col int) int {
	i, found := slices.BinarySearch(r.first, col)
	if !found {
		i--
	}
	// Relations without columns share a first column: take the last.
	for i+1 < len(r.first) && r.first[i+1] == col {
		i++
	}
	return i
}

// refs returns the relations that e reads (a bit per relation).
func (r *region) refs(e expr.Expr) uint64 {
	var set uint64
	expr.Walk(e, func(x expr.Expr) bool {
		if c, ok := x.(*expr.ColRef); ok {
			set |= 1 << r.relOf(c.Idx)
		}
		return true
	})
	return set
}

// plan orders r's relations and builds the region again, with columns
// cols (the region's column out[i] as column i).
func (r *region) plan(o *orderer, out []int, cols []Column) Node {
	g := &joinGraph{rows: make([]float64, len(r.rels))}
	refs := make([]uint64, len(r.conds))
	for i, n := range r.rels {
		r.rels[i] = o.node(n)
		g.rows[i] = o.estimate(r.rels[i])
	}
	for i, c := range r.conds {
		if refs[i] = r.refs(c); bits.OnesCount64(refs[i]) == 1 {
			rel := bits.TrailingZeros64(refs[i])
			g.rows[rel] = max(1, g.rows[rel]*selectivity(c))
		}
	}
	for i, c := range r.conds {
		if bits.OnesCount64(refs[i]) < 2 {
			continue
		}
		gc := graphCond{refs: refs[i], sel: otherSel}
		if b, ok := c.(*expr.Binary); ok && b.Op == "=" {
			if lr, rr := r.refs(b.L), r.refs(b.R); lr != 0 && rr != 0 && lr&rr == 0 {
				gc.sel = 1 / max(g.maxRows(lr), g.maxRows(rr))
				if _, _, ok := hashEquality(c); ok {
					gc.eqL, gc.eqR = lr, rr
				}
			}
		}
		g.conds = append(g.conds, gc)
	}
	return r.build(g.order(), out, cols)
}

// maxRows returns the largest row count among the relations in set.
func (g *joinGraph) maxRows(set uint64) float64 {
	m := 1.0
	for s := set; s != 0; s &= s - 1 {
		m = max(m, g.rows[bits.TrailingZeros64(s)])
	}
	return m
}

// build builds the plan of tree with each condition at the lowest node
// that has its columns (those over no relation at the root), under a
// projection to cols when the columns came out in another order.
func (r *region) build(tree *joinTree, out []int, cols []Column) Node {
	placed := make([]bool, len(r.conds))
	pos := make([]int, r.width)
	var walk func(t *joinTree) (Node, []int)
	walk = func(t *joinTree) (Node, []int) {
		var n Node
		var layout []int
		if t.left == nil {
			n = r.rels[t.rel]
			for i := range n.Columns() {
				layout = append(layout, r.first[t.rel]+i)
			}
		} else {
			l, ll := walk(t.left)
			rn, rl := walk(t.right)
			n = &Join{Kind: InnerJoin, L: l, R: rn}
			layout = append(ll, rl...)
		}
		var here []expr.Expr
		for i, c := range r.conds {
			if refs := r.refs(c); !placed[i] && (refs != 0 || t == tree) && refs&^t.set == 0 {
				placed[i] = true
				here = append(here, c)
			}
		}
		if len(here) == 0 {
			return n, layout
		}
		for i, col := range layout {
			pos[col] = i
		}
		cond := mapCols(andOf(here), func(i int) int { return pos[i] })
		if t.left != nil {
			n.(*Join).On = cond
			return n, layout
		}
		return &Filter{Input: n, Cond: cond}, layout
	}
	n, layout := walk(tree)
	for i, col := range layout {
		pos[col] = i
	}
	exprs := make([]expr.Expr, len(out))
	same := len(out) == len(layout)
	for i, col := range out {
		exprs[i] = &expr.ColRef{Idx: pos[col], T: cols[i].T, Name: cols[i].Name}
		same = same && pos[col] == i
	}
	if same && slices.Equal(n.Columns(), cols) {
		return n
	}
	return &Project{Input: n, Exprs: exprs, Cols: cols}
}

// estimate estimates the rows n produces.
func (o *orderer) estimate(n Node) float64 {
	switch x := n.(type) {
	case *Scan:
		rows, ok := o.tables[x.Table.ID]
		if !ok {
			rows = o.counts(x.Table)
			o.tables[x.Table.ID] = rows
		}
		return rows
	case *Values:
		return float64(len(x.Rows))
	case *Filter:
		rows := o.estimate(x.Input)
		for _, c := range conjuncts(x.Cond) {
			rows *= selectivity(c)
		}
		return max(1, rows)
	case *Aggregate:
		if len(x.Group) == 0 {
			return 1
		}
		return max(1, o.estimate(x.Input)/10)
	case *Join:
		// An outer join, or an inner one kept as written: about its
		// larger side, as when it follows a foreign key.
		return max(o.estimate(x.L), o.estimate(x.R))
	case *SetOp:
		return o.estimate(x.L) + o.estimate(x.R)
	}
	if ins := n.Inputs(); len(ins) > 0 {
		return o.estimate(ins[0])
	}
	return defaultRows
}

// selectivity estimates the fraction of rows that condition c keeps on
// its own.
func selectivity(c expr.Expr) float64 {
	if b, ok := c.(*expr.Binary); ok && b.Op == "=" {
		return eqSel
	}
	return otherSel
}

// withInputs returns n over the inputs ins (n itself when they are its
// own).
func withInputs(n Node, ins []Node) Node {
	if slices.Equal(ins, n.Inputs()) {
		return n
	}
	switch x := n.(type) {
	case *Filter:
		c := *x
		c.Input = ins[0]
		return &c
	case *Project:
		c := *x
		c.Input = ins[0]
		return &c
	case *Aggregate:
		c := *x
		c.Input = ins[0]
		return &c
	case *Expand:
		c := *x
		c.Input = ins[0]
		return &c
	case *Distinct:
		return &Distinct{Input: ins[0]}
	case *Sort:
		c := *x
		c.Input = ins[0]
		return &c
	case *Limit:
		c := *x
		c.Input = ins[0]
		return &c
	case *Window:
		c := *x
		c.Input = ins[0]
		return &c
	case *ProjectSet:
		c := *x
		c.Input = ins[0]
		return &c
	case *Join:
		c := *x
		c.L, c.R = ins[0], ins[1]
		return &c
	case *Apply:
		c := *x
		c.L, c.R = ins[0], ins[1]
		return &c
	case *SetOp:
		c := *x
		c.L, c.R = ins[0], ins[1]
		return &c
	}
	return n
}
