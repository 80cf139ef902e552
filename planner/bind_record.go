package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// rowCtorFields returns the fields of a row constructor, ROW(...) or a
// parenthesized list (a, b), and false for any other expression.
func rowCtorFields(n ast.ExprNode) ([]ast.ExprNode, bool) {
	switch x := unparen(n).(type) {
	case *ast.RowExpr:
		return x.Values, true
	case *ast.FuncCallExpr:
		if x.FnName.L == "pg_row" {
			return x.Args, true
		}
	}
	return nil, false
}

// bindRow binds a row constructor into an anonymous record; its untyped
// literals become text, as PostgreSQL resolves them.
func (b *Binder) bindRow(fields []ast.ExprNode, s *scope) (expr.Expr, error) {
	args, err := b.bindArgs(fields, s)
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		if a.Type().Family == types.Unknown {
			if args[i], err = b.coerce(a, types.TText); err != nil {
				return nil, err
			}
		}
	}
	return expr.NewRowCtor(args, nil), nil
}

// bindFieldSel binds pg_field(x, 'name'), the field selection (x).name,
// and pg_field(x, i), field i as (x).* expands it. (x).* is only allowed
// where the select list expands it.
func (b *Binder) bindFieldSel(x *ast.FuncCallExpr, s *scope) (expr.Expr, error) {
	field := x.Args[1].(*parser.Literal).Value
	if field.Kind() == types.KindString && field.Str() == "*" {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "row expansion via \"*\" is not supported here")
	}
	rec, err := b.bindExpr(x.Args[0], s)
	if err != nil {
		return nil, err
	}
	if field.Kind() == types.KindInt {
		es, _ := expandFields(rec)
		return es[field.Int()], nil
	}
	return expr.NewFieldSel(rec, field.Str())
}

// fieldStar returns x of the select-list item (x).*.
func fieldStar(n ast.ExprNode) (ast.ExprNode, bool) {
	f, ok := n.(*ast.FuncCallExpr)
	if !ok || f.FnName.L != "pg_field" {
		return nil, false
	}
	lit, ok := f.Args[1].(*parser.Literal)
	return f.Args[0], ok && lit.Value.Str() == "*"
}

// expandFieldStar expands (x).* into (x).f1, (x).f2, ... for the fields
// of x's record type, which a trial binding of x finds (x is bound again
// per field, as PostgreSQL evaluates it per field).
func (b *Binder) expandFieldStar(x ast.ExprNode, s *scope) ([]ast.ExprNode, []string, error) {
	saved := b.srf
	b.srf = &srfCollector{}
	rec, err := b.bindExpr(x, s)
	b.srf = saved
	if err != nil {
		return nil, nil, err
	}
	if rec.Type().Family != types.Record {
		return nil, nil, pgerror.New(pgerror.CodeWrongObjectType, "type %s is not composite", rec.Type())
	}
	_, names := expandFields(rec)
	fields := make([]ast.ExprNode, len(names))
	for i := range names {
		// The field goes by its position: ROW(...)'s have no names.
		fields[i] = &ast.FuncCallExpr{FnName: ast.NewCIStr("pg_field"), Args: []ast.ExprNode{x, &parser.Literal{Value: types.NewInt(int64(i)), Type: types.TInt4}}}
	}
	return fields, names, nil
}

// expandFields returns the fields of the record rec with their names, for
// (x).* in a select list and for record-returning functions in FROM.
func expandFields(rec expr.Expr) ([]expr.Expr, []string) {
	fs := rec.Type().Fields()
	es, names := make([]expr.Expr, len(fs)), make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
		if r, ok := rec.(*expr.RowCtor); ok {
			es[i] = r.Fields[i]
		} else {
			es[i] = &expr.FieldSel{E: rec, Idx: i}
		}
	}
	return es, names
}

// bindRowCompare binds a comparison of two row constructors as PostgreSQL
// does, field by field: = is every field equal, <> any unequal, and the
// orderings compare lexicographically (a1 < b1 OR (a1 = b1 AND (a2 <
// b2 ...))), so a NULL decides the result only where it is reached. IS
// [NOT] DISTINCT FROM (op opcode.NullEQ, not negated here) compares
// every field with <=>.
func (b *Binder) bindRowCompare(op opcode.Op, l, r []ast.ExprNode, s *scope) (expr.Expr, error) {
	if len(l) != len(r) {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "unequal number of entries in row expressions")
	}
	if len(l) == 0 {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot compare rows of zero length")
	}
	pair := func(op opcode.Op, i int) (expr.Expr, error) {
		return b.bindExpr(&ast.BinaryOperationExpr{Op: op, L: l[i], R: r[i]}, s)
	}
	var terms []expr.Expr
	switch op {
	case opcode.EQ, opcode.NE, opcode.NullEQ:
		for i := range l {
			e, err := pair(op, i)
			if err != nil {
				return nil, err
			}
			terms = append(terms, e)
		}
		if op == opcode.NE {
			return expr.NewOr(terms...), nil
		}
		return expr.NewAnd(terms...), nil
	}
	strict := map[opcode.Op]opcode.Op{opcode.LT: opcode.LT, opcode.LE: opcode.LT, opcode.GT: opcode.GT, opcode.GE: opcode.GT}[op]
	if strict == 0 {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "operator %s is not supported for row expressions", op)
	}
	last := len(l) - 1
	e, err := pair(op, last)
	if err != nil {
		return nil, err
	}
	for i := last - 1; i >= 0; i-- {
		less, err := pair(strict, i)
		if err != nil {
			return nil, err
		}
		eq, err := pair(opcode.EQ, i)
		if err != nil {
			return nil, err
		}
		e = expr.NewOr(less, expr.NewAnd(eq, e))
	}
	return e, nil
}

// bindRowIn binds (a, b) [NOT] IN ((1, 2), (3, 4)): any row equal.
func (b *Binder) bindRowIn(l []ast.ExprNode, list []ast.ExprNode, not bool, s *scope) (expr.Expr, error) {
	var terms []expr.Expr
	for _, item := range list {
		r, ok := rowCtorFields(item)
		if !ok {
			r = []ast.ExprNode{item}
		}
		e, err := b.bindRowCompare(opcode.EQ, l, r, s)
		if err != nil {
			return nil, err
		}
		terms = append(terms, e)
	}
	e := expr.NewOr(terms...)
	if not {
		return &expr.Not{E: e}, nil
	}
	return e, nil
}

// wholeRow binds a reference to a FROM item by its name alone (SELECT t
// FROM t, to_jsonb(t)): a record of its visible columns, named as they
// are.
func (s *scope) wholeRow(table string) (expr.Expr, error) {
	for cur := s; cur != nil; cur = cur.parent {
		var fields []expr.Expr
		var names []string
		for _, c := range cur.cols {
			if c.Table != table || c.Hidden {
				continue
			}
			e, err := s.resolve(table, c.Name)
			if err != nil {
				return nil, err
			}
			fields, names = append(fields, e), append(names, c.Name)
		}
		if fields != nil {
			return expr.NewRowCtor(fields, names), nil
		}
	}
	return nil, pgerror.New(pgerror.CodeUndefinedColumn, "column %q does not exist", table)
}

// CheckStorable refuses columns a view cannot have: PostgreSQL's
// pseudo-type record (42P16).
func CheckStorable(cols []Column) error {
	for _, c := range cols {
		if c.T.Family == types.Record {
			return pgerror.New(pgerror.CodeInvalidTableDefinition, "column %q has pseudo-type record", c.Name)
		}
	}
	return nil
}
