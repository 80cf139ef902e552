package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// bindDerived binds a FROM item that is a subquery or, as the SQL front
// carries it, a function call, with its alias and column aliases. A
// LATERAL item sees the columns of the FROM items to its left (left, nil
// for the first item) as its innermost outer row; lateral reports whether
// it reads them (or anything outside), which makes its join an Apply.
func (b *Binder) bindDerived(ts *ast.TableSource, left []Column, s *scope) (n Node, lateral bool, err error) {
	outer, info := s.parent, s.sub
	if ts.Lateral && left != nil {
		outer, info = &scope{cols: left, parent: s.parent, depth: s.depth, sub: s.sub}, &subqueryInfo{}
	}
	alias := ts.AsName.O
	var node Node
	if call, ordinality, ok := tableFunctionCall(ts.Source); ok {
		node, err = b.bindTableFunction(call, ordinality, alias, outer.child(nil, info))
	} else {
		node, err = b.bindQuery(ts.Source, outer, info)
	}
	if err != nil {
		return nil, false, err
	}
	cols := node.Columns()
	if len(ts.ColumnNames) > len(cols) {
		return nil, false, pgerror.New(pgerror.CodeInvalidColumnReference, "table %q has %d columns available but %d columns specified", alias, len(cols), len(ts.ColumnNames))
	}
	if len(ts.ColumnNames) > 0 {
		cols = append([]Column(nil), cols...)
		for i, name := range ts.ColumnNames {
			cols[i].Name = name.O
		}
	}
	return requalify(node, cols, alias), info != s.sub && info.correlated, nil
}

// bindApply plans a join whose right item reads the left one's columns
// as an Apply.
func (b *Binder) bindApply(j *ast.Join, join *Join, js *scope) (Node, error) {
	if join.Kind != InnerJoin && join.Kind != LeftJoin {
		return nil, pgerror.New(pgerror.CodeInvalidColumnReference, "invalid reference to a FROM-clause entry from a LATERAL item").
			WithDetail("The combining JOIN type must be INNER or LEFT for a LATERAL reference.")
	}
	if _, ok := joinMarker(j); ok || len(j.Using) > 0 || j.NaturalJoin {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "USING and NATURAL joins with a LATERAL item that reads the items to its left are not supported")
	}
	a := &Apply{Kind: join.Kind, L: join.L, R: join.R}
	if j.On != nil {
		var err error
		if a.On, err = b.bindCondition(j.On.Expr, js, "JOIN/ON"); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// tableFunctionCall recognizes the SQL front's form of a function call in
// FROM, SELECT pg_table_function(call [, 'ordinality']).
func tableFunctionCall(n ast.ResultSetNode) (call ast.ExprNode, ordinality, ok bool) {
	sel, isSel := n.(*ast.SelectStmt)
	if !isSel || sel.From != nil || sel.Fields == nil || len(sel.Fields.Fields) != 1 {
		return nil, false, false
	}
	f, isCall := sel.Fields.Fields[0].Expr.(*ast.FuncCallExpr)
	if !isCall || f.FnName.L != "pg_table_function" || len(f.Args) == 0 {
		return nil, false, false
	}
	return f.Args[0], len(f.Args) > 1, true
}

// bindTableFunction binds a function call in FROM over one empty row: a
// set-returning function yields its rows (unnest of several arrays
// yields them side by side), any other function one row. A function of
// one column names it after the alias, as PostgreSQL does.
func (b *Binder) bindTableFunction(call ast.ExprNode, ordinality bool, alias string, s *scope) (Node, error) {
	saved := b.aggForbidden
	b.aggForbidden = "functions in FROM"
	defer func() { b.aggForbidden = saved }()
	defer b.noWindows(windowsNotAllowed("functions in FROM"))()
	defer b.noSRFs(pgerror.New(pgerror.CodeFeatureNotSupported, "set-returning functions must appear at top level of FROM"))()
	one := &Values{Rows: [][]expr.Expr{{}}}
	ordCol := Column{Name: "ordinality", T: types.TInt8}
	f, isCall := call.(*ast.FuncCallExpr)
	if isCall && f.FnName.L == "tumble" {
		return b.bindTumble(f, s)
	}
	if isCall && f.FnName.L == "hop" {
		return b.bindHop(f, s)
	}
	if !isCall || !expr.IsSetReturning(f.FnName.L) {
		e, err := b.bindExpr(call, s)
		if err != nil {
			return nil, err
		}
		if e, err = b.coerce(e, types.TText); err != nil {
			return nil, err
		}
		p := &Project{Input: one, Exprs: []expr.Expr{e}, Cols: []Column{{Name: alias, T: e.Type()}}}
		if ordinality {
			p.Exprs, p.Cols = append(p.Exprs, expr.NewConst(types.NewInt(1), types.TInt8)), append(p.Cols, ordCol)
		}
		return p, nil
	}
	args, err := b.bindArgs(f.Args, s)
	if err != nil {
		return nil, err
	}
	calls := [][]expr.Expr{args}
	if f.FnName.L == "unnest" && len(args) > 1 {
		calls = calls[:0]
		for _, a := range args {
			calls = append(calls, []expr.Expr{a})
		}
	}
	ps := &ProjectSet{Input: one, Ordinality: ordinality}
	for _, a := range calls {
		sf, err := b.newSetFunc(f.FnName.L, a)
		if err != nil {
			return nil, err
		}
		name := sf.Name
		if out, ok := expr.SetOutName(sf.Name); ok {
			name = out
		} else if len(calls) == 1 {
			name = alias
		}
		ps.Funcs = append(ps.Funcs, sf)
		ps.Cols = append(ps.Cols, Column{Name: name, T: sf.T})
	}
	if ordinality {
		ps.Cols = append(ps.Cols, ordCol)
	}
	return expandRecordColumns(ps), nil
}

// expandRecordColumns puts a projection over in that replaces each column
// holding records by their fields, as a function returning records
// (jsonb_each, _pg_expandarray) gives its fields as columns in FROM.
func expandRecordColumns(in Node) Node {
	cols := in.Columns()
	p := &Project{Input: in}
	expand := false
	for i, c := range cols {
		ref := &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
		if c.T.Family != types.Record || len(c.T.Fields()) == 0 {
			p.Exprs, p.Cols = append(p.Exprs, ref), append(p.Cols, c)
			continue
		}
		expand = true
		es, names := expandFields(ref)
		for j, e := range es {
			p.Exprs, p.Cols = append(p.Exprs, e), append(p.Cols, Column{Name: names[j], T: e.Type()})
		}
	}
	if !expand {
		return in
	}
	return p
}
