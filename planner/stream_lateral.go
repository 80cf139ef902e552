package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// applyJoin rewrites lateral join a into a join (see decorrelate): a
// right side that only computes over the left row (projections and
// set-returning functions in FROM) is computed over the left rows
// (overLeft); one that aggregates without GROUP BY is aggJoin's left
// join, which has one row for each left row; any other is joined on its
// correlation conditions, as a subquery of EXISTS is (pullCorrelated).
func applyJoin(a *Apply) (Node, error) {
	nl := len(a.L.Columns())
	cols := a.Columns()
	if n, setReturning, ok := overLeft(a.L, a.R); ok && (a.Kind == InnerJoin || !setReturning) {
		return withOn(a, n), nil
	}
	exprs := passThrough(a.L).Exprs
	if _, _, ok := overAggregate(a.R); ok {
		vals, j, err := aggJoin(a.L, a.R)
		if err != nil {
			return nil, err
		}
		return withOn(a, &Project{Input: j, Exprs: append(exprs, vals...), Cols: cols}), nil
	}
	right, corr, err := pullCorrelated(a.R)
	if err != nil {
		return nil, notStreamable("LATERAL subqueries that read the FROM items to their left other than by conditions of their WHERE").
			WithHint("Correlate the subquery by WHERE conditions such as inner.c = outer.c, aggregate it, or join the tables.")
	}
	if right, err = decorrelate(right); err != nil {
		return nil, err
	}
	j := keyedJoin(a.Kind, a.L, right, append(corrOn(corr, nl), conjunctsOf(a.On)...))
	at := len(j.L.Columns())
	for i, c := range cols[nl:] {
		exprs = append(exprs, &expr.ColRef{Idx: at + i, T: c.T, Name: c.Name})
	}
	return &Project{Input: j, Exprs: exprs, Cols: cols}, nil
}

// withOn returns n, lateral join a computed with one row per left row
// (any number for an inner join), with a's condition applied: a LEFT
// JOIN's right columns are NULL where it does not hold.
func withOn(a *Apply, n Node) Node {
	if a.On == nil {
		return n
	}
	if a.Kind == InnerJoin {
		return &Filter{Input: n, Cond: a.On}
	}
	p := passThrough(n)
	for i := len(a.L.Columns()); i < len(p.Exprs); i++ {
		p.Exprs[i] = &expr.Case{Whens: []expr.Expr{a.On}, Thens: []expr.Expr{p.Exprs[i]}, T: p.Cols[i].T}
	}
	return p
}

// conjunctsOf returns the conjuncts of e but constant true ones (ON
// true), none for nil.
func conjunctsOf(e expr.Expr) []expr.Expr {
	if e == nil {
		return nil
	}
	var out []expr.Expr
	for _, c := range conjuncts(e) {
		if k, ok := c.(*expr.Const); !ok || k.V.IsNull() || k.T.Family != types.Bool || !k.V.Bool() {
			out = append(out, c)
		}
	}
	return out
}

// overLeft returns r, projections and set-returning functions over one
// empty row that read the outer row, computed over the rows of l
// instead, each with l's columns first; setReturning reports a function
// that may yield no row for a left row.
func overLeft(l, r Node) (n Node, setReturning, ok bool) {
	lcols := l.Columns()
	concat := func(c []Column) []Column { return append(lcols[:len(lcols):len(lcols)], c...) }
	shift := func(e expr.Expr) expr.Expr {
		return outerToColumns(e, func(c *expr.ColRef) expr.Expr {
			return &expr.ColRef{Idx: len(lcols) + c.Idx, T: c.T, Name: c.Name}
		})
	}
	switch x := r.(type) {
	case *Values:
		return l, false, len(x.Rows) == 1 && len(x.Cols) == 0
	case *Project:
		in, sr, ok := overLeft(l, x.Input)
		if !ok {
			return nil, false, false
		}
		p := &Project{Input: in, Exprs: passThrough(l).Exprs, Cols: concat(x.Cols)}
		for _, e := range x.Exprs {
			p.Exprs = append(p.Exprs, shift(e))
		}
		return p, sr, true
	case *ProjectSet:
		in, _, ok := overLeft(l, x.Input)
		if !ok {
			return nil, false, false
		}
		ps := &ProjectSet{Input: in, Ordinality: x.Ordinality, Cols: concat(x.Cols), Funcs: make([]*expr.SetFunc, len(x.Funcs))}
		for i, f := range x.Funcs {
			g := *f
			g.Args = make([]expr.Expr, len(f.Args))
			for j, e := range f.Args {
				g.Args[j] = shift(e)
			}
			ps.Funcs[i] = &g
		}
		return ps, true, true
	}
	return nil, false, false
}
