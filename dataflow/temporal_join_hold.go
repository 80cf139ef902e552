package dataflow

import (
	"encoding/binary"
	"slices"

	"github.com/streamdb/streamdb/types"
)

// leftHold keeps a new temporal join's left changes in its state until
// the right input is loaded (TemporalJoinSpec.HoldTable): one group per
// barrier, keyed by its number, each row under its number within the
// group with its op as an extra column. Groups of past checkpoints are
// clean and the state cache may evict them, so the hold's memory stays
// bounded however long the right backfill takes.
type leftHold struct {
	table *StateTable
	// vnode is the actor's first vnode, which the hold's groups are
	// stored under.
	vnode uint16
	// epochs is the number of the current group; rows the number of rows
	// in it.
	epochs      uint64
	rows        uint32
	key, suffix []byte
}

func newLeftHold(table *StateTable, vnodes *Bitmap) *leftHold {
	h := &leftHold{table: table}
	first := -1
	vnodes.Each(func(v int) {
		if first < 0 {
			first = v
		}
	})
	h.vnode = uint16(max(first, 0))
	return h
}

// groupKey returns the prefix of group number n.
func (h *leftHold) groupKey(n uint64) []byte {
	h.key = binary.BigEndian.AppendUint64(h.key[:0], n)
	return h.key
}

// add holds the changes of c in the current group.
func (h *leftHold) add(c *Chunk) error {
	g, err := h.table.Group(h.vnode, h.groupKey(h.epochs))
	if err != nil {
		return err
	}
	for i, row := range c.Rows {
		h.suffix = binary.BigEndian.AppendUint32(h.suffix[:0], h.rows)
		h.rows++
		g.Put(h.suffix, append(slices.Clip(row), types.NewInt(int64(c.Ops[i]))))
	}
	return nil
}

// next starts the group of the next barrier.
func (h *leftHold) next() {
	h.epochs++
	h.rows = 0
}

// release passes every held change, in arrival order, to fn and deletes
// it.
func (h *leftHold) release(fn func(row []types.Datum, insert bool) error) error {
	for n := uint64(0); n <= h.epochs; n++ {
		g, err := h.table.Group(h.vnode, h.groupKey(n))
		if err != nil {
			return err
		}
		g.Ascend(func(_ []byte, row []types.Datum) bool {
			last := len(row) - 1
			err = fn(row[:last], Op(row[last].Int()).IsInsert())
			return err == nil
		})
		if err != nil {
			return err
		}
		g.Clear()
	}
	return nil
}
