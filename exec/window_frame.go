package exec

import "github.com/streamdb/streamdb/expr"

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
// last_value and nth_value see for the current row.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
}

// DefaultFrame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: the
// rows up to the current one and its peers, which is the whole partition
// when the window has no ORDER BY.
var DefaultFrame = Frame{Mode: FrameRange, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// String renders the frame in SQL.
func (f Frame) String() string {
	mode := [...]string{"RANGE", "ROWS", "GROUPS"}[f.Mode]
	return mode + " BETWEEN " + f.Start.String() + " AND " + f.End.String()
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

// frameSpec is a frame with its offsets evaluated.
type frameSpec struct {
	Frame
	startOff, endOff int64
}

// bounds returns the frame of row i: the rows [lo, hi), empty when hi is
// lo.
func (f *frameSpec) bounds(p *windowPartition, i int) (lo, hi int) {
	lo = f.bound(p, i, f.Start.Kind, f.startOff, false)
	hi = f.bound(p, i, f.End.Kind, f.endOff, true)
	return lo, max(lo, hi)
}

// bound returns where a frame bound of row i falls: the first row it
// includes, or for an end bound one past the last.
func (f *frameSpec) bound(p *windowPartition, i int, kind BoundKind, off int64, end bool) int {
	n := len(p.rows)
	switch kind {
	case UnboundedPreceding:
		return 0
	case UnboundedFollowing:
		return n
	case CurrentRow:
		off = 0
	case OffsetPreceding:
		off = -off
	}
	switch f.Mode {
	case FrameRows:
		pos := offsetFrom(i, off, n)
		if end {
			pos++
		}
		return min(max(pos, 0), n)
	case FrameGroups:
		groups := len(p.start) - 1
		g := offsetFrom(p.group[i], off, groups)
		switch {
		case g < 0:
			return 0
		case g >= groups:
			return n
		case end:
			return p.start[g+1]
		}
		return p.start[g]
	}
	lo, hi := p.peers(i)
	if end {
		return hi
	}
	return lo
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
