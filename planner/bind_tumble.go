package planner

import (
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
	if len(f.Args) < 3 || len(f.Args) > 4 {
		return nil, pgerror.New(pgerror.CodeUndefinedFunction, "tumble takes a relation, a time column, a window size and an optional offset").
			WithHint("For example: FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND).")
	}
	ref, ok := f.Args[0].(*ast.ColumnNameExpr)
	if !ok || ref.Name.Schema.O != "" {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "the first argument of tumble must name a table, view or source")
	}
	rel, err := b.bindTableSource(&ast.TableSource{Source: &ast.TableName{Schema: ref.Name.Table, Name: ref.Name.Name}}, s)
	if err != nil {
		return nil, err
	}
	cols := rel.Columns()
	inner := s.child(cols, nil)
	args := make([]expr.Expr, 0, 3)
	for i, a := range f.Args[1:] {
		e, err := b.bindExpr(a, inner)
		if err == nil && i > 0 {
			e, err = b.coerceTo(e, types.TInterval)
		}
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	if fam := args[0].Type().Family; fam != types.Timestamp && fam != types.TimestampTZ {
		return nil, pgerror.New(pgerror.CodeDatatypeMismatch, "the time column of tumble must be a timestamp or timestamptz, not %s", args[0].Type())
	}
	p := &Project{Input: rel}
	for i, c := range cols {
		p.Exprs = append(p.Exprs, &expr.ColRef{Idx: i, T: c.T, Name: c.Name})
		p.Cols = append(p.Cols, c)
	}
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
