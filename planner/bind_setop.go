package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

// bindSetOpr binds UNION/EXCEPT/INTERSECT chains, folding left to right,
// with ORDER BY and LIMIT over the result's columns.
func (b *Binder) bindSetOpr(q *ast.SetOprStmt, outer *scope, sub *subqueryInfo) (Node, error) {
	pop, err := b.pushCTEs(q.With, outer, sub)
	if err != nil {
		return nil, err
	}
	defer pop()
	node, err := b.bindSetList(q.SelectList, outer, sub)
	if err != nil {
		return nil, err
	}
	return b.finishSetOp(node, q.OrderBy, q.Limit, outer, sub)
}

// bindSetList binds one level of a set operation chain. INTERSECT binds
// tighter than UNION and EXCEPT (TiDB's parser leaves the list flat), so
// INTERSECTs fold into their left operand first; the remaining operands
// then fold left to right.
func (b *Binder) bindSetList(list *ast.SetOprSelectList, outer *scope, sub *subqueryInfo) (Node, error) {
	var operands []Node
	// ops[i] combines the result so far with operands[i+1], by the
	// columns corrs[i] says.
	var ops []*ast.SetOprType
	var corrs []*correspondence
	for i, item := range list.Selects {
		var n Node
		var err error
		var op *ast.SetOprType
		var corr *correspondence
		switch x := item.(type) {
		case *ast.SelectStmt:
			b.setOpMember = true
			if q, c, ok := correspondingOperand(x); ok {
				corr = c
				n, err = b.bindQuery(q, outer, sub)
			} else {
				n, err = b.bindSelect(x, outer, sub)
			}
			op = x.AfterSetOperator
		case *ast.SetOprSelectList:
			n, err = b.bindSetList(x, outer, sub)
			if err == nil {
				n, err = b.finishSetOp(n, x.OrderBy, x.Limit, outer, sub)
			}
			op = x.AfterSetOperator
		default:
			err = pgerror.New(pgerror.CodeFeatureNotSupported, "set operation member %T is not supported", item)
		}
		if err != nil {
			return nil, err
		}
		switch {
		case i == 0:
			operands = append(operands, n)
		case *op == ast.Intersect || *op == ast.IntersectAll:
			last := len(operands) - 1
			if operands[last], err = b.combine(operands[last], n, op, corr); err != nil {
				return nil, err
			}
		default:
			operands = append(operands, n)
			ops, corrs = append(ops, op), append(corrs, corr)
		}
	}
	acc := operands[0]
	for i, op := range ops {
		var err error
		if acc, err = b.combine(acc, operands[i+1], op, corrs[i]); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// combine combines l and r by op, their columns matched by position, or
// by name when corr is set.
func (b *Binder) combine(l, r Node, op *ast.SetOprType, corr *correspondence) (Node, error) {
	if corr != nil {
		var err error
		if l, r, err = corr.pick(l, r, setOpName(op)); err != nil {
			return nil, err
		}
	}
	lc, rc := l.Columns(), r.Columns()
	if len(lc) != len(rc) {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "each %s query must have the same number of columns", setOpName(op))
	}
	so := &SetOp{}
	switch *op {
	case ast.Union, ast.UnionAll:
		so.Kind = Union
	case ast.Except, ast.ExceptAll:
		so.Kind = Except
	default:
		so.Kind = Intersect
	}
	so.All = *op == ast.UnionAll || *op == ast.ExceptAll || *op == ast.IntersectAll
	lexprs := make([]expr.Expr, len(lc))
	rexprs := make([]expr.Expr, len(rc))
	cast := false
	for i := range lc {
		le := expr.Expr(&expr.ColRef{Idx: i, T: lc[i].T, Name: lc[i].Name})
		re := expr.Expr(&expr.ColRef{Idx: i, T: rc[i].T, Name: rc[i].Name})
		t, err := b.commonType([]expr.Expr{le, re}, setOpName(op))
		if err != nil {
			return nil, err
		}
		if lexprs[i], err = b.coerceTo(le, t); err != nil {
			return nil, err
		}
		if rexprs[i], err = b.coerceTo(re, t); err != nil {
			return nil, err
		}
		cast = cast || lc[i].T != t || rc[i].T != t
		so.Cols = append(so.Cols, Column{Name: lc[i].Name, T: t})
	}
	so.L, so.R = l, r
	if cast {
		so.L = &Project{Input: l, Exprs: lexprs, Cols: so.Cols}
		so.R = &Project{Input: r, Exprs: rexprs, Cols: so.Cols}
	}
	return so, nil
}

func setOpName(op *ast.SetOprType) string {
	switch *op {
	case ast.Union, ast.UnionAll:
		return "UNION"
	case ast.Except, ast.ExceptAll:
		return "EXCEPT"
	}
	return "INTERSECT"
}

// finishSetOp applies ORDER BY (output names and ordinals, or expressions
// over the output columns) and LIMIT to a set operation's result.
func (b *Binder) finishSetOp(n Node, ob *ast.OrderByClause, lim *ast.Limit, outer *scope, sub *subqueryInfo) (Node, error) {
	s := outer.child(n.Columns(), sub)
	if ob != nil {
		cols := n.Columns()
		names := make([]string, len(cols))
		outs := make([]expr.Expr, len(cols))
		for i, c := range cols {
			names[i] = c.Name
			outs[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
		}
		order, err := b.bindOrderBy(ob, s, names, outs, false)
		if err != nil {
			return nil, err
		}
		if len(order.extra) > 0 {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "ORDER BY on a UNION/INTERSECT/EXCEPT result must be on one of the result columns")
		}
		n = &Sort{Input: n, Keys: order.keys}
	}
	return b.bindLimit(lim, n, s)
}
