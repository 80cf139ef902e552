// The EMIT ON WINDOW CLOSE over-window operator: window functions whose
// rows are emitted once, when a watermark has closed them and the rows
// their frames read.

package dataflow

import (
	"slices"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// EowcOverWindowSpec computes window functions over the partitions of its
// input like OverWindowSpec, but emits each row once, as an insert, when
// its values are final: the watermark of Order[0] (ascending) has passed
// the row and the rows its functions read after it (exec.WindowEval.Final
// over the rows below the watermark). Rows no later row can read are
// forgotten, so the state holds what the frames still reach. Rows whose
// Order[0] is NULL or below the last watermark are dropped, as is the
// retraction of a row already closed. Every function satisfies
// exec.WindowFunc.CanClose.
type EowcOverWindowSpec struct {
	Partition []int
	Order     []SortKey
	Funcs     []exec.WindowFunc
	// InputTypes are the input's column types, FuncTypes the functions'.
	InputTypes, FuncTypes []types.T
	StreamKey             []int
	// StateTable holds each partition's rows keyed by (partition key,
	// order key, stream key).
	StateTable uint32
	// CountTable holds per partition key its counts (eowcCounts).
	CountTable uint32
}

// eowcCounts are a partition's counts, stored in CountTable: the rows and
// peer groups forgotten (row_number, rank and dense_rank continue from
// them) and how many of its stored rows were emitted (the first ones).
type eowcCounts struct{ rows, groups, emitted int64 }

var eowcCountTypes = []types.T{types.TInt8, types.TInt8, types.TInt8}

func (s *EowcOverWindowSpec) stateTables() []uint32 { return []uint32{s.StateTable, s.CountTable} }

// Explain implements Spec.
func (s *EowcOverWindowSpec) Explain() string {
	return explainWindow("EowcOverWindow", s.Partition, s.Order, s.Funcs)
}

// Build implements Spec: the partitions of the actor's vnodes with rows
// stored are listed as open.
func (s *EowcOverWindowSpec) Build(env *Env) (Operator, error) {
	ev, err := exec.NewWindowEval(env.Eval.Ctx, s.Order, s.Funcs)
	if err != nil {
		return nil, err
	}
	w := &eowcOverWindow{spec: s, groups: env.VNodeCount, ev: ev, eval: env.Eval, open: map[string]uint16{},
		state: env.StateTable(s.StateTable, s.InputTypes), counts: env.StateTable(s.CountTable, eowcCountTypes),
		results: make([][]types.Datum, len(s.Funcs))}
	w.state.layout = &groupLayout{cols: len(s.Partition)}
	w.counts.layout = &groupLayout{cols: len(s.Partition)}
	err = scanState(env.Store, s.CountTable, env.VNodes, eowcCountTypes, func(vnode uint16, rest []byte, _ []types.Datum) error {
		w.open[string(rest)] = vnode
		return nil
	})
	return w, err
}

// eowcOverWindow is the operator of EowcOverWindowSpec.
type eowcOverWindow struct {
	spec   *EowcOverWindowSpec
	groups int
	ev     *exec.WindowEval
	eval   *Evaluator
	state  *StateTable
	counts *StateTable
	// open maps the keys of the partitions with rows not emitted to their
	// vnodes.
	open        map[string]uint16
	closedBelow types.Datum
	key, suffix []byte
	// rows, suffixes and results are a watermark's buffers.
	rows     [][]types.Datum
	suffixes [][]byte
	results  [][]types.Datum
	arena    types.RowArena
	out      chunkOut
}

// Process implements Operator: it stores inserted rows and deletes
// retracted ones that are not closed.
func (w *eowcOverWindow) Process(_ int, c *Chunk, _ Emit) error {
	col := w.spec.Order[0].Col
	for i, row := range c.Rows {
		v := row[col]
		if v.IsNull() || !w.closedBelow.IsNull() && types.Compare(v, w.closedBelow) < 0 {
			continue
		}
		w.key, _ = rowkey.AppendCols(w.key[:0], row, w.spec.Partition)
		vnode := distVNode(w.key, len(w.spec.Partition), w.groups)
		g, err := w.state.Group(vnode, w.key)
		if err != nil {
			return err
		}
		w.suffix = appendRowOrderKey(w.suffix[:0], row, w.spec.Order, w.spec.StreamKey)
		if !c.Ops[i].IsInsert() {
			g.Delete(w.suffix)
			continue
		}
		stored := w.arena.Row(len(row))
		copy(stored, row)
		g.Put(w.suffix, stored)
		if _, ok := w.open[string(w.key)]; !ok {
			if err := w.markOpen(vnode, w.key); err != nil {
				return err
			}
		}
	}
	return nil
}

// markOpen lists partition key as open, and stores its counts (zero for a
// new partition) so that Build lists it again after a recovery.
func (w *eowcOverWindow) markOpen(vnode uint16, key []byte) error {
	cg, err := w.counts.Group(vnode, key)
	if err != nil {
		return err
	}
	if _, ok := cg.Get(nil); !ok {
		zero := types.NewInt(0)
		cg.Put(nil, []types.Datum{zero, zero, zero})
	}
	w.open[string(key)] = vnode
	return nil
}

// Watermark implements watermarker: a watermark of the ordering column
// closes the rows below it and emits those whose values became final.
func (w *eowcOverWindow) Watermark(_ int, wm Watermark, emit Emit, _ WatermarkEmit) error {
	if wm.Col != w.spec.Order[0].Col || wm.Val.IsNull() {
		return nil
	}
	w.closedBelow = wm.Val
	for key, vnode := range w.open {
		done, err := w.close([]byte(key), vnode, emit)
		if err != nil {
			return err
		}
		if done {
			delete(w.open, key)
		}
	}
	// Rows still waiting for later rows may be emitted below this
	// watermark: the output carries none.
	return w.out.flush(emit)
}

// close emits the rows of partition key whose values are final, forgets
// the rows no later row reads, and reports whether every stored row of
// the partition was emitted.
func (w *eowcOverWindow) close(key []byte, vnode uint16, emit Emit) (bool, error) {
	g, err := w.state.Group(vnode, key)
	if err != nil {
		return false, err
	}
	cg, err := w.counts.Group(vnode, key)
	if err != nil {
		return false, err
	}
	var n eowcCounts
	if r, ok := cg.Get(nil); ok {
		n = eowcCounts{r[0].Int(), r[1].Int(), r[2].Int()}
	}
	col := w.spec.Order[0].Col
	w.rows, w.suffixes = w.rows[:0], w.suffixes[:0]
	g.Ascend(func(suffix []byte, row []types.Datum) bool {
		if types.Compare(row[col], w.closedBelow) >= 0 {
			return false
		}
		w.rows, w.suffixes = append(w.rows, row), append(w.suffixes, suffix)
		return true
	})
	ctx := w.eval.Ctx
	final, err := w.ev.Final(ctx, w.rows)
	if err != nil {
		return false, err
	}
	if final > int(n.emitted) {
		if err := w.emitRows(int(n.emitted), final, n, emit); err != nil {
			return false, err
		}
		n.emitted = int64(final)
	}
	reach, groups, err := w.ev.Reach(ctx, w.rows, int(n.emitted))
	if err != nil {
		return false, err
	}
	for _, s := range w.suffixes[:reach] {
		g.Delete(s)
	}
	n.rows, n.groups, n.emitted = n.rows+int64(reach), n.groups+int64(groups), n.emitted-int64(reach)
	clear(w.rows)
	clear(w.suffixes)
	if g.Len() == 0 {
		cg.Delete(nil)
		return true, nil
	}
	cg.Put(nil, []types.Datum{types.NewInt(n.rows), types.NewInt(n.groups), types.NewInt(n.emitted)})
	return int(n.emitted) == g.Len(), nil
}

// emitRows emits the rows [from, to) of w.rows with their values, the
// numbering functions continuing from the counts forgotten.
func (w *eowcOverWindow) emitRows(from, to int, n eowcCounts, emit Emit) error {
	for f := range w.results {
		w.results[f] = slices.Grow(w.results[f][:0], len(w.rows))[:len(w.rows)]
	}
	if err := w.ev.Compute(w.eval.Ctx, w.rows, w.results); err != nil {
		return err
	}
	width := len(w.spec.InputTypes)
	for i := from; i < to; i++ {
		row := w.out.row(width + len(w.spec.Funcs))
		copy(row, w.rows[i])
		for f, res := range w.results {
			v := res[i]
			switch w.spec.Funcs[f].Name {
			case "row_number", "rank":
				v = types.NewInt(v.Int() + n.rows)
			case "dense_rank":
				v = types.NewInt(v.Int() + n.groups)
			}
			row[width+f] = v
		}
		if err := w.out.add(Insert, row, emit); err != nil {
			return err
		}
	}
	return nil
}

// Barrier implements Operator.
func (w *eowcOverWindow) Barrier(b *Barrier, emit Emit) error {
	if b.Checkpoint {
		w.state.Commit(b.Epoch)
		w.counts.Commit(b.Epoch)
	}
	return w.out.flush(emit)
}
