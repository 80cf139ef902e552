package datagen

import (
	"fmt"
	"math"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Split generates one split of a datagen table, as RisingWave's datagen
// reader does. Split i of n produces the table's rows i, i+n, i+2n, ...
// (its offsets 0, 1, 2, ... in order), so a sequence column counts start+i,
// start+i+n, ... in it. Every value is a function of the table row number
// alone, so the splits partition the table and their union is what a
// single split produces. A Split is not safe for concurrent use.
type Split struct {
	cfg     Config
	split   int64
	step    int64
	next    int64       // offset of the next row
	first   int64       // offset at the last SetOffset, for Pace
	bounded []generator // the sequences, which end
	clock   bool        // a column reads the clock
	src     *source
}

// NewSplit returns split number split (0 <= split < cfg.SplitNum) of the
// table, positioned at its first row.
func NewSplit(cfg Config, split int) *Split {
	if split < 0 || split >= cfg.SplitNum {
		panic(fmt.Sprintf("datagen: split %d out of range [0, %d)", split, cfg.SplitNum))
	}
	s := &Split{cfg: cfg, split: int64(split), step: int64(cfg.SplitNum), src: newSource()}
	for _, g := range cfg.gens {
		if g.ends() {
			s.bounded = append(s.bounded, g)
		}
		if t, ok := g.(*timeRandom); ok && t.relative {
			s.clock = true
		}
	}
	return s
}

// Width is the number of columns of the split's rows.
func (s *Split) Width() int { return len(s.cfg.gens) }

// Rate returns the split's share of Config.RowsPerSecond: the rate divided
// by the number of splits, the first splits taking one more row for the
// remainder, as in RisingWave.
func (s *Split) Rate() int64 {
	n := int64(s.cfg.SplitNum)
	rate := s.cfg.RowsPerSecond / n
	if s.split < s.cfg.RowsPerSecond%n {
		rate++
	}
	return rate
}

// Offset returns the offset of the next row, the position to checkpoint:
// SetOffset(Offset()) on a new split resumes exactly where this one stands.
func (s *Split) Offset() int64 { return s.next }

// SetOffset positions the split at offset.
func (s *Split) SetOffset(offset int64) { s.next, s.first = offset, offset }

// Pace returns how long after the last SetOffset (or NewSplit) the rows
// generated since may be emitted at the split's Rate. A split without a
// share of the rate (more splits than rows per second) never may.
func (s *Split) Pace() time.Duration {
	rate := s.Rate()
	if rate == 0 {
		return math.MaxInt64
	}
	return time.Duration(float64(s.next-s.first) * float64(time.Second) / float64(rate))
}

// row returns the table row number of the split's offset, saturating.
func (s *Split) row(offset int64) int64 {
	if offset > (math.MaxInt64-s.split)/s.step {
		return math.MaxInt64
	}
	return s.split + s.step*offset
}

// Done reports whether the split has produced all its rows: a sequence
// column passed its end.
func (s *Split) Done() bool {
	g := s.row(s.next)
	for _, b := range s.bounded {
		if b.past(g) {
			return true
		}
	}
	return false
}

// Next writes the next rows into rows[0], rows[1], ... (each at least
// Width long), as many as fit and remain, and returns how many it wrote:
// 0 once Done. Its only allocations are the values that need them
// (strings, numerics); callers own the row buffers.
func (s *Split) Next(rows [][]types.Datum) int {
	var now int64
	if s.clock {
		clock := s.cfg.Clock
		if clock == nil {
			clock = time.Now
		}
		now = clock().UnixMicro()
	}
	n := 0
	for ; n < len(rows) && !s.Done(); n++ {
		g := s.row(s.next)
		for i, gen := range s.cfg.gens {
			rows[n][i] = gen.value(g, s.src, now)
		}
		s.next++
	}
	return n
}
