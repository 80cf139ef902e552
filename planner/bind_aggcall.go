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
	// order are the ORDER BY keys inside the call, or of its WITHIN GROUP,
	// marked as sql/parser documents (pg_desc, pg_nulls_first,
	// pg_nulls_last).
	order       []ast.ExprNode
	withinGroup bool
}

// aggregateCall recognizes an aggregate call: TiDB's, a generic call of an
// aggregate's name, pg_distinct(agg(args)), pg_agg_order(call, keys...) or
// pg_within_group(call, keys...) (see sql/parser).
func aggregateCall(n ast.ExprNode) (aggCall, bool) {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		return aggCall{name: lowerASCII(x.F), args: x.Args, distinct: x.Distinct}, true
	case *ast.FuncCallExpr:
		switch {
		case x.FnName.L == "pg_agg_order" || x.FnName.L == "pg_within_group":
			c, ok := aggregateCall(x.Args[0])
			c.order, c.withinGroup = x.Args[1:], x.FnName.L == "pg_within_group"
			return c, ok
		case x.FnName.L == "pg_distinct":
			c, ok := aggregateCall(x.Args[0])
			c.distinct = true
			return c, ok
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
	var a *expr.AggFunc
	finish := ""
	var err error
	if call.withinGroup || expr.IsOrderedSet(call.name) {
		a, err = b.bindOrderedSet(call, args, collector, s)
	} else {
		a, finish, err = b.bindAggCall(call, args, star, s)
	}
	if err != nil {
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

// bindAggCall resolves an aggregate call without WITHIN GROUP whose
// arguments bound as args; finish names the function to apply to its
// result ("" for none).
func (b *Binder) bindAggCall(call aggCall, args []expr.Expr, star bool, s *scope) (a *expr.AggFunc, finish string, err error) {
	bound := slices.Clone(args) // before NewAgg casts them
	// jsonb_agg(x) is to_jsonb(array_agg(x)), and jsonb_object_agg(k, v)
	// gathers [k, v] pairs the same way: one aggregate state (retractable
	// in views) serves them all.
	switch call.name {
	case "jsonb_agg":
		call.name, finish = "array_agg", "to_jsonb"
	case "jsonb_object_agg":
		if len(args) != 2 {
			return nil, "", pgerror.New(pgerror.CodeUndefinedFunction, "function jsonb_object_agg takes a key and a value")
		}
		pair, err := expr.NewFunc("jsonb_build_array", args)
		if err != nil {
			return nil, "", err
		}
		call.name, finish, args = "array_agg", "jsonb_object_of_pairs", []expr.Expr{pair}
	}
	if a, err = expr.NewAgg(call.name, args, call.distinct, star); err != nil {
		return nil, "", err
	}
	return a, finish, b.bindAggOrder(a, bound, call.order, s)
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
	exprs, order, err := b.bindAggKeys(keys, s)
	if err != nil {
		return err
	}
	for i, e := range exprs {
		if exprs[i], err = b.coerce(e, types.TText); err != nil {
			return err
		}
		if a.Distinct && !slices.ContainsFunc(args, func(x expr.Expr) bool { return expr.Equal(x, exprs[i]) }) {
			return pgerror.New(pgerror.CodeInvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
		}
	}
	a.WithOrder(exprs, order)
	return nil
}

// bindAggKeys binds the ORDER BY keys of an aggregate call or of its
// WITHIN GROUP, with their directions.
func (b *Binder) bindAggKeys(keys []ast.ExprNode, s *scope) ([]expr.Expr, []expr.AggOrder, error) {
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
		var err error
		if exprs[i], err = b.bindExpr(n, s); err != nil {
			return nil, nil, err
		}
	}
	return exprs, order, nil
}

// bindOrderedSet binds a call with WITHIN GROUP, whose direct arguments
// bound as direct, or a call of an ordered-set aggregate without it
// (errors, as in PostgreSQL). The direct arguments must use only grouped
// columns: they are evaluated per row, the same for all rows of a group.
func (b *Binder) bindOrderedSet(call aggCall, direct []expr.Expr, collector *aggCollector, s *scope) (*expr.AggFunc, error) {
	if !call.withinGroup {
		// Would it resolve as WITHIN GROUP of its last argument?
		if len(direct) == 0 {
			return nil, expr.NoSuchFunction(call.name, nil)
		}
		if _, err := expr.NewOrderedSetAgg(call.name, direct[:len(direct)-1], direct[len(direct)-1], expr.AggOrder{}); err != nil {
			return nil, err
		}
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "WITHIN GROUP is required for ordered-set aggregate %s", call.name)
	}
	keys, order, err := b.bindAggKeys(call.order, s)
	if err != nil {
		return nil, err
	}
	if !expr.IsOrderedSet(call.name) {
		if _, err := expr.NewAgg(call.name, append(direct, keys...), false, false); err != nil {
			return nil, err
		}
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "%s is not an ordered-set aggregate, so it cannot have WITHIN GROUP", call.name)
	}
	if len(keys) != 1 {
		return nil, expr.NoSuchFunction(call.name, append(direct, keys...))
	}
	for _, d := range direct {
		if _, err := collector.rewrite(d); err != nil {
			if e := pgerror.From(err); e.Code == pgerror.CodeGroupingError {
				return nil, e.WithDetail("Direct arguments of an ordered-set aggregate must use only grouped columns.")
			}
			return nil, err
		}
	}
	return expr.NewOrderedSetAgg(call.name, direct, keys[0], order[0])
}
