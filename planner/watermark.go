package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
)

// WatermarkFilter binds the WATERMARK FOR clause of table or source t: the
// operator that makes the watermarks of its rows and drops late ones. It
// returns nil when t has no watermark. The expression must be of the
// column's type.
func WatermarkFilter(t *meta.Table) (*dataflow.WatermarkFilterSpec, error) {
	wm := t.Watermark
	if wm == nil {
		return nil, nil
	}
	stmts, err := parser.Parse("SELECT " + wm.Expr)
	if err != nil {
		return nil, err
	}
	sel, ok := stmts[0].AST.(*ast.SelectStmt)
	if !ok || len(stmts) != 1 || len(sel.Fields.Fields) != 1 {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "invalid watermark expression %q", wm.Expr)
	}
	cols := make([]Column, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = Column{Name: c.Name, T: c.Type, Table: t.Name, Hidden: c.Hidden}
	}
	b := NewBinder(nil, nil)
	b.aggForbidden = "watermark expressions"
	e, err := b.bindExpr(sel.Fields.Fields[0].Expr, (&scope{}).child(cols, nil))
	if err != nil {
		return nil, err
	}
	col := t.Columns[wm.Column]
	if et := e.Type(); et.Family != col.Type.Family || et.Elem != col.Type.Elem {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch,
			"The return value type of the watermark expression must be identical to the watermark column data type. Current data type of watermark return value: `%s`, column `%s`", e.Type(), col.Type).
			WithHint("Cast the expression to %s.", col.Type)
	}
	if err := checkStreamable(false, e); err != nil {
		return nil, err
	}
	return &dataflow.WatermarkFilterSpec{Col: wm.Column, Expr: e, Type: col.Type, StateTable: wm.StateTable}, nil
}

// watermarkColumns reports which output columns of n carry watermarks: a
// table's or source's WATERMARK FOR column, a materialized view's recorded
// ones, and what operators derive from them (expr.Monotone through
// projections, HOP's window starts, group keys of an aggregation, the
// time columns of an interval join); none pass a temporal filter, whose
// lower bound gives its column one (temporalWatermark).
func watermarkColumns(n Node) []bool {
	out := make([]bool, len(n.Columns()))
	switch x := n.(type) {
	case *Scan:
		if w := x.Table.Watermark; w != nil {
			out[w.Column] = true
		}
		for _, c := range x.Table.WatermarkColumns {
			out[c] = true
		}
	case *Filter:
		if filters, _ := splitTemporal(x.Cond); len(filters) > 0 {
			// Rows enter and leave as time passes, below any input
			// watermark; the last filter's lower bound gives its own.
			if w := temporalWatermark(filters[len(filters)-1]); w != nil {
				out[w.Col] = true
			}
			return out
		}
		if j, ok := x.Input.(*Join); ok && j.Kind == InnerJoin {
			// As the streaming plan does: the condition joins the join's.
			return watermarkColumns(pushIntoJoin(j, x.Cond))
		}
		return watermarkColumns(x.Input)
	case *Sort:
		return watermarkColumns(x.Input)
	case *Window:
		// The input's columns pass through.
		copy(out, watermarkColumns(x.Input))
	case *Project:
		in := watermarkColumns(x.Input)
		for i, e := range x.Exprs {
			c, ok := expr.Monotone(e)
			out[i] = ok && in[c]
		}
	case *ProjectSet:
		in := watermarkColumns(x.Input)
		copy(out, in)
		for i, f := range x.Funcs {
			c, ok := expr.HopStartsColumn(f)
			out[len(in)+i] = ok && in[c]
		}
	case *Aggregate:
		in := watermarkColumns(x.Input)
		for i, e := range x.Group {
			c, ok := expr.Monotone(e)
			out[i] = ok && in[c]
		}
	case *Join:
		if x.Kind == SemiJoin || x.Kind == AntiJoin {
			return out
		}
		nl := len(x.L.Columns())
		if x.Temporal {
			// Each left row is emitted when it arrives: the left's
			// watermarks hold for the output.
			copy(out, watermarkColumns(x.L))
			return out
		}
		lk, rk, _ := equiJoin(x.On, nl)
		if i := windowKeyPair(x, lk, rk); i >= 0 {
			out[lk[i].(*expr.ColRef).Idx] = true
			if x.Kind == InnerJoin {
				out[nl+rk[i].(*expr.ColRef).Idx] = true
			}
		}
		intervalWatermarks(x, out)
	}
	return out
}

// windowKeyPair returns the first of join j's equi-join key pairs (lk[i] =
// rk[i], over each side's columns) whose columns both carry watermarks, or
// -1. Outer joins qualify only where their padded side does not emit
// rows alone (left and inner joins).
func windowKeyPair(j *Join, lk, rk []expr.Expr) int {
	if j.Kind != InnerJoin && j.Kind != LeftJoin {
		return -1
	}
	lw, rw := watermarkColumns(j.L), watermarkColumns(j.R)
	for i := range lk {
		l, lok := lk[i].(*expr.ColRef)
		r, rok := rk[i].(*expr.ColRef)
		if lok && rok && lw[l.Idx] && rw[r.Idx] {
			return i
		}
	}
	return -1
}

// WatermarkColumnIndexes returns the indexes of n's output columns that
// carry watermarks, for a materialized view's catalog entry.
func WatermarkColumnIndexes(n Node) []int {
	var out []int
	for i, ok := range watermarkColumns(n) {
		if ok {
			out = append(out, i)
		}
	}
	return slices.Clip(out)
}
