package dataflow

import (
	"fmt"
	"strings"
	"time"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// TemporalFilterSpec keeps the rows whose Expr lies between bounds that
// move with now(): a temporal filter (WHERE ts > now() - INTERVAL '1'
// HOUR). now() is the clock of the last barrier (Barrier.Time), so the
// bounds move at barriers only: a row is compared with the bounds as they
// stand when it arrives, and at each barrier the rows that the new bounds
// let in are emitted as inserts, those they leave out as deletes.
//
// State: the rows that may still enter or leave, keyed by (Expr, stream
// key) in one group per vnode, so that a barrier walks only the rows that
// cross a bound. With a lower bound, those are the rows above it (those in
// the window leave later, those above an upper bound enter later); with
// only an upper bound, the rows not yet below it (rows that entered stay).
// Rows below the lower bound can never come back: they are not stored.
//
// Watermark: with a lower bound, no row whose Expr is at or below it ever
// passes again, so it gives the output a watermark (as RisingWave's does)
// when Watermark is set. At each barrier that moves the bound, the
// watermark goes out after the deletes of the rows the move lets out:
// an operator above that closes state below the watermark (a window
// aggregation, EMIT ON WINDOW CLOSE, an interval join) has seen every
// retraction of those rows first, and none follows.
//
// Recovery: the clock the bounds were last computed at is stored per
// vnode with the rows at each checkpoint. A restarted operator resumes
// from the committed epoch's clock and rows, and takes the larger of it
// and each new barrier's clock, so its bounds never move back, even if the
// wall clock did (after kill -9 and a restart, on another machine). Epochs
// after the committed one were never seen by readers: their rows are
// replayed by the sources and compared with the bounds of the epochs that
// now carry them, which every actor of every job shares.
type TemporalFilterSpec struct {
	// Expr is computed over each input row; a row whose Expr is NULL never
	// passes.
	Expr expr.Expr
	// Lower and Upper are the bounds; nil when absent (not both).
	Lower, Upper *TemporalBound
	Types        []types.T
	StreamKey    []int
	// StateTable holds the rows under (vnode, 1, Expr, stream key) and the
	// clock under (vnode, 0).
	StateTable uint32
	// Or, if set, is the plain side of a disjunction with the bounds (ts >
	// now() - INTERVAL '1' HOUR OR ts IS NULL): a row for which it is true
	// passes whatever the clock, and is not stored.
	Or expr.Expr
	// Watermark, if set (with Lower and no Or), is the output watermark
	// the lower bound gives.
	Watermark *TemporalWatermark
}

// TemporalWatermark is the watermark a temporal filter's lower bound
// gives its output: on column Col, the value Of computes from the bound
// (over a one-column row holding it): the least value whose Expr is at
// or above the bound.
type TemporalWatermark struct {
	Col int
	Of  expr.Expr
}

// TemporalBound is one bound of a temporal filter: Now is an expression of
// now() alone that never decreases as now() grows (now() - INTERVAL '1'
// HOUR, date_trunc('hour', now())); Inclusive admits rows equal to it.
type TemporalBound struct {
	Now       expr.Expr
	Inclusive bool
}

// Build implements Spec: the clock resumes as the latest stored under the
// actor's vnodes.
func (s *TemporalFilterSpec) Build(env *Env) (Operator, error) {
	f := &temporalFilter{spec: s, ev: env.Eval, store: env.Store, vnodes: env.VNodes,
		state: env.StateTable(s.StateTable, s.Types), clock: *env.Eval.Ctx, sent: watermarkSwitch{}}
	f.rows = valueRows{state: f.state, prefix: rowsPrefix, streamKey: s.StreamKey, groups: env.VNodeCount}
	err := eachVNodeValue(env.Store, env.VNodes, types.TInt8, func(v int) []byte { return clockKey(s.StateTable, v) },
		func(val types.Datum, ok bool) bool {
			if ok {
				f.now = max(f.now, val.Int())
			}
			return true
		})
	if err != nil {
		return nil, err
	}
	f.saved = f.now
	if f.now != 0 {
		err = f.setBounds(f.now)
	}
	return f, err
}

// Explain implements Spec.
func (s *TemporalFilterSpec) Explain() string {
	var conds []string
	if s.Lower != nil {
		conds = append(conds, fmt.Sprintf("%s %s %s", s.Expr, map[bool]string{false: ">", true: ">="}[s.Lower.Inclusive], s.Lower.Now))
	}
	if s.Upper != nil {
		conds = append(conds, fmt.Sprintf("%s %s %s", s.Expr, map[bool]string{false: "<", true: "<="}[s.Upper.Inclusive], s.Upper.Now))
	}
	cond := strings.Join(conds, " AND ")
	if s.Or != nil {
		cond = fmt.Sprintf("(%s) OR %s", cond, s.Or)
	}
	return fmt.Sprintf("TemporalFilter %s state=%d", cond, s.StateTable)
}

// Prefixes of a temporal filter's state keys after the vnode.
var (
	clockPrefix = []byte{0}
	rowsPrefix  = []byte{1}
)

// clockKey is the state key of a temporal filter's clock for one vnode.
func clockKey(table uint32, vnode int) []byte {
	return storage.AppendKey(nil, table, uint16(vnode), clockPrefix)
}

// temporalFilter is the operator of TemporalFilterSpec.
type temporalFilter struct {
	spec   *TemporalFilterSpec
	ev     *Evaluator
	store  *Store
	vnodes *Bitmap
	state  *StateTable
	// clock evaluates the bounds: the job's context with Now set.
	clock expr.Ctx
	// now is the clock (Unix microseconds) the bounds lo and hi were
	// computed at, 0 before the first barrier; saved is the one last
	// stored.
	now, saved int64
	lo, hi     types.Datum
	// rows are the rows the bounds may still let in or out, by value.
	rows valueRows
	key  []byte
	// gone collects the suffixes a barrier deletes from a group.
	gone   suffixList
	out    chunkOut
	writes writeBuf
	// wmOut takes the watermarks of Watermark; sent are those sent.
	wmOut WatermarkEmit
	sent  watermarkSwitch
}

// setWatermarkOut implements watermarkSource.
func (f *temporalFilter) setWatermarkOut(out WatermarkEmit) { f.wmOut = out }

// watermark sends the watermark of the lower bound, once the rows below
// it have left.
func (f *temporalFilter) watermark() error {
	w := f.spec.Watermark
	if w == nil || f.lo.IsNull() || f.wmOut == nil {
		return nil
	}
	v, err := f.ev.Eval(w.Of, []types.Datum{f.lo})
	if err != nil {
		return err
	}
	if wm := (Watermark{Col: w.Col, Val: v}); f.sent.advance(wm) {
		return f.wmOut(wm)
	}
	return nil
}

// setBounds computes the bounds at clock now.
func (f *temporalFilter) setBounds(now int64) error {
	f.clock.Now = time.UnixMicro(now)
	var err error
	for _, b := range []struct {
		spec *TemporalBound
		dst  *types.Datum
	}{{f.spec.Lower, &f.lo}, {f.spec.Upper, &f.hi}} {
		if b.spec == nil || err != nil {
			continue
		}
		if *b.dst, err = b.spec.Now.Eval(&f.clock, nil); err != nil && f.ev.tolerate(err) {
			*b.dst, err = types.Null, nil
		}
	}
	f.now = now
	return err
}

// aboveLower reports whether v passes the lower bound lo.
func (f *temporalFilter) aboveLower(v, lo types.Datum) bool { return within(f.spec.Lower, v, lo, 1) }

// belowUpper reports whether v passes the upper bound hi.
func (f *temporalFilter) belowUpper(v, hi types.Datum) bool { return within(f.spec.Upper, v, hi, -1) }

// within reports whether v passes bound b whose value is at: above it for
// a lower bound (dir 1), below it for an upper one (dir -1). No bound
// passes everything, a NULL value nothing.
func within(b *TemporalBound, v, at types.Datum, dir int) bool {
	if b == nil {
		return true
	}
	if at.IsNull() {
		return false
	}
	c := types.Compare(v, at) * dir
	return c > 0 || c == 0 && b.Inclusive
}

// stored reports whether a row with value v belongs in state under bounds
// lo and hi: it may still enter or leave.
func (f *temporalFilter) stored(v, lo, hi types.Datum) bool {
	return f.aboveLower(v, lo) && (f.spec.Lower != nil || !f.belowUpper(v, hi))
}

// Process implements Operator.
func (f *temporalFilter) Process(_ int, c *Chunk, emit Emit) error {
	if f.now == 0 {
		return fmt.Errorf("temporal filter: rows before the first barrier")
	}
	return f.out.filter(c, emit, f.change)
}

// change applies an insert or delete of row to state and reports whether
// the row passes the bounds (and so goes out with its op).
func (f *temporalFilter) change(row []types.Datum, insert bool) (bool, error) {
	if f.spec.Or != nil {
		ok, err := f.ev.Eval(f.spec.Or, row)
		if err != nil || !ok.IsNull() && ok.Bool() {
			return err == nil, err
		}
	}
	v, err := f.ev.Eval(f.spec.Expr, row)
	if err != nil || v.IsNull() {
		return false, err
	}
	if f.stored(v, f.lo, f.hi) {
		if err := f.rows.apply(row, v, insert); err != nil {
			return false, err
		}
	}
	return f.aboveLower(v, f.lo) && f.belowUpper(v, f.hi), nil
}

// Barrier implements Operator: it moves the bounds to the barrier's clock,
// emitting the rows that cross them, and stores the state at checkpoints.
func (f *temporalFilter) Barrier(b *Barrier, emit Emit) error {
	if now := max(b.Time, f.now); now != f.now {
		first := f.now == 0
		lo, hi := f.lo, f.hi
		if err := f.setBounds(now); err != nil {
			return err
		}
		if !first {
			if err := f.move(lo, hi, emit); err != nil {
				return err
			}
		}
	}
	if err := f.out.flush(emit); err != nil {
		return err
	}
	if err := f.watermark(); err != nil {
		return err
	}
	if !b.Checkpoint {
		return nil
	}
	f.state.Commit(b.Epoch)
	if f.now != f.saved {
		row := []types.Datum{types.NewInt(f.now)}
		f.vnodes.Each(func(v int) { f.writes.put(clockKey(f.spec.StateTable, v), row) })
		f.writes.stage(f.store, b.Epoch)
		f.saved = f.now
	}
	return nil
}

// move emits the rows of every owned vnode that the bounds' move from lo
// and hi to f.lo and f.hi lets in or out, and deletes from state the rows
// that can no longer change.
func (f *temporalFilter) move(lo, hi types.Datum, emit Emit) error {
	var err error
	f.vnodes.Each(func(vnode int) {
		if err != nil {
			return
		}
		var g *Group
		if g, err = f.state.Group(uint16(vnode), rowsPrefix); err != nil || g.Len() == 0 {
			return
		}
		f.gone.reset()
		// Rows below the new lower bound leave: the window's go out.
		if f.spec.Lower != nil {
			g.Ascend(func(suffix []byte, row []types.Datum) bool {
				var v types.Datum
				if v, err = f.ev.Eval(f.spec.Expr, row); err != nil || f.aboveLower(v, f.lo) {
					return false
				}
				f.gone.add(suffix)
				if f.belowUpper(v, hi) {
					err = f.out.add(Delete, row, emit)
				}
				return err == nil
			})
		}
		f.gone.each(g.Delete)
		if err != nil || f.spec.Upper == nil {
			return
		}
		// Rows below the new upper bound enter; with no lower bound they
		// stay for good.
		f.gone.reset()
		f.key = types.AppendKey(f.key[:0], hi, false)
		g.AscendFrom(f.key, func(suffix []byte, row []types.Datum) bool {
			var v types.Datum
			if v, err = f.ev.Eval(f.spec.Expr, row); err != nil || !f.belowUpper(v, f.hi) {
				return false
			}
			if f.belowUpper(v, hi) {
				return true
			}
			if f.spec.Lower == nil {
				f.gone.add(suffix)
			}
			err = f.out.add(Insert, row, emit)
			return err == nil
		})
		f.gone.each(g.Delete)
	})
	return err
}

// suffixList collects state suffixes in one reused buffer, to delete them
// after a walk over their group.
type suffixList struct {
	buf  []byte
	ends []int
}

func (l *suffixList) reset() { l.buf, l.ends = l.buf[:0], l.ends[:0] }

// add appends suffix (copied).
func (l *suffixList) add(suffix []byte) {
	l.buf = append(l.buf, suffix...)
	l.ends = append(l.ends, len(l.buf))
}

// each calls fn with each suffix in order of addition.
func (l *suffixList) each(fn func(suffix []byte)) {
	start := 0
	for _, end := range l.ends {
		fn(l.buf[start:end])
		start = end
	}
}
