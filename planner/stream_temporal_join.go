package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
)

// planTemporalJoin plans a processing-time temporal join (Join.Temporal)
// on the equi-join keys lk = rk as a dataflow.TemporalJoinSpec in a
// fragment whose inputs are hashed on those keys: each actor keeps the
// right table's rows of its key groups and looks its left rows up there.
// The output is append-only when the left input is (right changes emit
// nothing); otherwise the join remembers what each left row emitted.
func (p *streamPlanner) planTemporalJoin(j *Join, lk, rk []expr.Expr, residual expr.Expr) (*stream, error) {
	nl, nr := len(j.L.Columns()), len(j.R.Columns())
	l, err := p.plan(j.L)
	if err != nil {
		return nil, err
	}
	r, err := p.plan(j.R)
	if err != nil {
		return nil, err
	}
	// Keys that are expressions become columns of the inputs first: the
	// left input's width counts them.
	leftKey, rightKey := l.columnsFor(lk), r.columnsFor(rk)
	lw := len(l.cols)
	spec := &dataflow.TemporalJoinSpec{Kind: j.Kind, LeftKey: leftKey, RightKey: rightKey,
		LeftTypes: typesOf(l.cols), RightTypes: typesOf(r.cols), LeftStreamKey: l.key, RightStreamKey: r.key,
		Cond: residualCond(residual, nl, lw), RightTable: p.alloc(), HoldTable: p.alloc()}
	if !l.appendOnly {
		spec.MemoTable = p.alloc()
	}
	inputs := []dataflow.InputSpec{p.input(l, hashOn(spec.LeftKey)), p.input(r, hashOn(spec.RightKey))}
	cols := slices.Concat(l.cols, r.cols)
	out := &stream{
		cols:       cols,
		key:        joinStreamKey(LeftJoin, l.key, spec.LeftKey, shiftCols(r.key, lw), shiftCols(spec.RightKey, lw), len(cols)),
		appendOnly: l.appendOnly,
		dist:       spec.LeftKey,
		frag:       p.newFragment(false, inputs, spec),
	}
	out.pick(slices.Concat(seq(0, nl), seq(lw, lw+nr)))
	return out, nil
}
