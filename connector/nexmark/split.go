package nexmark

import (
	"fmt"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Split generates one split of a Nexmark table, as RisingWave's nexmark
// reader does: the table's events are numbered 0, 1, 2, ... among events
// of their type (the offset), and split i of n produces offsets i, i+n,
// i+2n, ... Bid offset o, for instance, is event number 50(o/46) + 4 +
// o%46 of the whole stream, whose other types the split skips without
// generating them. So the splits partition the table and their union is
// what one split produces. A table's events come in event-number order:
// the out-of-order shuffle applies only to the all-types Generator stream,
// as in the reference. A Split is not safe for concurrent use.
type Split struct {
	gen   *Generator
	step  int64 // SplitNum
	next  int64 // offset of the next row
	first int64 // offset at the last SetOffset, for Pace
}

// NewSplit returns split number split (0 <= split < cfg.SplitNum) of the
// table cfg.Table, positioned at its first row.
func NewSplit(cfg Config, split int) *Split {
	if split < 0 || split >= cfg.SplitNum {
		panic(fmt.Sprintf("nexmark: split %d out of range [0, %d)", split, cfg.SplitNum))
	}
	s := &Split{gen: NewGenerator(cfg), step: int64(cfg.SplitNum)}
	s.SetOffset(int64(split))
	return s
}

// Width is the number of columns of the split's rows.
func (s *Split) Width() int { return len(schemas[s.gen.cfg.Table]) }

// Offset returns the offset of the next row, the position to checkpoint:
// SetOffset(Offset()) on a new split resumes exactly where this one stands.
func (s *Split) Offset() int64 { return s.next }

// SetOffset positions the split at offset, which must be one of its own (one
// that Offset returned, or the split's index).
func (s *Split) SetOffset(offset int64) { s.next, s.first = offset, offset }

// Done reports whether the split has produced all its rows: the next
// one's event number reaches Config.EventNum.
func (s *Split) Done() bool {
	c := &s.gen.cfg
	return c.EventNum > 0 && c.globalOffset(c.Table, s.next) >= c.EventNum
}

// Next writes the next rows into rows[0], rows[1], ... (each at least
// Width long), as many as fit and remain, and returns how many it wrote:
// 0 once Done. It allocates nothing but one string per row holding the
// row's generated text; callers own the row buffers, so they choose
// between reusing them and allocating fresh ones for rows they keep.
func (s *Split) Next(rows [][]types.Datum) int {
	c := &s.gen.cfg
	n := 0
	for ; n < len(rows) && !s.Done(); n++ {
		row := rows[n]
		num := c.globalOffset(c.Table, s.next)
		switch c.Table {
		case PersonEvent:
			p := s.gen.person(num)
			p.fillRow(row)
		case AuctionEvent:
			a := s.gen.auction(num)
			a.fillRow(row)
		default:
			b := s.gen.bid(num)
			b.fillRow(row)
		}
		s.next += s.step
	}
	return n
}

// Pace returns how long after the last SetOffset (or NewSplit) the rows
// generated since may be emitted, as RisingWave's reader sleeps after each
// chunk: with UseRealTime, the event time elapsed; otherwise MinEventGapNs
// for every event of the whole stream (all types) passed.
func (s *Split) Pace() time.Duration {
	c := &s.gen.cfg
	from, to := c.globalOffset(c.Table, s.first), c.globalOffset(c.Table, s.next)
	if c.UseRealTime {
		return time.Duration(s.gen.timestamp(to)-s.gen.timestamp(from)) * time.Millisecond
	}
	return time.Duration(c.MinEventGapNs * (to - from))
}
