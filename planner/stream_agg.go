package planner

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
)

// planAggregate groups in a fragment hashed on the group key (a singleton
// for the global aggregation). The output's stream key is the group key.
func (p *streamPlanner) planAggregate(x *Aggregate) (*stream, error) {
	in, err := p.plan(x.Input)
	if err != nil {
		return nil, err
	}
	return p.aggregate(in, in.columnsFor(x.Group), x.Aggs, x.Cols), nil
}

// planDistinct groups by every output column, without aggregates.
func (p *streamPlanner) planDistinct(x *Distinct) (*stream, error) {
	in, err := p.plan(x.Input)
	if err != nil {
		return nil, err
	}
	cols := x.Columns()
	return p.aggregate(in, seq(0, len(cols)), nil, cols), nil
}

// aggregate appends a HashAgg grouping in by the columns group, with
// output columns cols.
func (p *streamPlanner) aggregate(in *stream, group []int, aggs []*expr.AggFunc, cols []Column) *stream {
	d := hashOn(group)
	if len(group) == 0 {
		d = single
	}
	frag := p.into(in, d)
	spec := &dataflow.HashAggSpec{GroupKey: group, Aggs: aggs, InputTypes: typesOf(in.cols), AppendOnly: in.appendOnly}
	p.aggTables(spec)
	frag.Chain = append(frag.Chain, spec)
	key := seq(0, len(group))
	out := &stream{cols: cols, key: key, frag: frag}
	if !d.single {
		out.dist = key
	}
	return out
}

// aggTables allocates the state tables of spec: its group table, and a
// multiset table when some aggregate needs the values it has seen
// (DISTINCT, ORDER BY, or min, max and string_agg under retractions).
func (p *streamPlanner) aggTables(spec *dataflow.HashAggSpec) {
	spec.StateTable = p.alloc()
	for _, a := range spec.Aggs {
		// DISTINCT always gets one (also where min or max do not use it),
		// so that the tables of existing views keep their ids.
		if a.Distinct || dataflow.NeedsMultiset(a, spec.AppendOnly) {
			spec.MultisetTable = p.alloc()
			return
		}
	}
}
