package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Closing a partition (EMIT ON WINDOW CLOSE): the rows of a partition
// arrive in window order, each row after every row it follows, so the
// values of a row become final once the rows its functions read past it
// have arrived, and a row nothing can read any more may be forgotten.

// CanClose reports whether the values of f can become final while rows
// keep arriving after the partition's: not for the functions that read
// the partition's size (percent_rank, cume_dist, ntile) nor for frames
// ending at UNBOUNDED FOLLOWING.
func (f *WindowFunc) CanClose() bool {
	switch f.Name {
	case "percent_rank", "cume_dist", "ntile":
		return false
	}
	return !f.framed() || f.Frame.End.Kind != UnboundedFollowing
}

// framed reports whether f reads its frame.
func (f *WindowFunc) framed() bool {
	return f.Agg != nil || f.Name == "first_value" || f.Name == "last_value" || f.Name == "nth_value"
}

// Final returns how many leading rows of a partition, rows in window
// order, have values that rows arriving after them cannot change. Every
// function must satisfy CanClose.
func (e *WindowEval) Final(c *expr.Ctx, rows [][]types.Datum) (int, error) {
	e.p.reset(rows, e.order)
	n := len(rows)
	final := n
	for f := range e.funcs {
		fn, fr := &e.funcs[f], &e.frames[f]
		if fr.Mode == FrameSession {
			if err := fr.splitSessions(c, &e.p); err != nil {
				return 0, err
			}
		}
		for i := range final {
			ok, err := e.p.final(c, fn, fr, i)
			if err != nil {
				return 0, err
			}
			if !ok {
				final = i
				break
			}
		}
	}
	return final, nil
}

// final reports whether the value of fn for row i is final.
func (p *windowPartition) final(c *expr.Ctx, fn *WindowFunc, fr *frameSpec, i int) (bool, error) {
	n := len(p.rows)
	switch {
	case fn.Name == "lead":
		off, null, err := shiftOffset(c, fn, p.rows[i])
		return null || int64(i)+off < int64(n), err
	case !fn.framed():
		return true, nil
	}
	switch fr.End.Kind {
	case UnboundedPreceding, OffsetPreceding, CurrentRow:
		return true, nil
	case UnboundedFollowing:
		return false, nil
	}
	switch fr.Mode {
	case FrameRows:
		return int64(i)+fr.endOff.Int() < int64(n), nil
	case FrameGroups:
		return int64(p.group[i])+fr.endOff.Int() < int64(len(p.start)-1), nil
	}
	// RANGE and SESSION: a row beyond the frame has arrived.
	_, hi, err := fr.bounds(c, p, i)
	return hi < n, err
}

// Reach returns the first row of a partition, rows in window order, that
// row i or a row after it can read: the rows before it may be forgotten.
// It is the first of its peer group, so that rank and dense_rank can
// continue from counts of the rows forgotten; groups is the number of
// peer groups before it.
func (e *WindowEval) Reach(c *expr.Ctx, rows [][]types.Datum, i int) (reach, groups int, err error) {
	if len(rows) == 0 {
		return 0, 0, nil
	}
	e.p.reset(rows, e.order)
	i = min(i, len(rows)-1)
	reach = i
	for f := range e.funcs {
		fn, fr := &e.funcs[f], &e.frames[f]
		switch {
		case fn.Name == "lag":
			off, null, err := shiftOffset(c, fn, rows[i])
			if err != nil {
				return 0, 0, err
			}
			if !null {
				reach = min(reach, int(max(int64(i)-off, 0)))
			}
		case fn.framed():
			if fr.Mode == FrameSession {
				if err := fr.splitSessions(c, &e.p); err != nil {
					return 0, 0, err
				}
			}
			lo, err := fr.bound(c, &e.p, i, fr.Start.Kind, fr.startOff, false)
			if err != nil {
				return 0, 0, err
			}
			reach = min(reach, lo)
		}
	}
	lo, _ := e.p.peers(reach)
	return lo, e.p.group[lo], nil
}

// shiftOffset returns the offset of a lag or lead call on row, or null.
func shiftOffset(c *expr.Ctx, fn *WindowFunc, row []types.Datum) (off int64, null bool, err error) {
	if len(fn.Args) < 2 {
		return 1, false, nil
	}
	v, err := fn.Args[1].Eval(c, row)
	if err != nil || v.IsNull() {
		return 0, true, err
	}
	return v.Int(), false, nil
}
