package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
)

// planAggregate groups in a fragment hashed on the group key (a singleton
// for the global aggregation). The output's stream key is the group key
// (with grouping sets, the grouping columns and the set's number, so
// that the sets spread over the actors as any group does).
// A group key with a watermark (a window start) closes groups: their
// state is deleted once the watermark passes them, and under EMIT ON
// WINDOW CLOSE their rows are emitted then, once. Counts of HOP windows
// count panes first (planHopPanes); other windowed counts, mins and maxes
// merge each chunk's rows first (localAggregate).
func (p *streamPlanner) planAggregate(x *Aggregate) (*stream, error) {
	window := slices.Index(watermarkColumns(x)[:len(x.Group)], true)
	eowc := p.eowc != nil && p.eowc.agg == x
	if eowc && window < 0 {
		return nil, errNoEOWC("the aggregation is not grouped by a column with a watermark")
	}
	in, group, panes, err := p.planHopPanes(x)
	if err != nil {
		return nil, err
	}
	aggs := x.Aggs
	if !panes {
		if in, err = p.plan(x.Input); err != nil {
			return nil, err
		}
		group = in.columnsFor(x.Group)
		if window >= 0 && len(x.EmptySets) == 0 {
			group, aggs = in.localAggregate(group, aggs)
		}
	}
	return p.aggregate(in, group, aggs, x.Cols, window, eowc, x.EmptySets), nil
}

// planDistinct groups by every output column, without aggregates.
func (p *streamPlanner) planDistinct(x *Distinct) (*stream, error) {
	in, err := p.plan(x.Input)
	if err != nil {
		return nil, err
	}
	cols := x.Columns()
	return p.aggregate(in, seq(0, len(cols)), nil, cols, -1, false, nil), nil
}

// aggregate appends a HashAgg grouping in by the columns group, with
// output columns cols. Group key number window (-1: none) is a window key
// (HashAggSpec.WindowKey): it goes first in the aggregation, whose output
// a projection puts back in order. emptySets are those of an Expand's
// grouping sets that group by no column (HashAggSpec.EmptySets).
func (p *streamPlanner) aggregate(in *stream, group []int, aggs []*expr.AggFunc, cols []Column, window int, eowc bool, emptySets []int) *stream {
	var restore []int
	if window > 0 {
		restore = make([]int, len(cols))
		for i := range cols {
			restore[i] = i
			if i < window {
				restore[i] = i + 1
			}
		}
		restore[window] = 0
		group = append(append([]int{group[window]}, group[:window]...), group[window+1:]...)
		cols = append(append([]Column{cols[window]}, cols[:window]...), cols[window+1:]...)
	}
	d := hashOn(group)
	if len(group) == 0 {
		d = single
	}
	frag := p.into(in, d)
	spec := &dataflow.HashAggSpec{GroupKey: group, Aggs: aggs, InputTypes: typesOf(in.cols), AppendOnly: in.appendOnly,
		WindowKey: window >= 0, EmitOnWindowClose: eowc, EmptySets: emptySets, Weighted: in.weighted, Weight: in.weight,
		Rising: risingMaxes(in, group, aggs)}
	p.aggTables(spec)
	frag.Chain = append(frag.Chain, spec)
	key := seq(0, len(group))
	out := &stream{cols: cols, key: key, frag: frag, appendOnly: eowc}
	if in.appendOnly && !eowc && len(emptySets) == 0 {
		// Over append-only rows a count or a max only rises: each change
		// of a group is an update to a value not below the last.
		for i, a := range aggs {
			if a.Name == "count" || a.Name == "max" {
				out.rising = append(out.rising, len(group)+i)
			}
		}
	}
	if !d.single {
		out.dist = key
	}
	if restore != nil {
		out.pick(restore)
	}
	return out
}

// risingMaxes marks the aggregates of an aggregation of in grouped by
// group that are a max of a rising column of in (dataflow.HashAggSpec.
// Rising), or returns nil if none is. The group must lie within in's
// stream key, so that an update's retraction and insert reach one group.
func risingMaxes(in *stream, group []int, aggs []*expr.AggFunc) []bool {
	if in.appendOnly || len(in.rising) == 0 || len(in.key) == 0 {
		return nil
	}
	for _, g := range group {
		if !slices.Contains(in.key, g) {
			return nil
		}
	}
	var out []bool
	for i, a := range aggs {
		if a.Name != "max" || a.Ordered() {
			continue
		}
		if r, ok := a.Args[0].(*expr.ColRef); !ok || !slices.Contains(in.rising, r.Idx) {
			continue
		}
		if out == nil {
			out = make([]bool, len(aggs))
		}
		out[i] = true
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

// planExpand expands the rows of its input stream once per grouping set;
// the set's number joins the stream key.
func (p *streamPlanner) planExpand(x *Expand) (*stream, error) {
	s, err := p.plan(x.Input)
	if err != nil {
		return nil, err
	}
	in, width := len(x.Input.Columns()), len(s.cols)
	s.add(&dataflow.ExpandSpec{Nulled: x.Nulled})
	if s.frag == nil {
		s.origin = append(s.origin, -1)
	}
	s.cols = append(slices.Clip(s.cols), x.Cols[in])
	s.key = append(slices.Clip(s.key), width)
	// x's columns first: the input's, then the set's number.
	s.pick(append(seq(0, in), width))
	return s, nil
}
