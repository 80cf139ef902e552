package dataflow

import (
	"maps"
	"slices"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Watermark flows beside chunks and barriers: it promises that no row
// emitted after it on the same stream has column Col below Val (NULLs
// aside). The watermarks of a stream's column never regress.
type Watermark struct {
	Col int
	Val types.Datum
}

func (*Watermark) isMessage() {}

// WatermarkEmit passes an operator's output watermark downstream.
type WatermarkEmit func(w Watermark) error

// watermarker is an Operator that takes watermarks. An operator without it
// drops them: its output carries none.
type watermarker interface {
	// Watermark handles watermark w of input number input: it emits
	// through emit the rows the watermark releases, then through out the
	// watermarks of its own output.
	Watermark(input int, w Watermark, emit Emit, out WatermarkEmit) error
}

// watermarkSource is an Operator that makes watermarks of its own while it
// processes rows; the actor gives it where they go.
type watermarkSource interface {
	setWatermarkOut(out WatermarkEmit)
}

// Idle follows the last row an actor sends until it is rebuilt: it will
// send no more, so its consumers merge their watermarks without it. A
// source actor with no split left to read (more actors than splits, or
// every split done) sends it after each barrier; without it, the
// watermark merged over the source's actors would wait for that actor
// forever, and no window would close nor interval join's state go (as
// Flink's idle source readers, whose splits are none or finished).
type Idle struct{}

func (*Idle) isMessage() {}

// watermarkMin merges the watermarks of several slots (the upstream actors
// of an input, or the inputs of an operator): the merged watermark of a
// column is the minimum over the slots that are not idle of the last
// watermark each sent, known once each of them sent one, and it never
// regresses.
type watermarkMin struct {
	// idle marks, per slot, those that sent Idle and no watermark since.
	idle []bool
	cols map[int]*minColumn
}

// minColumn is the state of one column of a watermarkMin.
type minColumn struct {
	last []types.Datum // per slot; NULL until the slot sent one
	out  types.Datum   // the merged watermark last returned; NULL if none
}

func newWatermarkMin(slots int) *watermarkMin {
	return &watermarkMin{idle: make([]bool, slots), cols: map[int]*minColumn{}}
}

// keepOut carries over what old last returned per column: m never
// returns a watermark at or below it.
func (m *watermarkMin) keepOut(old *watermarkMin) {
	for col, c := range old.cols {
		if !c.out.IsNull() {
			m.cols[col] = &minColumn{last: make([]types.Datum, len(m.idle)), out: c.out}
		}
	}
}

// add records w from slot, which is no longer idle, and returns the
// merged watermark of w.Col when it advanced.
func (m *watermarkMin) add(slot int, w Watermark) (Watermark, bool) {
	c := m.cols[w.Col]
	if c == nil {
		c = &minColumn{last: make([]types.Datum, len(m.idle))}
		m.cols[w.Col] = c
	}
	if w.Val.IsNull() {
		return Watermark{}, false
	}
	m.idle[slot] = false
	if !c.last[slot].IsNull() && types.Compare(w.Val, c.last[slot]) <= 0 {
		return Watermark{}, false
	}
	c.last[slot] = w.Val
	return m.merge(w.Col, c)
}

// setIdle marks slot idle and passes to out, column by column, the merged
// watermarks that advance without it.
func (m *watermarkMin) setIdle(slot int, out WatermarkEmit) error {
	if m.idle[slot] {
		return nil
	}
	m.idle[slot] = true
	for _, col := range slices.Sorted(maps.Keys(m.cols)) {
		if w, ok := m.merge(col, m.cols[col]); ok {
			if err := out(w); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge returns column col's merged watermark when it advanced: none
// while a slot that is not idle has sent none, nor while every slot is.
func (m *watermarkMin) merge(col int, c *minColumn) (Watermark, bool) {
	var low types.Datum
	for slot, v := range c.last {
		if m.idle[slot] {
			continue
		}
		if v.IsNull() {
			return Watermark{}, false
		}
		if low.IsNull() || types.Compare(v, low) < 0 {
			low = v
		}
	}
	if low.IsNull() || !c.out.IsNull() && types.Compare(low, c.out) <= 0 {
		return Watermark{}, false
	}
	c.out = low
	return Watermark{Col: col, Val: low}, true
}

// watermarkSwitch passes a watermark to out when it advances on its column
// (a stream whose watermarks are derived may see repeats).
type watermarkSwitch map[int]types.Datum

// advance reports whether w moves its column's watermark up, and records it.
func (s watermarkSwitch) advance(w Watermark) bool {
	if w.Val.IsNull() {
		return false
	}
	if last, ok := s[w.Col]; ok && types.Compare(w.Val, last) <= 0 {
		return false
	}
	s[w.Col] = w.Val
	return true
}

// watermarkDerivation maps watermarks of an operator's input to those of
// the outputs computed by expressions (expr.Monotone).
type watermarkDerivation struct {
	exprs []expr.Expr
	// from[i] is the input column output i is non-decreasing in, or -1.
	from []int
	row  []types.Datum
	sent watermarkSwitch
}

func newWatermarkDerivation(exprs []expr.Expr) watermarkDerivation {
	d := watermarkDerivation{exprs: exprs, from: make([]int, len(exprs)), sent: watermarkSwitch{}}
	width := 0
	for i, e := range exprs {
		d.from[i] = -1
		if c, ok := expr.Monotone(e); ok {
			d.from[i] = c
			width = max(width, c+1)
		}
	}
	d.row = make([]types.Datum, width)
	return d
}

// derive emits the watermarks of the outputs derived from w, each
// evaluated with w's value in its column.
func (d *watermarkDerivation) derive(ev *Evaluator, w Watermark, out WatermarkEmit) error {
	if w.Col >= len(d.row) {
		return nil
	}
	d.row[w.Col] = w.Val
	defer func() { d.row[w.Col] = types.Null }()
	for i, c := range d.from {
		if c != w.Col {
			continue
		}
		v, err := ev.Eval(d.exprs[i], d.row)
		if err != nil {
			return err
		}
		if ow := (Watermark{Col: i, Val: v}); d.sent.advance(ow) {
			if err := out(ow); err != nil {
				return err
			}
		}
	}
	return nil
}
