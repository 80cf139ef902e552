package planner

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// bindTumble binds RisingWave's TUMBLE(relation, time_col, size [, offset])
// in FROM: the relation's rows with window_start and window_end added,
// each row in the one window of width size (aligned on offset from the
// epoch) that holds its time. It is a projection, so it streams as one.
func (b *Binder) bindTumble(f *ast.FuncCallExpr, s *scope) (Node, error) {
	rel, args, err := b.bindTimeWindowArgs(f, s, 3, 4, "a window size and an optional offset")
	if err != nil {
		return nil, err
	}
	p := passThrough(rel)
	for _, name := range []string{"window_start", "window_end"} {
		fn, err := expr.NewFunc("tumble_"+name[len("window_"):], args)
		if err != nil {
			return nil, err
		}
		p.Exprs = append(p.Exprs, fn)
		p.Cols = append(p.Cols, Column{Name: name, T: fn.Type()})
	}
	return p, nil
}

// bindHop binds RisingWave's HOP(relation, time_col, slide, size): each
// row once per hopping window of width size, one every slide, that holds
// its time, with window_start and window_end. It expands rows with a
// set-returning function, which streams as a ProjectSet.
func (b *Binder) bindHop(f *ast.FuncCallExpr, s *scope) (Node, error) {
	rel, args, err := b.bindTimeWindowArgs(f, s, 4, 4, "a slide and a window size")
	if err != nil {
		return nil, err
	}
	starts, err := b.newSetFunc("hop_window_starts", args)
	if err != nil {
		return nil, err
	}
	cols := rel.Columns()
	ps := &ProjectSet{Input: rel, Funcs: []*expr.SetFunc{starts},
		Cols: append(slices.Clip(cols), Column{Name: "window_start", T: starts.T})}
	p := passThrough(ps)
	p.Exprs, p.Cols = p.Exprs[:len(cols)+1], p.Cols[:len(cols)+1]
	end, err := expr.NewBinary("+", p.Exprs[len(cols)], args[2])
	if err != nil {
		return nil, err
	}
	p.Exprs = append(p.Exprs, end)
	p.Cols = append(p.Cols, Column{Name: "window_end", T: end.Type()})
	return p, nil
}

// bindTimeWindowArgs binds the relation (the first argument) of a time-window
// function in FROM, then its time column and interval arguments over the
// relation's columns.
func (b *Binder) bindTimeWindowArgs(f *ast.FuncCallExpr, s *scope, minArgs, maxArgs int, rest string) (Node, []expr.Expr, error) {
	name := f.FnName.L
	if len(f.Args) < minArgs || len(f.Args) > maxArgs {
		return nil, nil, pgerror.New(pgerror.CodeUndefinedFunction, "%s takes a relation, a time column, %s", name, rest).
			WithHint("For example: FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) or FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND).")
	}
	ref, ok := f.Args[0].(*ast.ColumnNameExpr)
	if !ok || ref.Name.Schema.O != "" {
		return nil, nil, pgerror.New(pgerror.CodeSyntaxError, "the first argument of %s must name a table, view or source", name)
	}
	rel, err := b.bindTableSource(&ast.TableSource{Source: &ast.TableName{Schema: ref.Name.Table, Name: ref.Name.Name}}, s)
	if err != nil {
		return nil, nil, err
	}
	inner := s.child(rel.Columns(), nil)
	args := make([]expr.Expr, 0, len(f.Args)-1)
	for i, a := range f.Args[1:] {
		e, err := b.bindExpr(a, inner)
		if err == nil && i > 0 {
			e, err = b.coerceTo(e, types.TInterval)
		}
		if err != nil {
			return nil, nil, err
		}
		args = append(args, e)
	}
	if fam := args[0].Type().Family; fam != types.Timestamp && fam != types.TimestampTZ {
		return nil, nil, pgerror.New(pgerror.CodeDatatypeMismatch, "the time column of %s must be a timestamp or timestamptz, not %s", name, args[0].Type())
	}
	// Sizes and slides (not an offset) must be positive lengths of time;
	// checked here when constant, as they are as a rule, and otherwise
	// per row.
	sizes := args[1:]
	if name == "tumble" {
		sizes = args[1:2]
	}
	for _, a := range sizes {
		c, ok := a.(*expr.Const)
		if !ok || c.V.IsNull() {
			continue
		}
		if _, ok := expr.WindowWidth(c.V.Interval()); !ok {
			return nil, nil, pgerror.New(pgerror.CodeInvalidParameterValue, "the window sizes and slides of %s must be positive intervals without months or years, not %s", name, a)
		}
	}
	return rel, args, nil
}

// passThrough returns a projection copying every column of n.
func passThrough(n Node) *Project {
	p := &Project{Input: n}
	for i, c := range n.Columns() {
		p.Exprs = append(p.Exprs, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
		p.Cols = append(p.Cols, c)
	}
	return p
}
