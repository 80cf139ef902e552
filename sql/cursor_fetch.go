package sql

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// step is one move of a FETCH or MOVE: a rewind, or a scan of count rows
// forward or backward.
type step struct {
	rewind, forward bool
	count           int64
}

// fetchPlan is how a FETCH or MOVE runs: its steps in order, the rows of
// the last being the result (those FETCH returns, MOVE counts), unless
// report >= 0: the count a MOVE reports without scanning.
type fetchPlan struct {
	steps  []step
	report int64
}

// planFetch turns FETCH (or MOVE, move set) f into steps from position
// p, as PostgreSQL's DoPortalRunFetch does.
func planFetch(f *parser.Fetch, p position) fetchPlan {
	fwd := func(n int64) step { return step{forward: true, count: n} }
	back := func(n int64) step { return step{count: n} }
	rows := func(steps ...step) fetchPlan { return fetchPlan{steps: steps, report: -1} }
	// oneAfter skips n-1 rows, if any, then returns one: how ABSOLUTE and
	// RELATIVE reach their row.
	oneAfter := func(steps []step, dir func(int64) step, n int64) fetchPlan {
		if n > 1 {
			steps = append(steps, dir(n-1))
		}
		return rows(append(steps, dir(1))...)
	}
	kind, count := f.Kind, f.Count
	switch kind {
	case parser.FetchForward, parser.FetchBackward:
		if count < 0 {
			kind, count = parser.FetchForward+parser.FetchBackward-kind, -count
		}
	case parser.FetchAbsolute:
		switch {
		case count > 0:
			// Rewind and go there, or go there from here when that is
			// nearer.
			pos := p.pos
			if p.atEnd {
				pos++
			}
			switch {
			case count-1 <= p.pos/2:
				return oneAfter([]step{{rewind: true}}, fwd, count)
			case count <= pos:
				return rows(back(pos-count+1), fwd(1))
			case count > pos+1:
				return rows(fwd(count-pos-1), fwd(1))
			}
			return rows(fwd(1))
		case count < 0:
			return oneAfter([]step{fwd(parser.FetchAll)}, back, -count)
		}
		return rows(step{rewind: true}, fwd(0))
	case parser.FetchRelative:
		switch {
		case count > 0:
			return oneAfter(nil, fwd, count)
		case count < 0:
			return oneAfter(nil, back, -count)
		}
		kind = parser.FetchForward
	}
	forward := kind == parser.FetchForward
	var steps []step
	if count == 0 {
		// FETCH 0 returns the current row again, if there is one.
		onRow := !p.atStart && !p.atEnd
		if f.Move {
			if onRow {
				return fetchPlan{report: 1}
			}
			return fetchPlan{report: 0}
		}
		if onRow {
			steps, count, forward = append(steps, back(1)), 1, true
		}
	}
	if !forward && count == parser.FetchAll && f.Move {
		n := p.pos
		if n > 0 && !p.atEnd {
			n--
		}
		return fetchPlan{steps: []step{{rewind: true}}, report: n}
	}
	return rows(append(steps, step{forward: forward, count: count})...)
}

// fetch runs FETCH or MOVE f on the cursor: MOVE at once, returning its
// tag's count; FETCH up to its last step, whose rows the returned scan
// yields.
func (c *cursor) fetch(ctx context.Context, f *parser.Fetch) (*scan, int64, error) {
	plan := planFetch(f, c.p)
	var n int64
	for i, st := range plan.steps {
		if st.rewind {
			if err := c.rewind(); err != nil {
				return nil, 0, err
			}
			continue
		}
		sc, err := c.newScan(st.forward, st.count)
		if err != nil {
			return nil, 0, err
		}
		if i == len(plan.steps)-1 && !f.Move {
			return sc, 0, nil
		}
		if n, err = sc.skip(ctx); err != nil {
			return nil, 0, err
		}
	}
	if plan.report >= 0 {
		n = plan.report
	}
	return nil, n, nil
}

// fetchRows are the rows of a FETCH, read from the cursor as the client
// takes them.
type fetchRows struct {
	s  *Session
	sc *scan
}

// Next implements pgwire.Rows.
func (r *fetchRows) Next(ctx context.Context) ([]types.Datum, error) {
	row, err := r.sc.next(ctx)
	if err != nil {
		return nil, r.s.fail(statementTimedOut(ctx, err, false))
	}
	return row, nil
}

// Tag implements pgwire.Rows.
func (r *fetchRows) Tag() string { return fmt.Sprintf("FETCH %d", r.sc.n) }

// Close implements pgwire.Rows: a FETCH the client stopped early leaves
// the cursor after the rows it sent.
func (r *fetchRows) Close() { r.sc.finish(false) }
