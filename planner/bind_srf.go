package planner

import (
	"slices"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// srfCollector gathers the set-returning function calls (generate_series,
// unnest, ...) of one SELECT's select list and ORDER BY. They are planned
// as a ProjectSet over the SELECT's input after grouping and window
// functions, as in PostgreSQL 10 and later; calls in the arguments of
// calls make a stack of ProjectSets, the inner calls below.
type srfCollector struct {
	funcs []*expr.SetFunc
	// levels[i] is the ProjectSet of the stack, from 1 at the bottom, that
	// computes funcs[i]: one above the highest of the calls in its
	// arguments.
	levels []int
}

// srfRef stands for the values of call idx until the ProjectSet is planned.
type srfRef struct {
	idx int
	t   types.T
}

func (r *srfRef) Type() types.T                      { return r.t }
func (r *srfRef) String() string                     { return "srf#" + strconv.Itoa(r.idx) }
func (r *srfRef) Children() []expr.Expr              { return nil }
func (r *srfRef) WithChildren([]expr.Expr) expr.Expr { return r }
func (r *srfRef) Eval(*expr.Ctx, []types.Datum) (types.Datum, error) {
	return types.Null, pgerror.New(pgerror.CodeInternal, "unplanned set-returning function")
}

// srfsNotAllowed is the error for a set-returning function in clause.
func srfsNotAllowed(clause string) *pgerror.Error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "set-returning functions are not allowed in %s", clause)
}

// srfHint is PostgreSQL's advice for set-returning functions inside
// conditional expressions and aggregates.
const srfHint = "You might be able to move the set-returning function into a LATERAL FROM item."

// noSRFs forbids set-returning functions, with err as the reason (nil: a
// generic one), until the returned function restores the previous state.
func (b *Binder) noSRFs(err error) (restore func()) {
	srf, srfErr := b.srf, b.srfErr
	b.srf, b.srfErr = nil, err
	return func() { b.srf, b.srfErr = srf, srfErr }
}

// bindSetFunc binds a call of a set-returning function where the current
// SELECT collects them.
func (b *Binder) bindSetFunc(name string, argNodes []ast.ExprNode, s *scope) (expr.Expr, error) {
	c := b.srf
	if c == nil {
		if b.srfErr != nil {
			return nil, b.srfErr
		}
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "set-returning function called in a context that cannot accept a set")
	}
	args, err := b.bindArgs(argNodes, s)
	if err != nil {
		return nil, err
	}
	f, err := b.newSetFunc(name, args)
	if err != nil {
		return nil, err
	}
	level := 1
	for _, a := range args {
		expr.Walk(a, func(x expr.Expr) bool {
			if r, ok := x.(*srfRef); ok {
				level = max(level, c.levels[r.idx]+1)
			}
			return true
		})
	}
	c.funcs, c.levels = append(c.funcs, f), append(c.levels, level)
	return &srfRef{idx: len(c.funcs) - 1, t: f.T}, nil
}

// newSetFunc resolves a set-returning call; parameters of unknown type
// take the type of the parameter they are passed to.
func (b *Binder) newSetFunc(name string, args []expr.Expr) (*expr.SetFunc, error) {
	f, err := expr.NewSetFunc(name, args)
	if err != nil {
		return nil, err
	}
	typed := false
	for i, a := range args {
		if p, ok := a.(*expr.Param); ok && p.T.Family == types.Unknown {
			if args[i], err = b.coerce(a, f.Args[i].Type()); err != nil {
				return nil, err
			}
			typed = true
		}
	}
	if typed {
		return expr.NewSetFunc(name, args)
	}
	return f, nil
}

// mapArgs rewrites the calls' arguments (onto the Aggregate's or the
// Window's output).
func (c *srfCollector) mapArgs(fn func(expr.Expr) (expr.Expr, error)) error {
	for i, f := range c.funcs {
		args := make([]expr.Expr, len(f.Args))
		for j, a := range f.Args {
			var err error
			if args[j], err = fn(a); err != nil {
				return err
			}
		}
		c.funcs[i] = f.WithArgs(args)
	}
	return nil
}

// plan puts the stack of ProjectSets of the calls over input, each
// passing its input's columns through, and rewrites the call references
// in each of es onto their columns.
func (c *srfCollector) plan(input Node, es ...[]expr.Expr) Node {
	col := make([]int, len(c.funcs)) // the column of each call's values
	onto := func(e expr.Expr) expr.Expr {
		e, _ = expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
			if r, ok := x.(*srfRef); ok {
				return &expr.ColRef{Idx: col[r.idx], T: r.t, Name: c.funcs[r.idx].Name}, true, nil
			}
			return nil, false, nil
		})
		return e
	}
	out := input
	for level, done := 1, 0; done < len(c.funcs); level++ {
		ps := &ProjectSet{Input: out, Cols: slices.Clone(out.Columns())}
		for i, f := range c.funcs {
			if c.levels[i] != level {
				continue
			}
			args := make([]expr.Expr, len(f.Args))
			for j, a := range f.Args {
				args[j] = onto(a)
			}
			col[i] = len(ps.Cols)
			ps.Funcs = append(ps.Funcs, f.WithArgs(args))
			ps.Cols = append(ps.Cols, Column{Name: f.Name, T: f.T})
			done++
		}
		out = ps
	}
	for _, list := range es {
		for i, e := range list {
			list[i] = onto(e)
		}
	}
	return out
}
