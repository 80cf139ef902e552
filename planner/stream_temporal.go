package planner

import (
	"context"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Temporal filters: a conjunct of a view's WHERE or HAVING that compares
// an expression of the row with a non-decreasing expression of now()
// (ts > now() - INTERVAL '1' HOUR, ts <= now(), ts BETWEEN now() - ... AND
// now() + ...) is kept by a dataflow.TemporalFilterSpec, whose bounds move
// with the barriers' clock: rows enter and leave the view as time passes,
// as in RisingWave. now(), current_timestamp, transaction_timestamp() and
// statement_timestamp() are that clock; other uses of them stay refused.

// nowFuncs are the functions that read the barriers' clock in a temporal
// filter.
var nowFuncs = map[string]bool{"now": true, "current_timestamp": true, "transaction_timestamp": true, "statement_timestamp": true}

// splitTemporal returns the temporal filters among the conjuncts of cond,
// at most one lower and one upper bound each, and the other conjuncts.
func splitTemporal(cond expr.Expr) (filters []*dataflow.TemporalFilterSpec, rest []expr.Expr) {
	for _, c := range conjuncts(cond) {
		if f := temporalOr(c); f != nil {
			filters = append(filters, f)
			continue
		}
		row, bound, op, ok := temporalCompare(c)
		if !ok {
			rest = append(rest, c)
			continue
		}
		if op == "=" || op == ">" || op == ">=" {
			lower := &dataflow.TemporalBound{Now: bound, Inclusive: op != ">"}
			filters = addBound(filters, row, func(f *dataflow.TemporalFilterSpec) **dataflow.TemporalBound { return &f.Lower }, lower)
		}
		if op == "=" || op == "<" || op == "<=" {
			upper := &dataflow.TemporalBound{Now: bound, Inclusive: op != "<"}
			filters = addBound(filters, row, func(f *dataflow.TemporalFilterSpec) **dataflow.TemporalBound { return &f.Upper }, upper)
		}
	}
	return filters, rest
}

// temporalOr recognizes c as a disjunction of one temporal filter (its
// bounds on one expression) and plain conditions that read no clock (ts >
// now() - INTERVAL '1' HOUR OR ts IS NULL), and returns it as a filter
// whose Or is the plain side; nil otherwise.
func temporalOr(c expr.Expr) *dataflow.TemporalFilterSpec {
	if _, ok := c.(*expr.Or); !ok {
		return nil
	}
	var f *dataflow.TemporalFilterSpec
	var plain []expr.Expr
	for _, d := range disjuncts(c) {
		filters, rest := splitTemporal(d)
		switch {
		case len(filters) == 1 && len(rest) == 0 && f == nil:
			f = filters[0]
		case len(filters) == 0 && !readsClock(d):
			plain = append(plain, d)
		default:
			return nil
		}
	}
	if f == nil || len(plain) == 0 {
		return nil
	}
	f.Or = plain[0]
	if len(plain) > 1 {
		f.Or = &expr.Or{Args: plain}
	}
	return f
}

// disjuncts flattens nested ORs.
func disjuncts(e expr.Expr) []expr.Expr {
	o, ok := e.(*expr.Or)
	if !ok {
		return []expr.Expr{e}
	}
	var out []expr.Expr
	for _, x := range o.Args {
		out = append(out, disjuncts(x)...)
	}
	return out
}

// addBound puts b into the first filter of row whose bound slot is free,
// or a new filter.
func addBound(filters []*dataflow.TemporalFilterSpec, row expr.Expr, slot func(*dataflow.TemporalFilterSpec) **dataflow.TemporalBound, b *dataflow.TemporalBound) []*dataflow.TemporalFilterSpec {
	for _, f := range filters {
		if f.Expr.String() == row.String() && *slot(f) == nil {
			*slot(f) = b
			return filters
		}
	}
	f := &dataflow.TemporalFilterSpec{Expr: row}
	*slot(f) = b
	return append(filters, f)
}

// temporalCompare recognizes c as row op bound, bound an expression of
// now() alone that never decreases as now() grows (op turned around when
// bound comes first).
func temporalCompare(c expr.Expr) (row, bound expr.Expr, op string, ok bool) {
	b, isBin := c.(*expr.Binary)
	if !isBin {
		return nil, nil, "", false
	}
	flip := map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}
	l, r := expr.SameTypeOperands(b)
	if _, cmp := flip[b.Op]; !cmp || l.Type().Family != r.Type().Family {
		return nil, nil, "", false
	}
	switch {
	case nowMonotone(r) && !readsClock(l):
		return l, r, b.Op, true
	case nowMonotone(l) && !readsClock(r):
		return r, l, flip[b.Op], true
	}
	return nil, nil, "", false
}

// nowMonotone reports whether e reads now() and no column, and never
// decreases as now() grows (expr.Monotone with now() as its column).
func nowMonotone(e expr.Expr) bool {
	clock, cols := false, false
	sub, _ := expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		switch f := x.(type) {
		case *expr.Func:
			if nowFuncs[f.Name] && len(f.Args) == 0 {
				clock = true
				return &expr.ColRef{Idx: 0, T: types.TTimestampTZ}, true, nil
			}
		case *expr.ColRef, *expr.OuterRef, *expr.Param, *expr.Subquery:
			cols = true
		}
		return nil, false, nil
	})
	if !clock || cols || readsClock(sub) {
		return false
	}
	col, ok := expr.Monotone(foldClosed(sub))
	return ok && col == 0
}

// foldClosed replaces the largest subexpressions of e that read no column
// and call no volatile function (INTERVAL '1 day' * 365) by their values,
// so that expr.Monotone sees them as the constants they are. e is left as
// it is where a value cannot be computed.
func foldClosed(e expr.Expr) expr.Expr {
	ctx := expr.NewCtx(context.Background(), nil)
	out, err := expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		if _, isConst := x.(*expr.Const); isConst || !closed(x) {
			return nil, false, nil
		}
		v, err := x.Eval(ctx, nil)
		return expr.NewConst(v, x.Type()), true, err
	})
	if err != nil {
		return e
	}
	return out
}

// closed reports whether e reads no column and calls no volatile function.
func closed(e expr.Expr) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		switch f := x.(type) {
		case *expr.ColRef, *expr.OuterRef, *expr.Param, *expr.Subquery:
			ok = false
		case *expr.Func:
			ok = ok && !f.Volatile()
		}
		return ok
	})
	return ok
}

// readsClock reports whether e calls a function of the statement's clock.
func readsClock(e expr.Expr) bool {
	found := false
	expr.Walk(e, func(x expr.Expr) bool {
		if f, ok := x.(*expr.Func); ok && isClockFunc(f) {
			found = true
		}
		return !found
	})
	return found
}

// streamableConds returns what checkStreamable must accept of a filter's
// condition: its conjuncts other than temporal filters, and the row side
// of those.
func streamableConds(cond expr.Expr) []expr.Expr {
	filters, rest := splitTemporal(cond)
	for _, f := range filters {
		rest = append(rest, f.Expr)
		if f.Or != nil {
			rest = append(rest, f.Or)
		}
	}
	return rest
}

// temporalWatermark returns the watermark temporal filter f gives its
// output: its lower bound's, on the column it compares, when that is a
// plain column of the bound's type and no other condition lets older rows
// through (Or); nil otherwise.
func temporalWatermark(f *dataflow.TemporalFilterSpec) *dataflow.TemporalWatermark {
	c, ok := f.Expr.(*expr.ColRef)
	if !ok || f.Lower == nil || f.Or != nil || c.T.Family != f.Lower.Now.Type().Family {
		return nil
	}
	return &dataflow.TemporalWatermark{Col: c.Idx, Of: &expr.ColRef{Idx: 0, T: c.T}}
}

// planTemporal plans filter x, some of whose conjuncts are the temporal
// filters: its other conjuncts first, then one operator per temporal
// filter, each in a fragment hashed on the stream key, which keys its
// state. Rows leave a view with a lower bound: only a filter with upper
// bounds alone keeps an append-only stream append-only.
func (p *streamPlanner) planTemporal(x *Filter, filters []*dataflow.TemporalFilterSpec, rest []expr.Expr) (*stream, error) {
	in := x.Input
	if len(rest) > 0 {
		in = &Filter{Input: x.Input, Cond: andOf(rest)}
	}
	s, err := p.plan(in)
	if err != nil {
		return nil, err
	}
	for _, f := range filters {
		d := hashOn(s.key)
		if len(s.key) == 0 {
			d = single
		}
		frag := p.into(s, d)
		f.Types, f.StreamKey, f.StateTable = typesOf(s.cols), s.key, p.alloc()
		f.Watermark = temporalWatermark(f)
		frag.Chain = append(frag.Chain, f)
		// Rows leave by the filter's bounds, not by updates.
		s.frag, s.dist, s.chain, s.rising = frag, d.keys, nil, nil
		s.appendOnly = s.appendOnly && f.Lower == nil
	}
	return s, nil
}
