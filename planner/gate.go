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

// splitGate splits a condition into its conjuncts that read no column of
// the row (oneTime) and the others (rest), each nil when there are none:
// Build evaluates the former once, before the input runs, as PostgreSQL's
// one-time filter, so that under a false one nothing runs. A constant
// true conjunct stays in rest.
func splitGate(cond expr.Expr) (oneTime, rest expr.Expr) {
	return splitConjuncts(cond, func(c expr.Expr) bool {
		k, ok := c.(*expr.Const)
		return (!ok || k.V.IsNull() || !k.V.Bool()) && readsNoRow(c)
	})
}

// splitConjuncts splits a condition into the AND of its conjuncts that in
// accepts and the AND of the others, each nil when there are none.
func splitConjuncts(cond expr.Expr, in func(expr.Expr) bool) (yes, no expr.Expr) {
	var y, n []expr.Expr
	for _, c := range conjuncts(cond) {
		if in(c) {
			y = append(y, c)
		} else {
			n = append(n, c)
		}
	}
	if len(y) > 0 {
		yes = andOf(y)
	}
	if len(n) > 0 {
		no = andOf(n)
	}
	return yes, no
}

// readsNoRow reports whether e is the same for every row: it reads no
// column, calls no volatile function and has no correlated subquery.
func readsNoRow(e expr.Expr) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		switch x := x.(type) {
		case *expr.ColRef:
			ok = false
		case *expr.Subquery:
			ok = ok && !x.Correlated
		case *expr.Func:
			ok = ok && !x.Volatile()
		}
		return ok
	})
	return ok
}
