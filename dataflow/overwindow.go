// The over-window operator: window functions of any kind over partitions
// kept whole in a state table, recomputed with the batch evaluator.

package dataflow

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// OverWindowSpec computes window functions over the partitions of its
// input (the rows equal on Partition, NULLs equal; none: one partition),
// each ordered by Order. Output rows: the input row, then one value per
// function. When a partition changes, every row whose values changed is
// updated, rows added and removed are inserted and deleted.
type OverWindowSpec struct {
	Partition []int
	Order     []SortKey
	Funcs     []exec.WindowFunc
	// InputTypes are the input's column types, FuncTypes the functions'.
	InputTypes, FuncTypes []types.T
	StreamKey             []int
	// StateTable holds each partition's rows keyed by (partition key,
	// order key, stream key), each followed by the values last emitted
	// for it, so that retractions are exact.
	StateTable uint32
}

func (s *OverWindowSpec) stateTables() []uint32 { return []uint32{s.StateTable} }

// lazyState implements lazySpec, as for a Top-N: a partition is read when
// a row first touches it in an epoch; without partitions the one
// partition is under vnode 0.
func (s *OverWindowSpec) lazyState() bool { return len(s.Partition) > 0 }

// Explain implements Spec.
func (s *OverWindowSpec) Explain() string {
	return explainWindow("OverWindow", s.Partition, s.Order, s.Funcs)
}

// explainWindow is the EXPLAIN line of the window operator op.
func explainWindow(op string, partition []int, order []SortKey, fs []exec.WindowFunc) string {
	funcs := make([]string, len(fs))
	for i := range fs {
		funcs[i] = fs[i].String()
	}
	return fmt.Sprintf("%s partition=%v order=%s funcs=[%s]", op, partition, explainOrder(order), strings.Join(funcs, ", "))
}

// Build implements Spec.
func (s *OverWindowSpec) Build(env *Env) (Operator, error) {
	ev, err := exec.NewWindowEval(env.Eval.Ctx, s.Order, s.Funcs)
	if err != nil {
		return nil, err
	}
	w := &overWindow{spec: s, groups: env.VNodeCount, ev: ev, eval: env.Eval,
		width: len(s.InputTypes), touched: map[string]int{},
		state: env.StateTable(s.StateTable, append(append([]types.T(nil), s.InputTypes...), s.FuncTypes...))}
	w.state.layout = &groupLayout{cols: len(s.Partition)}
	w.results = make([][]types.Datum, len(s.Funcs))
	return w, nil
}

// overWindow keeps every row of each partition in its state table, in
// window order, followed by its window values as last emitted. A
// partition's entries are copied when a row first touches it in an epoch;
// at the barrier its window values are recomputed and the difference from
// the copy emitted (deletes first, then updates and inserts), so changes
// within an epoch are coalesced. A row inserted in the epoch is stored
// with NULL values until the barrier computes them.
type overWindow struct {
	spec   *OverWindowSpec
	groups int
	ev     *exec.WindowEval
	eval   *Evaluator
	width  int
	state  *StateTable
	// touched maps the partition keys touched in the epoch to their index
	// in parts, whose elements are reused across epochs (used of them).
	touched map[string]int
	parts   []overWindowPart
	used    int
	key     []byte
	suffix  []byte
	diff    entryDiff
	// rows, cur and results are the barrier's buffers; arena holds the
	// stored rows.
	rows    [][]types.Datum
	cur     []topNEntry
	results [][]types.Datum
	arena   types.RowArena
}

// overWindowPart is a partition touched in the epoch with its entries
// before the epoch.
type overWindowPart struct {
	g   *Group
	old []topNEntry
}

// Process implements Operator.
func (w *overWindow) Process(_ int, c *Chunk, _ Emit) error {
	for i, row := range c.Rows {
		w.key, _ = rowkey.AppendCols(w.key[:0], row, w.spec.Partition)
		pi, ok := w.touched[string(w.key)]
		if !ok {
			g, err := w.state.Group(distVNode(w.key, len(w.spec.Partition), w.groups), w.key)
			if err != nil {
				return err
			}
			if w.used == len(w.parts) {
				w.parts = append(w.parts, overWindowPart{})
			}
			pi = w.used
			w.used++
			p := &w.parts[pi]
			p.g, p.old = g, p.old[:0]
			g.Ascend(func(suffix []byte, row []types.Datum) bool {
				p.old = append(p.old, topNEntry{suffix: suffix, row: row})
				return true
			})
			w.touched[string(w.key)] = pi
		}
		g := w.parts[pi].g
		w.suffix = appendRowOrderKey(w.suffix[:0], row, w.spec.Order, w.spec.StreamKey)
		if c.Ops[i].IsInsert() {
			stored := w.arena.Row(w.width + len(w.spec.Funcs))
			copy(stored, row)
			g.Put(w.suffix, stored)
			continue
		}
		if _, ok := g.Get(w.suffix); !ok {
			return errRetractMissing
		}
		g.Delete(w.suffix)
	}
	return nil
}

// Barrier implements Operator: it recomputes the touched partitions and
// emits the rows whose window values changed.
func (w *overWindow) Barrier(b *Barrier, emit Emit) error {
	for i := range w.parts[:w.used] {
		p := &w.parts[i]
		if err := w.recompute(p.g); err != nil {
			return err
		}
		if err := w.diff.emit(p.old, w.cur, false, storedRow, emit); err != nil {
			return err
		}
		clear(p.old)
		p.g = nil
	}
	w.used = 0
	clear(w.touched)
	clear(w.cur)
	clear(w.rows)
	if b.Checkpoint {
		w.state.Commit(b.Epoch)
	}
	return w.diff.out.flush(emit)
}

// recompute computes the window values of partition g's rows, stores the
// rows whose values changed and lists the partition's entries in w.cur.
func (w *overWindow) recompute(g *Group) error {
	w.cur, w.rows = w.cur[:0], w.rows[:0]
	g.Ascend(func(suffix []byte, row []types.Datum) bool {
		w.cur = append(w.cur, topNEntry{suffix: suffix, row: row})
		w.rows = append(w.rows, row)
		return true
	})
	if len(w.rows) == 0 {
		return nil
	}
	for f := range w.results {
		w.results[f] = slices.Grow(w.results[f][:0], len(w.rows))[:len(w.rows)]
	}
	if err := w.ev.Compute(w.eval.Ctx, w.rows, w.results); err != nil {
		// A data error (an overflow, a RANGE offset out of range) makes
		// the partition's values NULL, as an expression's makes its value.
		if !w.eval.tolerate(err) {
			return err
		}
		for _, res := range w.results {
			clear(res)
		}
	}
	for i := range w.cur {
		e := &w.cur[i]
		if w.sameValues(e.row, i) {
			continue
		}
		row := w.arena.Row(len(e.row))
		copy(row, e.row[:w.width])
		for f, res := range w.results {
			row[w.width+f] = res[i]
		}
		g.Put(e.suffix, row)
		e.row = row
	}
	return nil
}

// sameValues reports whether stored row, the i-th of its partition, holds
// the values just computed for it.
func (w *overWindow) sameValues(row []types.Datum, i int) bool {
	for f, res := range w.results {
		if !w.diff.cmp.identical(row[w.width+f:w.width+f+1], res[i:i+1]) {
			return false
		}
	}
	return true
}

// storedRow is the output row of an entry: its stored row.
func storedRow(e *topNEntry) []types.Datum { return e.row }
