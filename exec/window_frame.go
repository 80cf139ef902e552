package exec

import (
	"sort"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// FrameMode is how the offsets of a window frame count.
type FrameMode uint8

// Frame modes.
const (
	// FrameRange frames by peer groups without offsets: the current row's
	// peers are all in or all out of its frame.
	FrameRange FrameMode = iota
	// FrameRows counts rows.
	FrameRows
	// FrameGroups counts peer groups.
	FrameGroups
	// FrameSession frames a row by its session (RisingWave's SESSION WITH
	// GAP g): the rows whose ordering values chain with steps below the gap,
	// Start.Offset (End's is the same). Rows whose ordering value is NULL
	// form one session.
	FrameSession
)

// BoundKind is the kind of one end of a window frame.
type BoundKind uint8

// Frame bound kinds, in order of position.
const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// FrameBound is one end of a window frame. Offset, an int8 expression
// without columns, is set for OffsetPreceding and OffsetFollowing.
type FrameBound struct {
	Kind   BoundKind
	Offset expr.Expr
}

// Frame is the part of its partition that an aggregate, first_value,
// last_value and nth_value see for the current row: the rows between its
// bounds less those its exclusion takes out.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    FrameExclusion
}

// DefaultFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: the
// rows up to the current one and its peers, which is the whole partition
// when the window has no ORDER BY.
var DefaultFrame = Frame{Mode: FrameRange, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// String renders the frame in SQL.
func (f Frame) String() string {
	if f.Mode == FrameSession {
		return "SESSION WITH GAP " + f.Start.Offset.String()
	}
	mode := [...]string{"RANGE", "ROWS", "GROUPS"}[f.Mode]
	s := mode + " BETWEEN " + f.Start.String() + " AND " + f.End.String()
	if f.Exclude != ExcludeNoOthers {
		s += " " + f.Exclude.String()
	}
	return s
}

// String renders the bound in SQL.
func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case OffsetPreceding:
		return b.Offset.String() + " PRECEDING"
	case CurrentRow:
		return "CURRENT ROW"
	case OffsetFollowing:
		return b.Offset.String() + " FOLLOWING"
	}
	return "UNBOUNDED FOLLOWING"
}

// frameSpec is a frame with its offsets evaluated, and for RANGE frames
// with offsets the window's ORDER BY key, the one column they measure.
type frameSpec struct {
	Frame
	startOff, endOff types.Datum
	order            SortKey
	// sessions is the first row of each session of the partition, then its
	// length (FrameSession).
	sessions []int
}

// rangeOffsets reports whether the frame is RANGE with an offset.
func (f *frameSpec) rangeOffsets() bool {
	return f.Mode == FrameRange && (f.Start.Offset != nil || f.End.Offset != nil)
}

// bounds returns the frame of row i: the rows [lo, hi), empty when hi is
// lo.
func (f *frameSpec) bounds(c *expr.Ctx, p *windowPartition, i int) (lo, hi int, err error) {
	if lo, err = f.bound(c, p, i, f.Start.Kind, f.startOff, false); err != nil {
		return 0, 0, err
	}
	if hi, err = f.bound(c, p, i, f.End.Kind, f.endOff, true); err != nil {
		return 0, 0, err
	}
	return lo, max(lo, hi), nil
}

// bound returns where a frame bound of row i falls: the first row it
// includes, or for an end bound one past the last.
func (f *frameSpec) bound(c *expr.Ctx, p *windowPartition, i int, kind BoundKind, off types.Datum, end bool) (int, error) {
	n := len(p.rows)
	switch {
	case kind == UnboundedPreceding:
		return 0, nil
	case kind == UnboundedFollowing:
		return n, nil
	case f.Mode == FrameSession:
		k := sort.SearchInts(f.sessions, i+1)
		if end {
			return f.sessions[k], nil
		}
		return f.sessions[k-1], nil
	case f.Mode == FrameRange:
		if kind != CurrentRow && !p.rows[i][f.order.Col].IsNull() {
			return f.rangeBound(c, p, i, off, kind == OffsetPreceding, end)
		}
		// The current row's peers; rows whose ordering value is NULL are
		// peers for offsets too.
		lo, hi := p.peers(i)
		if end {
			return hi, nil
		}
		return lo, nil
	}
	var o int64
	switch kind {
	case OffsetPreceding:
		o = -off.Int()
	case OffsetFollowing:
		o = off.Int()
	}
	if f.Mode == FrameRows {
		pos := offsetFrom(i, o, n)
		if end {
			pos++
		}
		return min(max(pos, 0), n), nil
	}
	groups := len(p.start) - 1
	g := offsetFrom(p.group[i], o, groups)
	switch {
	case g < 0:
		return 0, nil
	case g >= groups:
		return n, nil
	case end:
		return p.start[g+1], nil
	}
	return p.start[g], nil
}

// rangeBound returns where a RANGE offset bound of row i, whose ordering
// value is not NULL, falls, as PostgreSQL's update_frameheadpos and
// update_frametailpos find it: among the rows whose ordering value is not
// NULL, the first within the offset from row i's (in_range holds), or for
// an end bound the first beyond it. A descending order flips the
// direction of the offset.
func (f *frameSpec) rangeBound(c *expr.Ctx, p *windowPartition, i int, off types.Datum, preceding, end bool) (int, error) {
	col := f.order.Col
	base := p.rows[i][col]
	sub, less := preceding, end
	if f.order.Desc {
		sub, less = !sub, !less
	}
	lo, hi := p.nonNull(col, f.order.NullsFirst)
	var err error
	// Over the ordered rows in_range goes from false to true for a start
	// bound, from true to false for an end bound.
	k := sort.Search(hi-lo, func(k int) bool {
		if err != nil {
			return true
		}
		in, e := expr.InRange(c, p.rows[lo+k][col], base, off, sub, less)
		err = e
		return in != end
	})
	return lo + k, err
}

// offsetFrom returns from+off, saturated to [-1, n].
func offsetFrom(from int, off int64, n int) int {
	switch {
	case off > int64(n):
		return n
	case off < -int64(n):
		return -1
	}
	return min(max(from+int(off), -1), n)
}

// splitSessions finds the sessions of partition p: a row starts one
// unless its ordering value is within the gap of the previous row's
// (NULLs are one session).
func (f *frameSpec) splitSessions(c *expr.Ctx, p *windowPartition) error {
	f.sessions = f.sessions[:0]
	col, desc := f.order.Col, f.order.Desc
	for i, row := range p.rows {
		if i == 0 {
			f.sessions = append(f.sessions, 0)
			continue
		}
		cur, prev := row[col], p.rows[i-1][col]
		split := cur.IsNull() != prev.IsNull()
		if !split && !cur.IsNull() {
			// A new session when cur >= prev + gap (<= prev - gap
			// descending).
			beyond, err := expr.InRange(c, cur, prev, f.startOff, desc, desc)
			if err != nil {
				return err
			}
			split = beyond
		}
		if split {
			f.sessions = append(f.sessions, i)
		}
	}
	f.sessions = append(f.sessions, len(p.rows))
	return nil
}
