package dataflow

import (
	"math"
	"slices"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// windowIndex lists an operator's state groups by the value of the column
// whose watermark closes them (a window's start, a buffered row's time), so
// that a watermark finds the groups it closes without scanning state. It
// only mirrors the state table: an operator rebuilds it from state when it
// starts (load).
type windowIndex struct {
	open map[string]*window
	key  []byte
	// last is the window added to last: rows come in runs of one window.
	last *window
}

// window is the groups of one value of the closing column.
type window struct {
	val    types.Datum
	groups map[groupRef]struct{}
}

// groupRef names a state group.
type groupRef struct {
	vnode  uint16
	prefix string
}

func newWindowIndex() *windowIndex { return &windowIndex{open: map[string]*window{}} }

// add records that the group (vnode, prefix) has closing value val.
func (ix *windowIndex) add(val types.Datum, vnode uint16, prefix []byte) {
	w := ix.last
	if w == nil || types.Compare(w.val, val) != 0 {
		ix.key = types.AppendKey(ix.key[:0], val, false)
		if w = ix.open[string(ix.key)]; w == nil {
			w = &window{val: val, groups: map[groupRef]struct{}{}}
			ix.open[string(ix.key)] = w
		}
		ix.last = w
	}
	w.groups[groupRef{vnode: vnode, prefix: string(prefix)}] = struct{}{}
}

// close removes the windows whose value is below watermark and returns
// them in ascending order of value.
func (ix *windowIndex) close(watermark types.Datum) []*window {
	var out []*window
	ix.last = nil
	for k, w := range ix.open {
		if types.Compare(w.val, watermark) < 0 {
			out = append(out, w)
			delete(ix.open, k)
		}
	}
	slices.SortFunc(out, func(a, b *window) int { return types.Compare(a.val, b.val) })
	return out
}

// deleteGroup deletes every entry of the group ref of table.
func deleteGroup(table *StateTable, ref groupRef) error {
	g, err := table.Group(ref.vnode, []byte(ref.prefix))
	if err != nil {
		return err
	}
	g.Clear()
	return nil
}

// load adds every group stored in table under the vnodes: rowTypes decode
// a stored row, closing returns its closing value and prefix its group's
// prefix given the key after the vnode.
func (ix *windowIndex) load(store *Store, table uint32, vnodes *Bitmap, rowTypes []types.T,
	closing func(row []types.Datum) types.Datum, prefix func(rest []byte, row []types.Datum) []byte) error {
	return scanState(store, table, vnodes, rowTypes, func(vnode uint16, rest []byte, row []types.Datum) error {
		if val := closing(row); !val.IsNull() {
			ix.add(val, vnode, prefix(rest, row))
		}
		return nil
	})
}

// scanState calls fn with every entry stored in table under the vnodes
// (the newest sealed versions): its vnode, its key after the vnode and its
// row decoded with rowTypes. Operators that mirror their state in memory
// rebuild it so when they start.
func scanState(store *Store, table uint32, vnodes *Bitmap, rowTypes []types.T, fn func(vnode uint16, rest []byte, row []types.Datum) error) error {
	var err error
	vnodes.Each(func(v int) {
		if err != nil {
			return
		}
		lower := storage.AppendKey(nil, table, uint16(v), nil)
		err = store.Engine().Scan(lower, prefixEnd(lower), math.MaxUint64, func(key, value []byte) error {
			row, err := types.DecodeRow(value, rowTypes, nil)
			if err != nil {
				return err
			}
			return fn(uint16(v), key[len(lower):], row)
		})
	})
	return err
}
