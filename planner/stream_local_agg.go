package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// planHopPanes plans the input of an aggregation that counts the rows of
// HOP windows (count(*) grouped by the window and columns of the HOP's
// relation) without expanding each row into its windows: the rows of a
// chunk are first counted per pane and group (dataflow.ConsolidateSpec),
// and each count is expanded instead. A pane is the stretch of time
// between two consecutive window boundaries, so its rows fall in the same
// windows. Where rows share their group and pane (Nexmark's q5 sends half
// of the bids to one hot auction) the expansion, the exchange and the
// aggregation that follow see far fewer rows. ok is false for other
// aggregations.
//
// The stream returned has x.Group's values as its first columns, then the
// rows' weight (its weight field says where); group lists the former.
func (p *streamPlanner) planHopPanes(x *Aggregate) (s *stream, group []int, ok bool, err error) {
	if len(x.EmptySets) > 0 || len(x.Group) == 0 {
		return nil, nil, false, nil
	}
	for _, a := range x.Aggs {
		if a.Name != "count" || a.Args != nil || !dataflow.Weighable(a, false) {
			return nil, nil, false, nil
		}
	}
	// The group expressions over the HOP's output, through the
	// projections between.
	exprs := slices.Clone(x.Group)
	n := x.Input
	for {
		pr, isProject := n.(*Project)
		if !isProject {
			break
		}
		substituteRefs(exprs, pr.Exprs)
		n = pr.Input
	}
	ps, isSet := n.(*ProjectSet)
	if !isSet || len(ps.Funcs) != 1 || ps.Ordinality {
		return nil, nil, false, nil
	}
	hop := ps.Funcs[0]
	timeCol, isHop := expr.HopStartsColumn(hop)
	if !isHop {
		return nil, nil, false, nil
	}
	width, fixed := expr.HopPaneWidth(hop)
	if !fixed {
		return nil, nil, false, nil
	}
	// Each group expression must be a column of the HOP's relation (other
	// than the time) as it is, or an expression of the window start alone
	// (window_start, window_end).
	start := len(ps.Input.Columns())
	var keep []int
	for _, e := range exprs {
		if c, isRef := e.(*expr.ColRef); isRef && c.Idx < start {
			if c.Idx == timeCol {
				return nil, nil, false, nil
			}
			if !slices.Contains(keep, c.Idx) {
				keep = append(keep, c.Idx)
			}
		} else if !onlyReads(e, start) {
			return nil, nil, false, nil
		}
	}
	if s, err = p.plan(ps.Input); err != nil {
		return nil, nil, false, err
	}
	// The kept columns and the time, without the stream key: the rows
	// merge, and only the aggregation reads them.
	keep = append(keep, timeCol)
	paneCol, weight := len(keep)-1, len(keep)
	s.merge(keep, &dataflow.ConsolidateSpec{Pane: &dataflow.PaneSpec{Col: paneCol, Width: width}})
	panes := *hop
	panes.Args = append([]expr.Expr{s.ref(paneCol)}, hop.Args[1:]...)
	s.add(&dataflow.ProjectSetSpec{Funcs: []*expr.SetFunc{&panes}, InputWidth: len(s.cols)})
	s.cols = append(s.cols, ps.Cols[start], Column{Name: "_ordinal", T: types.TInt8, Hidden: true})
	if s.frag == nil {
		s.origin = append(s.origin, -1, -1)
	}
	// The group's values, then the weight: the HOP's columns are now the
	// kept ones and the window start.
	moved := make([]expr.Expr, start+1)
	for i, c := range keep {
		moved[c] = s.ref(i)
	}
	moved[start] = s.ref(weight + 1)
	substituteRefs(exprs, moved)
	src := make([]int, 0, len(exprs)+1)
	cols := make([]Column, 0, len(exprs)+1)
	for i, e := range exprs {
		from := -1
		if c, isRef := e.(*expr.ColRef); isRef {
			from = c.Idx
		}
		src = append(src, from)
		cols = append(cols, x.Cols[i])
	}
	exprs = append(exprs, s.ref(weight))
	src = append(src, weight)
	cols = append(cols, s.cols[weight])
	s.apply(exprs, cols, src)
	s.weight = len(x.Group)
	return s, seq(0, len(x.Group)), true, nil
}

// merge projects s onto the columns keep, without its stream key, and
// appends consolidate, which merges equal rows and appends their weight.
func (s *stream) merge(keep []int, consolidate *dataflow.ConsolidateSpec) {
	s.apply(s.refs(keep), s.columns(keep), keep)
	s.add(consolidate)
	s.cols = append(s.cols, Column{Name: "_weight", T: types.TInt8, Hidden: true})
	if s.frag == nil {
		s.origin = append(s.origin, -1)
	}
	s.key = nil
	s.weighted, s.weight = true, len(keep)
}

// localAggregate merges, chunk by chunk, the rows of s that a windowed
// aggregation by the columns group with aggs reads, before they are
// routed to it (dataflow.ConsolidateSpec): the rows of a chunk are close in
// time, so most share their window, and Nexmark q7's max price per window
// reads one row per chunk instead of every bid. It returns the group
// columns and aggregates over the merged rows, or group and aggs as they
// are when an aggregate is not a count(*), or a min or max of a column
// over append-only rows.
func (s *stream) localAggregate(group []int, aggs []*expr.AggFunc) ([]int, []*expr.AggFunc) {
	if len(aggs) == 0 {
		return group, aggs
	}
	keep := slices.Clone(group)
	var extremes []dataflow.ExtremeSpec
	merged := make([]*expr.AggFunc, len(aggs))
	for i, a := range aggs {
		if !dataflow.Weighable(a, s.appendOnly) {
			return group, aggs
		}
		if a.Args == nil {
			merged[i] = a
			continue
		}
		// count(x) would need x's NULLs, which a merged row's extreme
		// hides.
		arg, isRef := a.Args[0].(*expr.ColRef)
		if !isRef || a.Name == "count" {
			return group, aggs
		}
		// A group column as it is, else a column of its own for each of
		// max and min.
		at := slices.Index(group, arg.Idx)
		if at < 0 {
			x := dataflow.ExtremeSpec{Col: len(keep), Max: a.Name == "max"}
			if i := slices.IndexFunc(extremes, func(e dataflow.ExtremeSpec) bool { return keep[e.Col] == arg.Idx && e.Max == x.Max }); i >= 0 {
				x = extremes[i]
			} else {
				keep = append(keep, arg.Idx)
				extremes = append(extremes, x)
			}
			at = x.Col
		}
		m := *a
		m.Args = []expr.Expr{&expr.ColRef{Idx: at, T: arg.T, Name: arg.Name}}
		merged[i] = &m
	}
	s.merge(keep, &dataflow.ConsolidateSpec{Extremes: extremes})
	return seq(0, len(group)), merged
}

// onlyReads reports whether every column e reads is column c.
func onlyReads(e expr.Expr, c int) bool {
	only := true
	expr.Walk(e, func(e expr.Expr) bool {
		if r, isRef := e.(*expr.ColRef); isRef && r.Idx != c {
			only = false
		}
		return only
	})
	return only
}
