package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// existsQuery returns the query an EXISTS runs instead of q, as
// PostgreSQL's simplify_EXISTS_query makes it: without its select list,
// GROUP BY, DISTINCT, ORDER BY and a positive constant LIMIT, none of
// which changes whether it has rows, and which so are never evaluated. A
// query with set operations, aggregates, window functions, set-returning
// functions in its select list, HAVING, OFFSET or another LIMIT is run as
// it is (ok false), and so is one with nothing to drop that evaluates
// anything (EXISTS (SELECT 1 FROM ...)).
func existsQuery(q ast.ResultSetNode) (simple *ast.SelectStmt, ok bool) {
	sel, ok := q.(*ast.SelectStmt)
	if !ok || sel.Kind != ast.SelectStmtKindSelect || sel.Having != nil || hasAggregate(sel) || alreadySimple(sel) {
		return nil, false
	}
	if sel.Limit != nil && (sel.Limit.Offset != nil || !positiveLiteral(sel.Limit.Count)) {
		return nil, false
	}
	f := &nodeFinder{match: func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.WindowFuncExpr:
			return true
		case *ast.FuncCallExpr:
			return expr.IsSetReturning(x.FnName.L)
		}
		return false
	}}
	for _, field := range sel.Fields.Fields {
		if field.Expr != nil {
			field.Expr.Accept(f)
		}
	}
	if sel.OrderBy != nil {
		for _, it := range sel.OrderBy.Items {
			it.Expr.Accept(f)
		}
	}
	if f.found {
		return nil, false
	}
	c := *sel
	one := &parser.Literal{Value: types.NewInt(1), Type: types.TInt4}
	c.Fields = &ast.FieldList{Fields: []*ast.SelectField{{Expr: one}}}
	c.GroupBy, c.OrderBy, c.Limit, c.WindowSpecs, c.Distinct = nil, nil, nil, nil, false
	return &c, true
}

// positiveLiteral reports whether n is an integer literal above zero.
func positiveLiteral(n ast.ExprNode) bool {
	lit, ok := n.(*parser.Literal)
	return ok && lit.Type.IsInteger() && lit.Value.Int() > 0
}

// alreadySimple reports whether sel has only constants, columns and *
// in its select list and no GROUP BY, DISTINCT, ORDER BY or LIMIT:
// nothing existsQuery would drop evaluates anything.
func alreadySimple(sel *ast.SelectStmt) bool {
	if sel.GroupBy != nil || sel.OrderBy != nil || sel.Limit != nil || sel.Distinct || sel.WindowSpecs != nil {
		return false
	}
	for _, f := range sel.Fields.Fields {
		switch f.Expr.(type) {
		case nil, *parser.Literal, *ast.ColumnNameExpr:
		default:
			return false
		}
	}
	return true
}
