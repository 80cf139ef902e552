// The EXCEPT and INTERSECT operator: per distinct row, the copies each
// input holds, and the copies of the row in the output that they make.

package dataflow

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// SetOpSpec computes EXCEPT or INTERSECT (Kind), or their ALL forms, of
// input 0 (left) and input 1 (right), rows of InputTypes routed by every
// column. Rows are equal when their columns are not distinct (NULLs are
// equal). Output: for each distinct row, Kind.Copies(All, l, r) copies of
// it, l and r being its copies in the inputs; with All each copy carries
// its number (1, 2, ...) in an appended int8 column, which completes the
// stream key, otherwise the row is its own key.
type SetOpSpec struct {
	Kind       exec.SetOpKind
	All        bool
	InputTypes []types.T
	// StateTable holds one entry per distinct row: the row's values as
	// first seen, then its copies in the left and in the right input.
	StateTable uint32
}

// Build implements Spec.
func (s *SetOpSpec) Build(env *Env) (Operator, error) {
	rowTypes := append(slices.Clip(s.InputTypes), types.TInt8, types.TInt8)
	o := &setOp{spec: s, groups: env.VNodeCount, touched: map[string]*setOpRow{},
		state: env.StateTable(s.StateTable, rowTypes), cols: make([]int, len(s.InputTypes))}
	for i := range o.cols {
		o.cols[i] = i
	}
	o.state.pointGroups = true
	return o, nil
}

// lazyState implements lazySpec: a row's entry is read through the state
// table when the row first arrives in an epoch.
func (*SetOpSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *SetOpSpec) Explain() string {
	all := ""
	if s.All {
		all = " all"
	}
	return fmt.Sprintf("SetOp %s%s", s.Kind, all)
}

// setOp keeps each distinct row's copies per input in its state table,
// under the row's key. The rows touched in an epoch are loaded on first
// touch with their output copies at that moment; at the barrier the
// difference with their new output copies is emitted and their entries
// saved, so changes within an epoch are coalesced.
type setOp struct {
	spec    *SetOpSpec
	groups  int
	state   *StateTable
	cols    []int // every input column: the row's key
	touched map[string]*setOpRow
	order   []*setOpRow
	key     []byte
	out     chunkOut
}

// setOpRow is a distinct row touched in the current epoch.
type setOpRow struct {
	entry *Group
	// row holds the row's values as first seen; copies its copies in the
	// left and the right input; old its output copies before the epoch.
	row    []types.Datum
	copies [2]int64
	old    int64
}

// Process implements Operator.
func (o *setOp) Process(input int, c *Chunk, _ Emit) error {
	width := len(o.spec.InputTypes)
	for i, row := range c.Rows {
		o.key, _ = rowkey.AppendCols(o.key[:0], row, o.cols)
		r := o.touched[string(o.key)]
		if r == nil {
			g, err := o.state.Group(distVNode(o.key, width, o.groups), o.key)
			if err != nil {
				return err
			}
			r = &setOpRow{entry: g}
			if stored, ok := g.Get(nil); ok {
				r.row, r.copies = stored[:width], [2]int64{stored[width].Int(), stored[width+1].Int()}
				r.old = o.spec.Kind.Copies(o.spec.All, r.copies[0], r.copies[1])
			} else {
				r.row = slices.Clone(row[:width])
			}
			o.touched[string(o.key)] = r
			o.order = append(o.order, r)
		}
		r.copies[input] += step(!c.Ops[i].IsInsert())
	}
	return nil
}

// Barrier implements Operator: it emits the changes of the touched rows'
// output copies and saves their entries.
func (o *setOp) Barrier(b *Barrier, emit Emit) error {
	for _, r := range o.order {
		if r.copies[0] < 0 || r.copies[1] < 0 {
			return errRetractMissing
		}
		if r.copies == [2]int64{} {
			r.entry.Delete(nil)
		} else {
			r.entry.Put(nil, append(slices.Clip(r.row), types.NewInt(r.copies[0]), types.NewInt(r.copies[1])))
		}
		cur := o.spec.Kind.Copies(o.spec.All, r.copies[0], r.copies[1])
		for n := r.old + 1; n <= cur; n++ {
			if err := o.out.add(Insert, o.outRow(r.row, n), emit); err != nil {
				return err
			}
		}
		for n := r.old; n > cur; n-- {
			if err := o.out.add(Delete, o.outRow(r.row, n), emit); err != nil {
				return err
			}
		}
	}
	clear(o.touched)
	clear(o.order)
	o.order = o.order[:0]
	if b.Checkpoint {
		o.state.Commit(b.Epoch)
	}
	return o.out.flush(emit)
}

// outRow is the output row of copy n of row: the row, followed by n with
// All.
func (o *setOp) outRow(row []types.Datum, n int64) []types.Datum {
	if !o.spec.All {
		return row
	}
	out := o.out.row(len(row) + 1)
	copy(out, row)
	out[len(row)] = types.NewInt(n)
	return out
}
