package planner

import (
	"slices"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// aggCollector gathers the GROUP BY expressions and aggregate calls of one
// SELECT, then rewrites the select list, HAVING and ORDER BY over the
// Aggregate node's output (group values first, with grouping sets the
// set's number next, then aggregate results).
type aggCollector struct {
	group []expr.Expr
	// sets are the grouping sets, as indexes into group (nil: one set of
	// all of group).
	sets [][]int
	aggs []*expr.AggFunc
}

// aggRef stands for aggregate i until the rewrite replaces it.
type aggRef struct {
	idx int
	t   types.T
}

func (a *aggRef) Type() types.T                      { return a.t }
func (a *aggRef) String() string                     { return "agg#" + strconv.Itoa(a.idx) }
func (a *aggRef) Children() []expr.Expr              { return nil }
func (a *aggRef) WithChildren([]expr.Expr) expr.Expr { return a }
func (a *aggRef) Eval(*expr.Ctx, []types.Datum) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.CodeInternal, "unplanned aggregate")
}

func (c *aggCollector) add(a *expr.AggFunc) expr.Expr {
	s := a.String()
	for i, x := range c.aggs {
		if x.String() == s {
			return &aggRef{idx: i, t: x.T}
		}
	}
	c.aggs = append(c.aggs, a)
	return &aggRef{idx: len(c.aggs) - 1, t: a.T}
}

func (c *aggCollector) plan(input Node, s *scope) (*Aggregate, error) {
	agg := &Aggregate{Input: input, Group: c.group, Aggs: c.aggs}
	for _, g := range c.group {
		col := Column{Name: "?column?", T: g.Type()}
		if cr, ok := g.(*expr.ColRef); ok {
			col = s.cols[cr.Idx]
			col.Hidden = false
		}
		agg.Cols = append(agg.Cols, col)
	}
	if c.sets != nil {
		x, group := c.expand(input)
		agg.Input, agg.Group = x, group
		agg.Cols = append(agg.Cols, x.Cols[len(x.Cols)-1])
		for i, set := range c.sets {
			if len(set) == 0 {
				agg.EmptySets = append(agg.EmptySets, i)
			}
		}
	}
	for _, a := range c.aggs {
		agg.Cols = append(agg.Cols, Column{Name: a.Name, T: a.T})
	}
	return agg, nil
}

// groupColumn returns the output column of the Aggregate that holds input
// column i, grouped by itself, or -1 when it is not grouped.
func (c *aggCollector) groupColumn(i int) int {
	for j, g := range c.group {
		if cr, ok := g.(*expr.ColRef); ok && cr.Idx == i {
			return j
		}
	}
	return -1
}

// rewrite maps an expression bound over the Aggregate's input onto its
// output: grouped expressions and aggregates become column references; any
// other input column is an error, as in PostgreSQL. A constant is a
// grouped column (NULL in the grouping sets without it) only as a whole
// expression, the select-list entry GROUP BY named.
func (c *aggCollector) rewrite(e expr.Expr) (expr.Expr, error) {
	return expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		switch r := x.(type) {
		case *aggRef:
			idx := len(c.group) + r.idx
			if c.sets != nil {
				idx++
			}
			return &expr.ColRef{Idx: idx, T: r.t}, true, nil
		case *groupingRef:
			return c.grouping(r, &expr.ColRef{Idx: len(c.group), T: types.TInt8}), true, nil
		}
		if _, ok := x.(*expr.Const); ok && x != e {
			return x, true, nil
		}
		for i, g := range c.group {
			if expr.Equal(g, x) {
				return &expr.ColRef{Idx: i, T: g.Type()}, true, nil
			}
		}
		if cr, ok := x.(*expr.ColRef); ok {
			return nil, false, pgerror.New(pgerror.CodeGroupingError,
				"column %q must appear in the GROUP BY clause or be used in an aggregate function", cr.Name)
		}
		return nil, false, nil
	})
}

func aliasField(fl *ast.FieldList, name string) ast.ExprNode {
	for _, f := range fl.Fields {
		if f.AsName.O == name {
			return f.Expr
		}
	}
	return nil
}

// ordinal reports whether n is an integer literal (a column position).
func ordinal(n ast.ExprNode) (int, bool) {
	if p, ok := n.(*ast.PositionExpr); ok && p.P == nil {
		return p.N, true
	}
	lit, ok := n.(*parser.Literal)
	if !ok || !lit.Type.IsInteger() {
		return 0, false
	}
	return int(lit.Value.Int()), true
}

// hasAggregate reports whether the select list, HAVING or ORDER BY of sel
// calls an aggregate function or GROUPING (outside nested subqueries).
func hasAggregate(sel *ast.SelectStmt) bool {
	v := &nodeFinder{match: func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AggregateFuncExpr:
			return true
		case *ast.FuncCallExpr:
			return expr.IsAggregate(x.FnName.L) || x.FnName.L == "grouping"
		}
		return false
	}}
	for _, f := range sel.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if sel.Having != nil {
		sel.Having.Expr.Accept(v)
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	return v.found
}

// nodeFinder looks for a node that match accepts, outside nested
// subqueries.
type nodeFinder struct {
	match func(ast.Node) bool
	found bool
}

func (v *nodeFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SubqueryExpr); ok || v.found {
		return n, true
	}
	if v.match(n) {
		v.found = true
		return n, true
	}
	return n, v.enterWindowAgg(n)
}

func (v *nodeFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// orderBy is the bound ORDER BY: keys over the projection, plus the
// expressions it needs beyond the select list.
type orderBy struct {
	keys  []SortKey
	extra []expr.Expr
}

// bindOrderBy binds ORDER BY items: ordinals, output-column names, then
// expressions over the input.
func (b *Binder) bindOrderBy(ob *ast.OrderByClause, s *scope, names []string, outputs []expr.Expr, distinct bool) (orderBy, error) {
	var res orderBy
	if ob == nil {
		return res, nil
	}
	return res, b.bindSortItems(&res, ob.Items, "ORDER BY", s, names, outputs, distinct)
}

// bindSortItems binds the items of clause (ORDER BY, SELECT DISTINCT ON)
// as bindOrderBy does, appending to res; an expression res already
// computes beyond the select list is not computed twice.
func (b *Binder) bindSortItems(res *orderBy, items []*ast.ByItem, clause string, s *scope, names []string, outputs []expr.Expr, distinct bool) error {
	for _, item := range items {
		n, nullsFirst, explicit := unwrapNulls(item.Expr)
		key := SortKey{Desc: item.Desc, NullsFirst: item.Desc}
		if explicit {
			key.NullsFirst = nullsFirst
		}
		col := -1
		if pos, ok := ordinal(n); ok {
			if pos < 1 || pos > len(outputs) {
				return pgerror.New(pgerror.CodeInvalidColumnReference, "%s position %d is not in select list", clause, pos)
			}
			col = pos - 1
		} else if c, ok := n.(*ast.ColumnNameExpr); ok && c.Name.Table.O == "" {
			for i, name := range names {
				if name == c.Name.Name.O {
					col = i
					break
				}
			}
		}
		if col < 0 {
			e, err := b.bindExpr(n, s)
			if err != nil {
				return err
			}
			for i, o := range append(slices.Clip(outputs), res.extra...) {
				if expr.Equal(o, e) {
					col = i
					break
				}
			}
			if col < 0 {
				if distinct {
					return pgerror.New(pgerror.CodeInvalidColumnReference, "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
				}
				if e, err = b.coerce(e, types.TText); err != nil {
					return err
				}
				col = len(outputs) + len(res.extra)
				res.extra = append(res.extra, e)
			}
		}
		key.Col = col
		res.keys = append(res.keys, key)
	}
	return nil
}

// unwrapNulls strips the pg_nulls_first/pg_nulls_last markers the SQL front
// puts around ORDER BY items with NULLS FIRST/LAST.
func unwrapNulls(n ast.ExprNode) (inner ast.ExprNode, nullsFirst, explicit bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && len(f.Args) == 1 {
		switch f.FnName.L {
		case "pg_nulls_first":
			return f.Args[0], true, true
		case "pg_nulls_last":
			return f.Args[0], false, true
		}
	}
	return n, false, false
}
