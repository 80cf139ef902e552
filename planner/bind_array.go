package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// bindArray binds ARRAY[...] (pg_array, see sql/parser). Cast to an array
// type (target), its elements are cast to the target's element type, as
// PostgreSQL does; otherwise they take their common type and ARRAY[] has
// none. Elements that are arrays (ARRAY[[1,2],[3,4]], ARRAY[ARRAY[1]])
// are the sub-arrays of a multidimensional array of their type.
func (b *Binder) bindArray(args []ast.ExprNode, s *scope, target types.T) (expr.Expr, error) {
	var elems []expr.Expr
	for _, a := range args {
		var e expr.Expr
		var err error
		if call, ok := a.(*ast.FuncCallExpr); ok && call.FnName.L == "pg_array" && target.Family == types.Array {
			e, err = b.bindArray(call.Args, s, target) // ARRAY[[...]]::t[] types its sub-arrays too
		} else {
			e, err = b.bindExpr(a, s)
		}
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	var err error
	nested := false
	for _, e := range elems {
		nested = nested || e.Type().Family == types.Array
	}
	if nested {
		return b.bindSubArrays(elems, target)
	}
	if target.Family == types.Array {
		elem := target.ElemType()
		for i := range elems {
			if elems[i], err = b.coerce(elems[i], elem); err != nil {
				return nil, err
			}
			if elems[i], err = expr.CastTo(elems[i], elem); err != nil {
				return nil, err
			}
		}
		return expr.NewArrayCtor(elems, target), nil
	}
	if len(elems) == 0 {
		return nil, pgerror.New(pgerror.CodeIndeterminateDatatype, "cannot determine type of empty array").
			WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
	}
	t, err := b.commonType(elems, "ARRAY")
	if err != nil {
		return nil, err
	}
	for i := range elems {
		if elems[i], err = b.coerceTo(elems[i], t); err != nil {
			return nil, err
		}
	}
	at, err := types.ArrayOf(t)
	if err != nil {
		return nil, err
	}
	return expr.NewArrayCtor(elems, at), nil
}

// bindSubArrays binds ARRAY[sub-arrays...]: they take their common array
// type, or the target's.
func (b *Binder) bindSubArrays(subs []expr.Expr, target types.T) (expr.Expr, error) {
	t := target
	if t.Family != types.Array {
		var err error
		if t, err = b.commonType(subs, "ARRAY"); err != nil {
			return nil, err
		}
	}
	for i := range subs {
		if subs[i].Type().Family != types.Array && subs[i].Type().Family != types.Unknown {
			return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "ARRAY could not convert type %s to %s", subs[i].Type(), t)
		}
		var err error
		if subs[i], err = b.coerceTo(subs[i], t); err != nil {
			return nil, err
		}
	}
	return expr.NewArrayCtor(subs, t), nil
}

// bindArraySubquery binds ARRAY(query) (pg_array_query, see sql/parser):
// the query's single column as an array.
func (b *Binder) bindArraySubquery(n ast.ExprNode, s *scope) (expr.Expr, error) {
	q, ok := n.(*ast.SubqueryExpr)
	if !ok {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "ARRAY() needs a query")
	}
	sq, err := b.bindSubquery(q, s, expr.SubArray)
	if err != nil {
		return nil, err
	}
	cols := sq.Plan.(*subPlan).node.Columns()
	if len(cols) != 1 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "subquery must return only one column")
	}
	elem := cols[0].T
	if elem.Family == types.Unknown {
		elem = types.TText
	}
	if sq.T, err = types.ArrayOf(elem); err != nil {
		return nil, err
	}
	return sq, nil
}

// bindSubscript binds a[i][j]... (pg_subscript calls, innermost first)
// and slices a[lo:hi]... (pg_slice among them) as one subscript of the
// array: the subscripts are integers, and once one is a slice all are, a
// single subscript i being 1:i, as in PostgreSQL.
func (b *Binder) bindSubscript(x *ast.FuncCallExpr, s *scope) (expr.Expr, error) {
	var chain []*ast.FuncCallExpr // outermost first
	for n := ast.ExprNode(x); ; {
		call, ok := n.(*ast.FuncCallExpr)
		if !ok || call.FnName.L != "pg_subscript" && call.FnName.L != "pg_slice" {
			break
		}
		chain = append(chain, call)
		n = call.Args[0]
	}
	arr, err := b.bindExpr(chain[len(chain)-1].Args[0], s)
	if err != nil {
		return nil, err
	}
	if t := arr.Type(); t.Family != types.Array {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "cannot subscript type %s because it does not support subscripting", t)
	}
	sub := &expr.Subscript{Arr: arr}
	for _, call := range chain {
		sub.Slice = sub.Slice || call.FnName.L == "pg_slice"
	}
	for k := len(chain) - 1; k >= 0; k-- {
		bound, err := b.bindArgs(chain[k].Args[1:], s)
		if err != nil {
			return nil, err
		}
		for i := range bound {
			if bound[i], err = b.coerce(bound[i], types.TInt4); err != nil {
				return nil, err
			}
			if !bound[i].Type().IsNumeric() {
				return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "array subscript must have type integer")
			}
			if bound[i], err = expr.CastTo(bound[i], types.TInt4); err != nil {
				return nil, err
			}
		}
		if sub.Slice && len(bound) == 1 {
			bound = []expr.Expr{expr.NewConst(types.NewInt(1), types.TInt4), bound[0]}
		}
		sub.Subs = append(sub.Subs, bound...)
	}
	if n := len(chain); n > types.MaxArrayDims {
		return nil, types.ErrTooManyDims(n)
	}
	return sub, nil
}

// quantifiedArray returns the marker call of x op ANY (array) or ALL
// (pg_any, pg_all; see sql/parser) when n is one.
func quantifiedArray(n ast.ExprNode) (*ast.FuncCallExpr, bool) {
	call, ok := n.(*ast.FuncCallExpr)
	return call, ok && (call.FnName.L == "pg_any" || call.FnName.L == "pg_all")
}

// bindArrayCompare binds x op ANY (array) and x op ALL (array). Unknown
// operands take the other side's type.
func (b *Binder) bindArrayCompare(op string, xn ast.ExprNode, call *ast.FuncCallExpr, s *scope) (expr.Expr, error) {
	all := call.FnName.L == "pg_all"
	quant := map[bool]string{false: "ANY", true: "ALL"}[all]
	if len(call.Args) != 1 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near \"%s\"", quant)
	}
	x, arr, err := b.bindPair(xn, call.Args[0], s)
	if err != nil {
		return nil, err
	}
	if arr.Type().Family == types.Unknown {
		elem := x.Type()
		if elem.Family == types.Unknown {
			elem = types.TText
		}
		at, err := types.ArrayOf(elem.WithoutMod())
		if err != nil {
			return nil, err
		}
		if arr, err = b.coerce(arr, at); err != nil {
			return nil, err
		}
	}
	if arr.Type().Family != types.Array {
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "op ANY/ALL (array) requires array on right side")
	}
	elem := arr.Type().ElemType()
	if x, err = b.coerce(x, elem.WithoutMod()); err != nil {
		return nil, err
	}
	cmp, err := b.binary(op, &expr.ColRef{Idx: 0, T: x.Type()}, &expr.ColRef{Idx: 1, T: elem})
	if err != nil {
		return nil, err
	}
	return &expr.ArrayCompare{X: x, Arr: arr, Op: op, Cmp: cmp, All: all}, nil
}
