// Dynamic filters: a comparison of the rows of a stream with a one-row
// side (an uncorrelated scalar subquery, or a cross join with a one-row
// relation whose columns nothing above reads) is planned as a
// dataflow.DynamicFilterSpec rather than a join on a constant key, which
// would hold every row in one key group: the rows stay partitioned by
// their own key and the one row is broadcast to every actor.
//
// The dynamic filter outputs the rows of the many-row side only. Where
// the one row's columns are read above (SELECT * over the cross join, or
// the subquery's value in the select list), the join plan stays: the
// subquery of the select list is a join of its own, and a cross join whose
// one-row columns are read keeps its join, since every output row would
// change with the one row.

package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// dynamicJoin returns, for a conjunct c of a filter over in that compares
// an expression of in's row with an uncorrelated scalar subquery of at
// most one row by its shape (x > (SELECT avg(x) FROM t)), the semi join
// of in with the subquery on c: planned as a dynamic filter.
func dynamicJoin(in Node, c expr.Expr) (Node, bool, error) {
	b, ok := c.(*expr.Binary)
	if !ok || !dynamicOps[b.Op] {
		return nil, false, nil
	}
	sub, other := b.R, b.L
	if hasSubquery(b.L) {
		sub, other = b.L, b.R
	}
	sq := loneSubquery(sub)
	if sq == nil || hasSubquery(other) || sq.Mode != expr.SubScalar || sq.Correlated || !singleRow(sq.Plan.(*subPlan).node) {
		return nil, false, nil
	}
	right, err := decorrelate(sq.Plan.(*subPlan).node)
	if err != nil {
		return nil, false, err
	}
	nl := len(in.Columns())
	on, _ := expr.Transform(c, func(x expr.Expr) (expr.Expr, bool, error) {
		if x == sq {
			return &expr.ColRef{Idx: nl, T: sq.T}, true, nil
		}
		return nil, false, nil
	})
	return &Join{Kind: SemiJoin, L: in, R: right, On: on}, true, nil
}

// loneSubquery returns the subquery of e if e has one and reads nothing
// else of its row, nor calls a volatile function; nil otherwise.
func loneSubquery(e expr.Expr) *expr.Subquery {
	var sq *expr.Subquery
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		switch x := x.(type) {
		case *expr.Subquery:
			ok = ok && sq == nil
			sq = x
			return false
		case *expr.ColRef, *expr.OuterRef:
			ok = false
		case *expr.Func:
			ok = ok && !x.Volatile()
		}
		return ok
	})
	if !ok {
		return nil
	}
	return sq
}

// dynamicOps are the comparisons a dynamic filter keeps.
var dynamicOps = map[string]bool{"<": true, "<=": true, ">": true, ">=": true, "=": true}

// mirrored maps a comparison to the one with its operands swapped.
var mirrored = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}

// dynamicShape is a join that a dynamic filter can run: the rows of side
// many (0 left, 1 right) compared with the one row of the other side.
type dynamicShape struct {
	many int
	spec *dataflow.DynamicFilterSpec
}

// dynamicFilterOf returns the dynamic filter shape of join j (its ON with
// only two-sided conjuncts left, see pushOnDown), planned from orig: a
// semi join with a one-row right side, or an inner join with a one-row
// side whose columns nothing above reads, whose condition compares one
// expression of the other side with one or two of the one-row side, all
// of a type whose memcomparable key orders as its comparison does.
func (p *streamPlanner) dynamicFilterOf(orig, j *Join) (dynamicShape, bool) {
	if j.Temporal || j.On == nil {
		return dynamicShape{}, false
	}
	nl, nr := len(j.L.Columns()), len(j.R.Columns())
	sh := dynamicShape{many: -1}
	switch {
	case j.Kind == SemiJoin && singleRow(j.R):
		sh.many = 0
	case j.Kind != InnerJoin:
	case singleRow(j.R) && p.unusedCols(orig, nl, nl+nr):
		sh.many = 0
	case singleRow(j.L) && p.unusedCols(orig, 0, nl):
		sh.many = 1
	}
	if sh.many < 0 {
		return sh, false
	}
	spec := &dataflow.DynamicFilterSpec{}
	var many string
	for _, c := range conjuncts(j.On) {
		b, ok := c.(*expr.Binary)
		if !ok || !dynamicOps[b.Op] {
			return sh, false
		}
		l, r := expr.SameTypeOperands(b)
		op := b.Op
		want := [2]sideOf{sideLeft, sideRight}[sh.many]
		if side(l, nl) != want {
			l, r, op = r, l, mirrored[op]
		}
		if side(l, nl) != want || side(r, nl) == want || side(r, nl) == sideBoth {
			return sh, false
		}
		t := l.Type()
		if many != "" && (l.String() != many || t != spec.T) || !keyOrdered(t) {
			return sh, false
		}
		many, spec.T = l.String(), t
		if sh.many == 1 {
			l = shift(l, -nl)
		} else {
			r = shift(r, -nl)
		}
		spec.Left = l
		bound := &dataflow.DynamicBound{Right: r, Inclusive: op != "<" && op != ">"}
		if op != "<" && op != "<=" {
			if spec.Lower != nil {
				return sh, false
			}
			spec.Lower = bound
		}
		if op != ">" && op != ">=" {
			if spec.Upper != nil {
				return sh, false
			}
			spec.Upper = bound
		}
	}
	sh.spec = spec
	return sh, true
}

// unusedCols reports whether nothing above n reads its columns from..to-1.
func (p *streamPlanner) unusedCols(n Node, from, to int) bool {
	used, ok := p.uses[n]
	return ok && len(used) >= to && !slices.Contains(used[from:to], true)
}

// keyOrdered reports whether values of t compare as their memcomparable
// keys order.
func keyOrdered(t types.T) bool {
	switch t.Family {
	case types.Date, types.Time, types.Timestamp, types.TimestampTZ, types.Text, types.Varchar:
		return true
	}
	return t.IsNumeric()
}

// planDynamicFilter plans join j of shape sh: the many side hashed on its
// stream key (as it is routed already where it can), the one-row side
// broadcast. An inner join's columns of the one-row side read NULL.
func (p *streamPlanner) planDynamicFilter(j *Join, sh dynamicShape) (*stream, error) {
	sides := []Node{j.L, j.R}
	many, err := p.plan(sides[sh.many])
	if err != nil {
		return nil, err
	}
	one, err := p.plan(sides[1-sh.many])
	if err != nil {
		return nil, err
	}
	d := hashOn(many.key)
	if len(many.key) == 0 {
		d = single
	}
	spec := sh.spec
	spec.LeftTypes, spec.LeftStreamKey, spec.StateTable = typesOf(many.cols), many.key, p.alloc()
	inputs := []dataflow.InputSpec{p.input(many, d), p.input(one, broadcast)}
	out := &stream{cols: many.cols, key: many.key, dist: d.keys, frag: p.newFragment(d.single, inputs, spec)}
	if j.Kind == SemiJoin {
		return out, nil
	}
	// The inner join's columns: the one-row side's as NULL.
	oneCols := sides[1-sh.many].Columns()
	nulls := make([]expr.Expr, len(oneCols))
	for i, c := range oneCols {
		nulls[i] = expr.NewConst(types.Null, c.T)
	}
	manyCols := sides[sh.many].Columns()
	refs := make([]expr.Expr, len(manyCols))
	for i := range refs {
		refs[i] = out.ref(i)
	}
	exprs, cols := slices.Concat(refs, nulls), slices.Concat(manyCols, oneCols)
	if sh.many == 1 {
		exprs, cols = slices.Concat(nulls, refs), slices.Concat(oneCols, manyCols)
	}
	out.project(exprs, cols)
	return out, nil
}
