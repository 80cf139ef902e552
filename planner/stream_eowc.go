package planner

import (
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerror"
)

// EMIT ON WINDOW CLOSE emits each row of a view once, append-only, when a
// watermark closes it. A view whose query ends in an aggregation (under
// projections and filters) emits a group when the watermark of its window
// key passes it (HashAggSpec.EmitOnWindowClose); any other view buffers
// its rows until the watermark of one of its columns passes them
// (dataflow.EowcSortSpec).

// eowcPlan is what the streaming planner knows of EMIT ON WINDOW CLOSE.
type eowcPlan struct {
	// agg is the aggregation that emits on window close, nil if none.
	agg *Aggregate
	// window is the Window the query ends in, nil if none; closed is set
	// once it is planned as an EowcOverWindow (a Window whose row numbers
	// a filter bounds is a Top-N instead, which does not close).
	window *Window
	closed bool
}

// newEOWCPlan finds the aggregation or the Window a query ends in, under
// projections, filters and sorts.
func newEOWCPlan(n Node) *eowcPlan {
	for {
		switch x := n.(type) {
		case *Project:
			n = x.Input
		case *Filter:
			n = x.Input
		case *Sort:
			n = x.Input
		case *Aggregate:
			return &eowcPlan{agg: x}
		case *Window:
			return &eowcPlan{window: x}
		default:
			return &eowcPlan{}
		}
	}
}

// eowcWindowCheck refuses a Window an EowcOverWindow cannot compute: its
// first ORDER BY column must be ascending with a watermark, and each
// function's values must become final as rows arrive.
func eowcWindowCheck(w *Window) error {
	if len(w.Order) == 0 || w.Order[0].Desc || !watermarkColumns(w.Input)[w.Order[0].Col] {
		return errNoEOWC("the window's first ORDER BY column must be ascending and have a watermark")
	}
	for i := range w.Funcs {
		if !w.Funcs[i].CanClose() {
			return errNoEOWC(w.Funcs[i].Name + " needs the whole partition or a frame to UNBOUNDED FOLLOWING")
		}
	}
	return nil
}

// eowcSort buffers the rows of s, the stream of query, until the watermark
// of the first of query's columns that has one passes them.
func (p *streamPlanner) eowcSort(s *stream, query Node) error {
	col := slices.Index(watermarkColumns(query), true)
	if col < 0 {
		return errNoEOWC("no output column has a watermark")
	}
	frag := p.into(s, hashOn(s.key))
	frag.Chain = append(frag.Chain, &dataflow.EowcSortSpec{Col: col, StreamKey: s.key, Types: typesOf(s.cols), StateTable: p.alloc()})
	s.frag, s.dist, s.chain, s.appendOnly, s.rising = frag, slices.Clone(s.key), nil, true, nil
	return nil
}

// errNoEOWC refuses EMIT ON WINDOW CLOSE for the reason why.
func errNoEOWC(why string) error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "EMIT ON WINDOW CLOSE is not supported for this query: %s", why).
		WithHint("Declare a watermark on a time column of the table or source (WATERMARK FOR col AS col - INTERVAL '5' SECOND) and group by a window of it, e.g. window_start of TUMBLE, or select that column.")
}
