package dataflow

import (
	"fmt"
	"math"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// WatermarkFilterSpec makes the watermarks of a table's or a source's rows
// (WATERMARK FOR Col AS Expr): after each chunk, the watermark of column
// Col is the largest Expr over the rows seen so far, emitted when it
// advances. Rows whose Col is below the watermark when they arrive are
// late: they are dropped, as RisingWave does. The watermark is stored per
// owned vnode in StateTable at each checkpoint, so a restarted job resumes
// with the watermark of the last committed epoch (DESIGN.md §5).
type WatermarkFilterSpec struct {
	Col  int
	Expr expr.Expr
	// Type is Col's type.
	Type       types.T
	StateTable uint32
}

// Build implements Spec: the watermark resumes as the lowest of those
// stored under the actor's vnodes (none unless every vnode has one).
func (s *WatermarkFilterSpec) Build(env *Env) (Operator, error) {
	f := &watermarkFilter{spec: s, ev: env.Eval, store: env.Store, vnodes: env.VNodes, align: env.aligned}
	if col, ok := expr.Monotone(s.Expr); ok && col == s.Col {
		f.monotone = true
	}
	missing := false
	err := eachVNodeValue(env.Store, env.VNodes, s.Type, func(v int) []byte { return watermarkKey(s.StateTable, v) },
		func(val types.Datum, ok bool) bool {
			if missing = !ok; missing {
				return false
			}
			if f.cur.IsNull() || types.Compare(val, f.cur) < 0 {
				f.cur = val
			}
			return true
		})
	if err != nil {
		return nil, err
	}
	if missing {
		f.cur = types.Null
	}
	f.saved = f.cur
	f.align.advance(f.cur)
	return f, nil
}

// Explain implements Spec.
func (s *WatermarkFilterSpec) Explain() string {
	return fmt.Sprintf("WatermarkFilter $%d >= %s state=%d", s.Col, s.Expr, s.StateTable)
}

// eachVNodeValue reads the one-column value of type t that an operator
// stores per vnode under key(v), for each vnode v of vnodes (the newest
// sealed version), and calls fn with it (ok false when none is stored)
// until fn returns false.
func eachVNodeValue(store *Store, vnodes *Bitmap, t types.T, key func(v int) []byte, fn func(val types.Datum, ok bool) bool) error {
	var err error
	more := true
	vnodes.Each(func(v int) {
		if err != nil || !more {
			return
		}
		raw, ok, e := store.Engine().Get(key(v), math.MaxUint64)
		if e != nil {
			err = e
			return
		}
		var row []types.Datum
		if ok {
			if row, e = types.DecodeRow(raw, []types.T{t}, nil); e != nil {
				err = fmt.Errorf("value of vnode %d: %w", v, e)
				return
			}
			more = fn(row[0], true)
			return
		}
		more = fn(types.Null, false)
	})
	return err
}

// watermarkKey is the state key of a watermark filter's watermark for one
// vnode.
func watermarkKey(table uint32, vnode int) []byte {
	return storage.AppendKey(nil, table, uint16(vnode), nil)
}

// watermarkFilter is the operator of WatermarkFilterSpec.
type watermarkFilter struct {
	spec   *WatermarkFilterSpec
	ev     *Evaluator
	store  *Store
	vnodes *Bitmap
	out    WatermarkEmit
	// cur is the watermark, sent the one last emitted, saved the one last
	// written to state (NULL: none).
	cur, sent, saved types.Datum
	writes           writeBuf
	// align is the source actor's part in its job's watermark alignment
	// (nil: none).
	align *alignMember
	// monotone is set when Expr is a non-decreasing function of Col
	// alone (expr.Monotone): a chunk's largest Expr is that of its row
	// with the largest Col, evaluated once.
	monotone bool
}

func (f *watermarkFilter) setWatermarkOut(out WatermarkEmit) { f.out = out }

// Process implements Operator.
func (f *watermarkFilter) Process(_ int, c *Chunk, emit Emit) error {
	high := f.cur
	raise := func(row []types.Datum) error {
		w, err := f.ev.Eval(f.spec.Expr, row)
		if err == nil && !w.IsNull() && (high.IsNull() || types.Compare(w, high) > 0) {
			high = w
		}
		return err
	}
	var kept *Chunk
	var top []types.Datum // the kept row of the largest Col, if monotone
	for i, row := range c.Rows {
		v := row[f.spec.Col]
		if !f.cur.IsNull() && !v.IsNull() && types.Compare(v, f.cur) < 0 {
			if kept == nil {
				kept = &Chunk{Ops: append([]Op(nil), c.Ops[:i]...), Rows: append([][]types.Datum(nil), c.Rows[:i]...)}
			}
			continue
		}
		if kept != nil {
			kept.Append(c.Ops[i], row)
		}
		switch {
		case !f.monotone:
			if err := raise(row); err != nil {
				return err
			}
		case !v.IsNull() && (top == nil || types.Compare(v, top[f.spec.Col]) > 0):
			top = row
		}
	}
	if top != nil {
		if err := raise(top); err != nil {
			return err
		}
	}
	if kept != nil {
		c = kept
	}
	if c.Len() > 0 {
		if err := emit(c); err != nil {
			return err
		}
	}
	if types.Compare(high, f.cur) != 0 {
		f.cur = high
		f.align.advance(high)
	}
	return f.send()
}

// send emits the watermark if it moved since last sent.
func (f *watermarkFilter) send() error {
	if f.cur.IsNull() || (!f.sent.IsNull() && types.Compare(f.cur, f.sent) <= 0) {
		return nil
	}
	f.sent = f.cur
	return f.out(Watermark{Col: f.spec.Col, Val: f.cur})
}

// Barrier implements Operator: it sends a restarted job's resumed watermark
// and stores the watermark at checkpoints when it moved.
func (f *watermarkFilter) Barrier(b *Barrier, _ Emit) error {
	if err := f.send(); err != nil {
		return err
	}
	if !b.Checkpoint || f.cur.IsNull() || (!f.saved.IsNull() && types.Compare(f.cur, f.saved) == 0) {
		return nil
	}
	row := []types.Datum{f.cur}
	f.vnodes.Each(func(v int) { f.writes.put(watermarkKey(f.spec.StateTable, v), row) })
	f.writes.stage(f.store, b.Epoch)
	f.saved = f.cur
	return nil
}
