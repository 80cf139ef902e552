// Correlated aggregations in materialized views: a subquery that
// aggregates rows correlated with the outer row by equalities inner =
// outer is computed once per value of the inner sides (grouped by them
// too) and joined back to the outer rows on them.

package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// aggJoin left-joins in with sub, a subquery (projections over an
// aggregation without GROUP BY) over in's rows as its outer row, and
// returns sub's columns as expressions over the join. The aggregation is
// grouped by its correlation keys (correlatedKeys): an outer row without
// rows to aggregate meets no group, so each aggregate reads as its value
// over no rows (count's 0, NULL for most) and the projections are
// evaluated above the join, over those values, as PostgreSQL evaluates
// them for an empty input.
func aggJoin(in Node, sub Node) ([]expr.Expr, Node, error) {
	vals, agg, ok := overAggregate(sub)
	if !ok {
		return nil, nil, notStreamable("correlated subqueries other than of an aggregate without GROUP BY (or of its projections) as a value").
			WithHint("Aggregate the correlated rows, as in (SELECT max(x) FROM u WHERE u.k = t.k), or join the tables.")
	}
	if outerLevel(exprsOf(agg)...) != 0 {
		return nil, nil, correlatedNotStreamable()
	}
	input, corr, err := pullCorrelated(agg.Input)
	if err != nil {
		return nil, nil, err
	}
	right, corr, err := keyedAggregate(agg, input, corr)
	if err != nil {
		return nil, nil, err
	}
	if right, err = decorrelate(right); err != nil {
		return nil, nil, err
	}
	j := keyedJoin(LeftJoin, in, right, corrOn(corr, len(in.Columns())))
	at := len(j.L.Columns())
	empty := make([]expr.Expr, len(agg.Aggs))
	for i, a := range agg.Aggs {
		col := &expr.ColRef{Idx: at + i, T: a.T}
		empty[i] = col
		if v, err := a.NewState().Result(); err == nil && !v.IsNull() {
			empty[i] = &expr.Coalesce{Args: []expr.Expr{col, expr.NewConst(v, a.T)}, T: a.T}
		}
	}
	for i, v := range vals {
		vals[i] = outerToColumns(v, func(r *expr.ColRef) expr.Expr { return empty[r.Idx] })
	}
	return vals, j, nil
}

// outerToColumns returns e, an expression of a subquery over its own row
// (its columns mapped by col) and its outer row, over a row that starts
// with the outer one: references to rows further out move one level in.
func outerToColumns(e expr.Expr, col func(*expr.ColRef) expr.Expr) expr.Expr {
	out, _ := expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		switch r := x.(type) {
		case *expr.ColRef:
			return col(r), true, nil
		case *expr.OuterRef:
			if r.Level == 1 {
				return &expr.ColRef{Idx: r.Idx, T: r.T, Name: r.Name}, true, nil
			}
			return &expr.OuterRef{Level: r.Level - 1, Idx: r.Idx, T: r.T, Name: r.Name}, true, nil
		}
		return nil, false, nil
	})
	return out
}

// overAggregate returns the columns of plan n, projections over an
// aggregation without GROUP BY, as expressions over the aggregation's
// columns, and the aggregation.
func overAggregate(n Node) ([]expr.Expr, *Aggregate, bool) {
	cols := n.Columns()
	vals := make([]expr.Expr, len(cols))
	for i, c := range cols {
		vals[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
	}
	for {
		switch x := n.(type) {
		case *Project:
			substituteRefs(vals, x.Exprs)
			n = x.Input
		case *Aggregate:
			return vals, x, len(x.Group) == 0 && len(x.EmptySets) == 0
		default:
			return nil, nil, false
		}
	}
}

// keyedAggregate returns aggregation x over in, in's correlation
// conditions corr pulled out of it, grouped by their inner sides too,
// with those after x's columns, and the conditions over its columns.
func keyedAggregate(x *Aggregate, in Node, corr []expr.Expr) (Node, []expr.Expr, error) {
	if len(corr) == 0 {
		return withInputs(x, []Node{in}), nil, nil
	}
	inner, outer, ok := correlatedKeys(corr)
	if !ok {
		return nil, nil, correlatedNotStreamable().
			WithDetail("A correlated aggregation is computed once per value of the columns its WHERE equates with the outer row.")
	}
	ng, nc := len(x.Group), len(x.Cols)
	keyCols := make([]Column, len(inner))
	for i, e := range inner {
		keyCols[i] = Column{Name: "_corr", T: e.Type(), Hidden: true}
	}
	agg := &Aggregate{Input: in, Aggs: x.Aggs,
		Group: append(x.Group[:ng:ng], inner...),
		Cols:  append(append(x.Cols[:ng:ng], keyCols...), x.Cols[ng:]...)}
	// x's columns, then the keys.
	exprs := make([]expr.Expr, 0, nc+len(inner))
	for i := range nc {
		at := i
		if i >= ng {
			at += len(inner)
		}
		exprs = append(exprs, &expr.ColRef{Idx: at, T: agg.Cols[at].T, Name: agg.Cols[at].Name})
	}
	on := make([]expr.Expr, len(inner))
	for i, e := range inner {
		exprs = append(exprs, &expr.ColRef{Idx: ng + i, T: e.Type()})
		var err error
		if on[i], err = expr.NewBinary("=", &expr.ColRef{Idx: nc + i, T: e.Type()}, outer[i]); err != nil {
			return nil, nil, err
		}
	}
	return &Project{Input: agg, Exprs: exprs, Cols: append(x.Cols[:nc:nc], keyCols...)}, on, nil
}

// correlatedKeys splits correlation conditions, each an equality of an
// expression over the subquery's columns with one over the outer row,
// into those sides; ok is false if one is something else.
func correlatedKeys(corr []expr.Expr) (inner, outer []expr.Expr, ok bool) {
	for _, c := range corr {
		l, r, eq := hashEquality(c)
		switch {
		case !eq:
			return nil, nil, false
		case outerLevel(l) == 0 && onlyOuter(r):
		case outerLevel(r) == 0 && onlyOuter(l):
			l, r = r, l
		default:
			return nil, nil, false
		}
		inner, outer = append(inner, l), append(outer, r)
	}
	return inner, outer, true
}

// onlyOuter reports whether e reads the outer row and no column of its
// own row.
func onlyOuter(e expr.Expr) bool {
	own := false
	expr.Walk(e, func(x expr.Expr) bool {
		switch x.(type) {
		case *expr.ColRef, *expr.Subquery:
			own = true
		}
		return !own
	})
	return !own && outerLevel(e) == 1
}

// countsOf returns an aggregation of n's rows: count(*), then the count
// of its first column's values (those not NULL).
func countsOf(n Node) *Aggregate {
	t := n.Columns()[0].T
	rows, _ := expr.NewAgg("count", nil, false, true)
	vals, _ := expr.NewAgg("count", []expr.Expr{&expr.ColRef{Idx: 0, T: t}}, false, false)
	return &Aggregate{Input: n, Aggs: []*expr.AggFunc{rows, vals},
		Cols: []Column{{Name: "count", T: types.TInt8}, {Name: "count", T: types.TInt8}}}
}
