package planner

import (
	"context"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

// planLimit keeps the first rows of ORDER BY ... LIMIT/OFFSET (without
// ORDER BY: in stream key order) with a Top-N in a singleton fragment;
// FETCH ... WITH TIES keeps the rows tied with the last too (its Top-N's
// WithTies).
func (p *streamPlanner) planLimit(x *Limit) (*stream, error) {
	spec := &dataflow.TopNSpec{Limit: -1}
	// As in PostgreSQL, OFFSET is checked before LIMIT.
	var err error
	if spec.Offset, err = constInt(x.Offset, "OFFSET", "2201X", 0); err != nil {
		return nil, err
	}
	if spec.Limit, err = constInt(x.Count, "LIMIT", "2201W", -1); err != nil {
		return nil, err
	}
	if x.WithTies {
		if spec.Limit < 0 {
			return nil, pgerror.New("2201W", "row count cannot be null in FETCH FIRST ... WITH TIES clause")
		}
		if spec.Offset > 0 {
			// The Top-N ranks tied rows alike (rank()); OFFSET skips rows
			// by position, whichever of the tied ones comes first.
			return nil, notStreamable("OFFSET with FETCH ... WITH TIES").
				WithHint("Drop the OFFSET, or filter on rank() OVER (ORDER BY ...) in a subquery.")
		}
		spec.WithTies = true
	}
	input := x.Input
	if spec.Limit < 0 && spec.Offset == 0 {
		return p.plan(input)
	}
	sorted, isSort := input.(*Sort)
	if isSort {
		input = sorted.Input
	}
	in, err := p.plan(input)
	if err != nil {
		return nil, err
	}
	if isSort {
		for _, k := range sorted.Keys {
			spec.Order = append(spec.Order, dataflow.SortKey(k))
		}
	} else {
		for _, k := range in.key {
			spec.Order = append(spec.Order, dataflow.SortKey{Col: k})
		}
	}
	spec.InputTypes, spec.StreamKey = typesOf(in.cols), in.key
	spec.StateTable = p.alloc()
	frag := p.into(in, single)
	frag.Chain = append(frag.Chain, spec)
	return &stream{cols: in.cols, key: in.key, frag: frag}, nil
}

// constInt evaluates a LIMIT or OFFSET clause (clause, with the SQLSTATE
// code for a negative value), which the binder binds without columns and
// plan has checked; NULL or no clause means def.
func constInt(e expr.Expr, clause, code string, def int64) (int64, error) {
	if e == nil {
		return def, nil
	}
	v, err := e.Eval(expr.NewCtx(context.Background(), nil), nil)
	if err != nil {
		return 0, err
	}
	if v.IsNull() {
		return def, nil
	}
	if v.Int() < 0 {
		return 0, pgerror.New(code, "%s must not be negative", clause)
	}
	return v.Int(), nil
}
