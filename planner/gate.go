package planner

import (
	"github.com/streamdb/streamdb/expr"
)

// Optimize returns the batch plan Build runs and EXPLAIN shows for n:
// plans under a constant false condition pruned (skipFalse), then inner
// joins ordered by counts' row counts (OrderJoins).
func Optimize(n Node, counts RowCounts) Node {
	return OrderJoins(skipFalse(n), counts)
}

// skipFalse returns n with every filter, and inner join, that has a
// constant false or NULL conjunct replaced by no rows: what is under it is
// never run, as PostgreSQL never runs the input of a gating one-time
// filter. So a subquery there that would fail (more than one row, a
// division by zero) is never evaluated, in WHERE false, HAVING NULL::bool
// or a join ON false alike.
func skipFalse(n Node) Node {
	switch x := n.(type) {
	case *Filter:
		if constantFalse(x.Cond) {
			return &Values{Cols: n.Columns()}
		}
	case *Join:
		if x.Kind == InnerJoin && x.On != nil && constantFalse(x.On) {
			return &Values{Cols: n.Columns()}
		}
	}
	ins := n.Inputs()
	for i, in := range ins {
		ins[i] = skipFalse(in)
	}
	return withInputs(n, ins)
}

// constantFalse reports whether a conjunct of cond is a constant false or
// NULL (the binder folds AND, OR and NOT of constants, see expr.NewAnd).
func constantFalse(cond expr.Expr) bool {
	for _, c := range conjuncts(cond) {
		if k, ok := c.(*expr.Const); ok && (k.V.IsNull() || !k.V.Bool()) {
			return true
		}
	}
	return false
}
