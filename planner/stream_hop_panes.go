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
		if a.Name != "count" || a.Args != nil || a.Distinct || a.Filter != nil || a.Ordered() {
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
	s.apply(s.refs(keep), s.columns(keep), keep)
	s.key = nil
	paneCol, weight := len(keep)-1, len(keep)
	s.add(&dataflow.ConsolidateSpec{Pane: &dataflow.PaneSpec{Col: paneCol, Width: width}})
	s.cols = append(s.cols, Column{Name: "_weight", T: types.TInt8, Hidden: true})
	panes := *hop
	panes.Args = append([]expr.Expr{s.ref(paneCol)}, hop.Args[1:]...)
	s.add(&dataflow.ProjectSetSpec{Funcs: []*expr.SetFunc{&panes}, InputWidth: len(s.cols)})
	s.cols = append(s.cols, ps.Cols[start], Column{Name: "_ordinal", T: types.TInt8, Hidden: true})
	if s.frag == nil {
		s.origin = append(s.origin, -1, -1, -1)
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
	s.weighted, s.weight = true, len(x.Group)
	return s, seq(0, len(x.Group)), true, nil
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
