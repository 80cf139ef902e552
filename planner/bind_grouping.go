package planner

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// PostgreSQL's limits on grouping sets.
const (
	maxGroupingSets = 4096
	maxCubeItems    = 12
	maxGroupingArgs = 31
)

// groupingBinder binds the elements of a GROUP BY list (as sql/parser
// marks ROLLUP, CUBE, GROUPING SETS and parenthesized sets): each grouping
// expression once, and each grouping set as the sorted indexes of its
// expressions.
type groupingBinder struct {
	b      *Binder
	sel    *ast.SelectStmt
	fields []ast.ExprNode
	s      *scope
	exprs  []expr.Expr
}

// bindGroupBy binds GROUP BY: its grouping expressions and, when it has
// more than one grouping set, the sets as indexes into them (nil: one set
// of all of them, a plain GROUP BY). The top-level elements multiply (a,
// ROLLUP (b) is (a, b), (a)); duplicate sets stay unless GROUP BY
// DISTINCT, as in PostgreSQL.
func (b *Binder) bindGroupBy(sel *ast.SelectStmt, fields []ast.ExprNode, s *scope) ([]expr.Expr, [][]int, error) {
	if sel.GroupBy == nil {
		return nil, nil, nil
	}
	saved := b.aggForbidden
	b.aggForbidden = "GROUP BY"
	defer func() { b.aggForbidden = saved }()
	defer b.noWindows(windowsNotAllowed("GROUP BY"))()
	defer b.noSRFs(pgerror.New(pgerror.CodeFeatureNotSupported, "set-returning functions in GROUP BY are not supported"))()
	items := make([]ast.ExprNode, len(sel.GroupBy.Items))
	for i, it := range sel.GroupBy.Items {
		items[i] = it.Expr
	}
	distinct := false
	if f, ok := items[0].(*ast.FuncCallExpr); ok && f.FnName.L == "pg_group_distinct" {
		distinct, items = true, f.Args
	}
	g := &groupingBinder{b: b, sel: sel, fields: fields, s: s}
	sets := [][]int{nil}
	for _, n := range items {
		el, err := g.element(n)
		if err != nil {
			return nil, nil, err
		}
		if len(sets)*len(el) > maxGroupingSets {
			return nil, nil, pgerror.New(pgerror.CodeStatementTooComplex, "too many grouping sets present (maximum %d)", maxGroupingSets)
		}
		product := make([][]int, 0, len(sets)*len(el))
		for _, x := range sets {
			for _, y := range el {
				product = append(product, unionSets(x, y))
			}
		}
		sets = product
	}
	if distinct {
		var kept [][]int
		for _, x := range sets {
			if !slices.ContainsFunc(kept, func(y []int) bool { return slices.Equal(x, y) }) {
				kept = append(kept, x)
			}
		}
		sets = kept
	}
	if len(sets) == 1 {
		return g.exprs, nil, nil
	}
	return g.exprs, sets, nil
}

// element returns the grouping sets of one GROUP BY element.
func (g *groupingBinder) element(n ast.ExprNode) ([][]int, error) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok {
		i, err := g.expr(n)
		return [][]int{{i}}, err
	}
	switch f.FnName.L {
	case "pg_set":
		set, err := g.set(f.Args)
		return [][]int{set}, err
	case "pg_rollup":
		items, err := g.items(f.Args)
		if err != nil {
			return nil, err
		}
		sets := make([][]int, 0, len(items)+1)
		for k := len(items); k >= 0; k-- {
			sets = append(sets, unionSets(items[:k]...))
		}
		return sets, nil
	case "pg_cube":
		if len(f.Args) > maxCubeItems {
			return nil, pgerror.New(pgerror.CodeTooManyColumns, "CUBE is limited to %d elements", maxCubeItems)
		}
		items, err := g.items(f.Args)
		if err != nil {
			return nil, err
		}
		sets := make([][]int, 0, 1<<len(items))
		for m := 1<<len(items) - 1; m >= 0; m-- {
			var set []int
			for k, item := range items {
				if m&(1<<(len(items)-1-k)) != 0 {
					set = unionSets(set, item)
				}
			}
			sets = append(sets, set)
		}
		return sets, nil
	case "pg_grouping_sets":
		var sets [][]int
		for _, a := range f.Args {
			el, err := g.element(a)
			if err != nil {
				return nil, err
			}
			sets = append(sets, el...)
		}
		return sets, nil
	}
	i, err := g.expr(n)
	return [][]int{{i}}, err
}

// items returns the sets of the items of a ROLLUP or CUBE: an expression
// or a parenthesized list of them.
func (g *groupingBinder) items(args []ast.ExprNode) ([][]int, error) {
	out := make([][]int, len(args))
	for k, a := range args {
		if f, ok := a.(*ast.FuncCallExpr); ok && f.FnName.L == "pg_set" {
			var err error
			if out[k], err = g.set(f.Args); err != nil {
				return nil, err
			}
			continue
		}
		i, err := g.expr(a)
		if err != nil {
			return nil, err
		}
		out[k] = []int{i}
	}
	return out, nil
}

// set returns the set of the expressions args.
func (g *groupingBinder) set(args []ast.ExprNode) ([]int, error) {
	var set []int
	for _, a := range args {
		i, err := g.expr(a)
		if err != nil {
			return nil, err
		}
		set = unionSets(set, []int{i})
	}
	return set, nil
}

// expr binds one grouping expression, an input column or expression, else
// an output-column ordinal or alias, as PostgreSQL does, and returns its
// index.
func (g *groupingBinder) expr(n ast.ExprNode) (int, error) {
	if pos, ok := ordinal(n); ok {
		if pos < 1 || pos > len(g.fields) {
			return 0, pgerror.New(pgerror.CodeInvalidColumnReference, "GROUP BY position %d is not in select list", pos)
		}
		n = g.fields[pos-1]
	} else if col, ok := n.(*ast.ColumnNameExpr); ok && col.Name.Table.O == "" {
		if i, _ := g.s.lookup("", col.Name.Name.O); i < 0 {
			if f := aliasField(g.sel.Fields, col.Name.Name.O); f != nil {
				n = f
			}
		}
	}
	e, err := g.b.bindExpr(n, g.s)
	if err != nil {
		return 0, err
	}
	if e, err = g.b.coerce(e, types.TText); err != nil {
		return 0, err
	}
	if i := slices.IndexFunc(g.exprs, func(x expr.Expr) bool { return expr.Equal(x, e) }); i >= 0 {
		return i, nil
	}
	g.exprs = append(g.exprs, e)
	return len(g.exprs) - 1, nil
}

// unionSets returns the sorted union of sets.
func unionSets(sets ...[]int) []int {
	var out []int
	for _, s := range sets {
		out = append(out, s...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// groupingRef stands for GROUPING(args) of the query level being bound,
// args being indexes of its grouping expressions, until the rewrite
// computes it from the row's grouping set.
type groupingRef struct {
	args []int
	text string
}

func (r *groupingRef) Type() types.T                      { return types.TInt4 }
func (r *groupingRef) String() string                     { return "grouping(" + r.text + ")" }
func (r *groupingRef) Children() []expr.Expr              { return nil }
func (r *groupingRef) WithChildren([]expr.Expr) expr.Expr { return r }
func (r *groupingRef) Eval(*expr.Ctx, []types.Datum) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.CodeInternal, "unplanned GROUPING")
}

// bindGrouping binds GROUPING(args). Its arguments must be grouping
// expressions of the query level they belong to: this one, or, for outer
// columns in a subquery, the enclosing grouped query's.
func (b *Binder) bindGrouping(x *ast.FuncCallExpr, s *scope) (expr.Expr, error) {
	if len(x.Args) > maxGroupingArgs {
		return nil, pgerror.New(pgerror.CodeTooManyArguments, "GROUPING must have fewer than %d arguments", maxGroupingArgs+1)
	}
	collector := b.agg
	b.agg = nil
	args, err := b.bindArgs(x.Args, s)
	b.agg = collector
	if err != nil {
		return nil, err
	}
	if b.aggForbidden != "" {
		return nil, pgerror.New(pgerror.CodeGroupingError, "grouping operations are not allowed in %s", b.aggForbidden)
	}
	text := make([]string, len(args))
	for i, a := range args {
		text[i] = a.String()
	}
	ref := &groupingRef{args: make([]int, len(args)), text: strings.Join(text, ", ")}
	if outer, level := outerGrouping(args, s); outer != nil {
		for i, a := range args {
			ref.args[i] = a.(*expr.OuterRef).Idx
		}
		return outer.grouping(ref, &expr.OuterRef{Level: level, Idx: len(outer.group), T: types.TInt8}), nil
	}
	if collector == nil {
		return nil, pgerror.New(pgerror.CodeGroupingError, "aggregate function calls cannot be nested")
	}
	for i, a := range args {
		if ref.args[i] = slices.IndexFunc(collector.group, func(g expr.Expr) bool { return expr.Equal(g, a) }); ref.args[i] < 0 {
			return nil, pgerror.New(pgerror.CodeGroupingError, "arguments to GROUPING must be grouping expressions of the associated query level")
		}
	}
	return ref, nil
}

// outerGrouping returns the aggregation of the enclosing query that the
// arguments of a GROUPING call belong to, with its level, when they are
// all its grouped columns (outer references to its output); else nil.
func outerGrouping(args []expr.Expr, s *scope) (*aggCollector, int) {
	level := 0
	for _, a := range args {
		r, ok := a.(*expr.OuterRef)
		if !ok || level != 0 && r.Level != level {
			return nil, 0
		}
		level = r.Level
	}
	cur := s
	for range level {
		cur = cur.parent
	}
	if level == 0 || cur.grouping == nil {
		return nil, 0
	}
	return cur.grouping, level
}

// grouping returns the value of GROUPING(ref.args) given the expression
// set of the row's grouping set number: 0 without grouping sets, else a
// bit per argument, the first the highest, set where the row's set does
// not group by the argument.
func (c *aggCollector) grouping(ref *groupingRef, set expr.Expr) expr.Expr {
	if c.sets == nil {
		return expr.NewConst(types.NewInt(0), types.TInt4)
	}
	masks := make([]int64, len(c.sets))
	for n, s := range c.sets {
		for _, a := range ref.args {
			masks[n] <<= 1
			if !slices.Contains(s, a) {
				masks[n] |= 1
			}
		}
	}
	return &expr.Grouping{Set: set, Masks: masks}
}

// expand computes the grouping sets of input: it appends the grouping
// expressions to input's columns, and an Expand emits each row once per
// set, those it does not group by NULL. It returns the Expand and the
// group key over it: the expressions' columns, then the set's number.
func (c *aggCollector) expand(input Node) (*Expand, []expr.Expr) {
	n := len(input.Columns())
	in := appendColumns(input, c.group)
	x := &Expand{Input: in, Nulled: make([][]int, len(c.sets)), Cols: append(in.Columns(), Column{Name: "grouping set", T: types.TInt8, Hidden: true})}
	for i, set := range c.sets {
		for k := range c.group {
			if !slices.Contains(set, k) {
				x.Nulled[i] = append(x.Nulled[i], n+k)
			}
		}
	}
	group := make([]expr.Expr, 0, len(c.group)+1)
	for k := 0; k <= len(c.group); k++ {
		group = append(group, &expr.ColRef{Idx: n + k, T: x.Cols[n+k].T})
	}
	return x, group
}
