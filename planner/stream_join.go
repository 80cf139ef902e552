package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// planJoin joins in a fragment whose inputs are hashed on the equi-join
// keys. The output's stream key is the left key, then the right key, plus
// the join keys: a row whose join key changes is retracted by one actor and
// re-emitted by another, and only distinct stream keys keep the two from
// colliding downstream, where their order is not preserved.
func (p *streamPlanner) planJoin(j *Join) (*stream, error) {
	orig := j
	j = pushOnDown(j)
	if sh, ok := p.dynamicFilterOf(orig, j); ok {
		return p.planDynamicFilter(j, sh)
	}
	nl, nr := len(j.L.Columns()), len(j.R.Columns())
	lk, rk, residual := equiJoin(j.On, nl)
	if len(lk) == 0 {
		return p.planSingletonJoin(j)
	}
	if j.Temporal {
		return p.planTemporalJoin(j, lk, rk, residual)
	}
	// A key pair with watermarks on both sides goes first: it closes keys
	// (dataflow.HashJoinSpec.WindowKey).
	semi := j.Kind == SemiJoin || j.Kind == AntiJoin
	window := windowKeyPair(j, lk, rk)
	if window > 0 {
		lk[0], lk[window] = lk[window], lk[0]
		rk[0], rk[window] = rk[window], rk[0]
	}
	l, err := p.plan(j.L)
	if err != nil {
		return nil, err
	}
	r, err := p.plan(j.R)
	if err != nil {
		return nil, err
	}
	spec := &dataflow.HashJoinSpec{Kind: j.Kind, LeftKey: l.columnsFor(lk), RightKey: r.columnsFor(rk),
		LeftStreamKey: l.key, RightStreamKey: r.key, WindowKey: window >= 0,
		LeftUnread: p.unread(l, j.L), RightUnread: p.unread(r, j.R), RightPresence: j.Kind == FullJoin}
	if !semi {
		spec.Interval = intervalBounds(j, [2]bool{l.appendOnly, r.appendOnly})
	}
	inputs := []dataflow.InputSpec{p.input(l, hashOn(spec.LeftKey)), p.input(r, hashOn(spec.RightKey))}
	lw := len(l.cols)
	spec.LeftTypes, spec.RightTypes = typesOf(l.cols), typesOf(r.cols)
	spec.Cond = residualCond(residual, nl, lw)
	spec.LeftTable, spec.RightTable = p.alloc(), p.alloc()
	if semi {
		// The left rows alone, each once, keyed as a left join's are.
		return &stream{cols: l.cols, key: joinStreamKey(LeftJoin, l.key, spec.LeftKey, nil, nil, lw),
			dist: spec.LeftKey, frag: p.newFragment(false, inputs, spec)}, nil
	}
	cols := slices.Concat(l.cols, r.cols)
	if spec.RightPresence {
		cols = append(cols, Column{Name: "_right_present", T: types.TBool, Hidden: true})
	}
	out := &stream{
		cols:       cols,
		key:        joinStreamKey(j.Kind, l.key, spec.LeftKey, shiftCols(r.key, lw), shiftCols(spec.RightKey, lw), len(cols)),
		appendOnly: j.Kind == InnerJoin && l.appendOnly && r.appendOnly,
		frag:       p.newFragment(false, inputs, spec),
	}
	switch j.Kind {
	case InnerJoin, LeftJoin:
		out.dist = spec.LeftKey
	case RightJoin:
		out.dist = shiftCols(spec.RightKey, lw)
	}
	// Bring the join's columns first, then the hidden key columns.
	out.pick(slices.Concat(seq(0, nl), seq(lw, lw+nr)))
	return out, nil
}

// planSingletonJoin plans a join without an equality between its sides
// (a cross join, or one on inequalities only) as a hash join on a constant
// key column added to each side (keyedJoin): all rows meet in one key
// group, and the whole condition is the join's residual filter. Its state
// holds both inputs in full. Where one side is one row and its columns
// are not read above, planJoin plans a dynamic filter instead.
func (p *streamPlanner) planSingletonJoin(j *Join) (*stream, error) {
	var on []expr.Expr
	if j.On != nil {
		on = conjuncts(j.On)
	}
	k := keyedJoin(j.Kind, j.L, j.R, on)
	k.Temporal = j.Temporal
	// Each side's key projection reads what the join reads of the side.
	for _, side := range [][2]Node{{j.L, k.L}, {j.R, k.R}} {
		if used, ok := p.uses[side[0]]; ok {
			p.uses[side[1]] = append(slices.Clone(used), true)
		}
	}
	s, err := p.plan(k)
	if err != nil {
		return nil, err
	}
	// Drop each side's key column (after its own columns).
	nl, nr := len(j.L.Columns()), len(j.R.Columns())
	s.pick(slices.Concat(seq(0, nl), seq(nl+1, nl+1+nr)))
	return s, nil
}

// joinStreamKey is the output key of a join of width columns: both
// inputs' keys plus the join key of a side that is never NULL-padded (both
// sides' for a full join, and its presence column, the last:
// HashJoinSpec.RightPresence), without repeats.
func joinStreamKey(kind JoinKind, lkey, ljoin, rkey, rjoin []int, width int) []int {
	parts := [][]int{lkey, rkey, ljoin}
	switch kind {
	case RightJoin:
		parts[2] = rjoin
	case FullJoin:
		parts = append(parts, rjoin, []int{width - 1})
	}
	var out []int
	for _, p := range parts {
		for _, c := range p {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// shiftCols adds delta to each column number.
func shiftCols(cols []int, delta int) []int {
	out := make([]int, len(cols))
	for i, c := range cols {
		out[i] = c + delta
	}
	return out
}

// residualCond maps a join's residual condition (nil if none) from the
// join's columns (nl left ones first) to the join operator's rows, where
// the right columns follow all lw columns of the left input, hidden ones
// included.
func residualCond(residual expr.Expr, nl, lw int) expr.Expr {
	if residual == nil {
		return nil
	}
	return mapCols(residual, func(i int) int {
		if i >= nl {
			return i - nl + lw
		}
		return i
	})
}
