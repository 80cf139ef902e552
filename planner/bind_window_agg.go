package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

// windowAggMarker returns the call the SQL front carries as
// first_value(pg_window_agg(call)) OVER (...): an aggregate TiDB's grammar
// takes no OVER after, or one with FILTER (pg_filter(agg, cond)).
func windowAggMarker(x *ast.WindowFuncExpr) (ast.ExprNode, bool) {
	if len(x.Args) != 1 {
		return nil, false
	}
	f, ok := x.Args[0].(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_window_agg" {
		return nil, false
	}
	return f.Args[0], true
}

// windowAggregate recognizes the aggregate a window call computes, with its
// FILTER condition: TiDB's own (sum(x) OVER w) or one carried by the
// pg_window_agg marker. ok is false for a window function.
func windowAggregate(x *ast.WindowFuncExpr) (call aggCall, filter ast.ExprNode, ok bool, err error) {
	n, marked := windowAggMarker(x)
	if !marked {
		// first_value and last_value with OVER are the window functions,
		// not RisingWave's aggregates of the same names.
		name := lowerASCII(x.Name)
		if !expr.IsAggregate(name) || name == "first_value" || name == "last_value" {
			return aggCall{}, nil, false, nil
		}
		return aggCall{name: name, args: x.Args, distinct: x.Distinct}, nil, true, nil
	}
	if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_filter" {
		n, filter = f.Args[0], f.Args[1]
	}
	call, ok = aggregateCall(n)
	if ok && (call.name == "first_value" || call.name == "last_value") || !ok && filter != nil {
		return call, nil, false, pgerror.New(pgerror.CodeFeatureNotSupported, "FILTER is not implemented for non-aggregate window functions")
	}
	if !ok {
		name := columnName(n)
		return call, nil, false, pgerror.New(pgerror.CodeWrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
	}
	switch {
	case call.distinct:
		return call, nil, false, pgerror.New(pgerror.CodeFeatureNotSupported, "DISTINCT is not implemented for window functions")
	case len(call.order) > 0 && !call.withinGroup:
		return call, nil, false, pgerror.New(pgerror.CodeFeatureNotSupported, "aggregate ORDER BY is not implemented for window functions")
	case call.withinGroup || expr.IsOrderedSet(call.name):
		return call, nil, false, pgerror.New(pgerror.CodeFeatureNotSupported, "OVER is not supported for ordered-set aggregate %s", call.name)
	}
	return call, filter, true, nil
}

// bindWindowAggregate binds an aggregate computed over each row's window
// frame into c; finish names the function to apply to its result ("" for
// none), as for a grouped aggregate.
func (b *Binder) bindWindowAggregate(call aggCall, filter ast.ExprNode, c *windowCall, s *scope) (finish string, err error) {
	star := isCountStar(call.name, call.args, call.distinct)
	var args []expr.Expr
	if !star {
		if args, err = b.bindArgs(call.args, s); err != nil {
			return "", err
		}
	}
	a, finish, err := b.bindAggCall(call, args, star, s)
	if err != nil {
		return "", err
	}
	if filter != nil {
		if a.Filter, err = b.bindBool(filter, s, "FILTER"); err != nil {
			return "", err
		}
	}
	c.fn.Name, c.fn.Args, c.fn.Agg, c.t = a.Name, a.Args, a, a.T
	return finish, nil
}

// enterWindowAgg searches, for v, a window call carrying an aggregate in
// the pg_window_agg marker: its arguments, FILTER and window, but not the
// call itself, which is no aggregate of the query. ok is false for other
// nodes.
func (v *nodeFinder) enterWindowAgg(n ast.Node) (ok bool) {
	x, isWin := n.(*ast.WindowFuncExpr)
	if !isWin {
		return false
	}
	inner, marked := windowAggMarker(x)
	if !marked {
		return false
	}
	if f, ok := inner.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_filter" {
		inner = f.Args[0]
		f.Args[1].Accept(v)
	}
	call, _ := aggregateCall(inner)
	for _, a := range call.args {
		a.Accept(v)
	}
	x.Spec.Accept(v)
	return true
}
