package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// aggCall is an aggregate call as the SQL front carries it.
type aggCall struct {
	name     string
	args     []ast.ExprNode
	distinct bool
	// order are the ORDER BY keys inside the call, marked as sql/parser
	// documents (pg_desc, pg_nulls_first, pg_nulls_last).
	order []ast.ExprNode
}

// aggregateCall recognizes an aggregate call: TiDB's, a generic call of an
// aggregate's name, pg_distinct(agg(args)) or pg_agg_order(call, keys...)
// (see sql/parser).
func aggregateCall(n ast.ExprNode) (aggCall, bool) {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		return aggCall{name: lowerASCII(x.F), args: x.Args, distinct: x.Distinct}, true
	case *ast.FuncCallExpr:
		switch {
		case x.FnName.L == "pg_agg_order":
			c, ok := aggregateCall(x.Args[0])
			c.order = x.Args[1:]
			return c, ok
		case x.FnName.L == "pg_distinct":
			if inner, ok := x.Args[0].(*ast.FuncCallExpr); ok && expr.IsAggregate(inner.FnName.L) {
				return aggCall{name: inner.FnName.L, args: inner.Args, distinct: true}, true
			}
		case expr.IsAggregate(x.FnName.L):
			return aggCall{name: x.FnName.L, args: x.Args}, true
		}
	}
	return aggCall{}, false
}

func (b *Binder) bindAggregate(call aggCall, filter ast.ExprNode, s *scope) (expr.Expr, error) {
	if b.aggForbidden != "" {
		return nil, pgerror.New(pgerror.CodeGroupingError, "aggregate functions are not allowed in %s", b.aggForbidden)
	}
	if b.agg == nil {
		return nil, pgerror.New(pgerror.CodeGroupingError, "aggregate function calls cannot be nested")
	}
	if (call.name == "first_value" || call.name == "last_value") && len(call.order) == 0 {
		// Without ORDER BY they are only PostgreSQL's window functions.
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "window function %s requires an OVER clause", call.name)
	}
	star := isCountStar(call.name, call.args, call.distinct)
	collector, grouping := b.agg, s.grouping
	// A nested aggregate call is an error; the arguments are over the
	// input rows, as are subqueries in them.
	b.agg, s.grouping = nil, nil
	defer func() { b.agg, s.grouping = collector, grouping }()
	defer b.noWindows(pgerror.New(pgerror.CodeGroupingError, "aggregate function calls cannot contain window function calls"))()
	defer b.noSRFs(pgerror.New(pgerror.CodeGroupingError, "aggregate function calls cannot contain set-returning function calls").WithHint(srfHint))()
	var args []expr.Expr
	if !star {
		var err error
		if args, err = b.bindArgs(call.args, s); err != nil {
			return nil, err
		}
	}
	bound := slices.Clone(args) // before NewAgg casts them
	// jsonb_agg(x) is to_jsonb(array_agg(x)), and jsonb_object_agg(k, v)
	// gathers [k, v] pairs the same way: one aggregate state (retractable
	// in views) serves them all.
	finish := ""
	switch call.name {
	case "jsonb_agg":
		call.name, finish = "array_agg", "to_jsonb"
	case "jsonb_object_agg":
		if len(args) != 2 {
			return nil, pgerror.New(pgerror.CodeUndefinedFunction, "function jsonb_object_agg takes a key and a value")
		}
		pair, err := expr.NewFunc("jsonb_build_array", args)
		if err != nil {
			return nil, err
		}
		call.name, finish, args = "array_agg", "jsonb_object_of_pairs", []expr.Expr{pair}
	}
	a, err := expr.NewAgg(call.name, args, call.distinct, star)
	if err != nil {
		return nil, err
	}
	if err := b.bindAggOrder(a, bound, call.order, s); err != nil {
		return nil, err
	}
	if filter != nil {
		b.aggForbidden = "FILTER"
		a.Filter, err = b.bindBool(filter, s, "FILTER")
		b.aggForbidden = ""
		if err != nil {
			return nil, err
		}
	}
	if readsOnlyOuter(a) {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "aggregate functions over columns of an enclosing query only are not supported").
			WithHint("PostgreSQL computes such an aggregate in the enclosing query: move it there.")
	}
	if finish != "" {
		return expr.NewFunc(finish, []expr.Expr{collector.add(a)})
	}
	return collector.add(a), nil
}

// readsOnlyOuter reports whether an aggregate's arguments, ORDER BY keys
// and FILTER read columns, all of them of enclosing queries: PostgreSQL
// computes such an aggregate in the innermost of those queries.
func readsOnlyOuter(a *expr.AggFunc) bool {
	local, outer := false, false
	for _, e := range append(slices.Clone(a.Args), a.Filter) {
		if e == nil {
			continue
		}
		expr.Walk(e, func(x expr.Expr) bool {
			switch x.(type) {
			case *expr.ColRef:
				local = true
			case *expr.OuterRef:
				outer = true
			}
			return true
		})
	}
	return outer && !local
}

// bindAggOrder binds the ORDER BY keys of an aggregate call whose
// arguments bound as args.
func (b *Binder) bindAggOrder(a *expr.AggFunc, args []expr.Expr, keys []ast.ExprNode, s *scope) error {
	exprs := make([]expr.Expr, len(keys))
	order := make([]expr.AggOrder, len(keys))
	for i, k := range keys {
		n, nullsFirst, explicit := unwrapNulls(k)
		if f, ok := n.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_desc" {
			n, order[i].Desc = f.Args[0], true
		}
		order[i].NullsFirst = order[i].Desc
		if explicit {
			order[i].NullsFirst = nullsFirst
		}
		e, err := b.bindExpr(n, s)
		if err != nil {
			return err
		}
		if e, err = b.coerce(e, types.TText); err != nil {
			return err
		}
		if a.Distinct && !slices.ContainsFunc(args, func(x expr.Expr) bool { return expr.Equal(x, e) }) {
			return pgerror.New(pgerror.CodeInvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
		}
		exprs[i] = e
	}
	a.WithOrder(exprs, order)
	return nil
}
