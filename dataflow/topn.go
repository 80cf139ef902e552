package dataflow

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// Build implements Spec.
func (s *TopNSpec) Build(env *Env) (Operator, error) {
	t := &topN{spec: s, groups: env.VNodeCount, touched: map[string]*topNGroup{},
		state: env.StateTable(s.StateTable, s.InputTypes)}
	// A group is a Top-N partition.
	t.state.layout = &groupLayout{cols: len(s.GroupKey)}
	return t, nil
}

// lazyState implements lazySpec: a group is read through the state table
// when a row of its vnode first touches it in an epoch; nothing is loaded
// at build. A global Top-N keeps its group under vnode 0 whatever the
// row's.
func (s *TopNSpec) lazyState() bool { return len(s.GroupKey) > 0 }

// Explain implements Spec.
func (s *TopNSpec) Explain() string {
	flags := ""
	if s.WithTies {
		flags = " with ties"
	}
	if s.Number {
		flags += " numbered"
	}
	return fmt.Sprintf("TopN group=%v order=%s limit=%d offset=%d%s", s.GroupKey, explainOrder(s.Order), s.Limit, s.Offset, flags)
}

// explainOrder renders sort keys for EXPLAIN.
func explainOrder(keys []SortKey) string {
	order := make([]string, len(keys))
	for i, k := range keys {
		order[i] = fmt.Sprintf("$%d", k.Col)
		if k.Desc {
			order[i] += " DESC"
		}
		if k.NullsFirst {
			order[i] += " NULLS FIRST"
		} else {
			order[i] += " NULLS LAST"
		}
	}
	return fmt.Sprint(order)
}

// topN keeps every row of each group in its state table under (order key,
// stream key), so the group's entries are in rank order. The visible
// window of a group is its entries Offset .. Offset+Limit-1, each with its
// number (row number or rank). A group's window is copied when the group
// is first touched in an epoch; at the barrier it is compared with the new
// window and the difference emitted (deletes first, then updates and
// inserts), so changes within an epoch are coalesced. Numbered rows are
// emitted with their numbers, so a row whose number changed is updated.
type topN struct {
	spec    *TopNSpec
	groups  int
	state   *StateTable
	touched map[string]*topNGroup
	order   []*topNGroup
	key     []byte
	suffix  []byte
	diff    entryDiff
}

// topNGroup is a group touched in the current epoch with its window before
// the epoch.
type topNGroup struct {
	g   *Group
	old []topNEntry
}

// topNEntry is one entry of a window, with its number in the group.
type topNEntry struct {
	suffix []byte
	row    []types.Datum
	num    int64
}

// windowChange is an insert or an update of a window entry: old is nil
// for an insert.
type windowChange struct{ old, cur *topNEntry }

// Order-key markers: NULLs sort before or after every value by their
// marker, whatever the direction of the values.
const (
	nullFirstMarker byte = 0x00
	valueMarker     byte = 0x01
	nullLastMarker  byte = 0x02
)

// appendRowOrderKey appends the entry key of row: its order key, encoded so
// that byte order is the order's, then its stream key.
func appendRowOrderKey(dst []byte, row []types.Datum, order []SortKey, streamKey []int) []byte {
	for _, k := range order {
		v := row[k.Col]
		switch {
		case !v.IsNull():
			dst = types.AppendKey(append(dst, valueMarker), v, k.Desc)
		case k.NullsFirst:
			dst = append(dst, nullFirstMarker)
		default:
			dst = append(dst, nullLastMarker)
		}
	}
	dst, _ = rowkey.AppendCols(dst, row, streamKey)
	return dst
}

// window returns the group's visible entries, in order.
func (t *topN) window(g *Group) []topNEntry {
	var w []topNEntry
	if t.spec.Limit == 0 {
		return nil
	}
	if t.spec.WithTies {
		return t.rankWindow(g)
	}
	skip := t.spec.Offset
	g.Ascend(func(suffix []byte, row []types.Datum) bool {
		if skip > 0 {
			skip--
			return true
		}
		w = append(w, topNEntry{suffix: suffix, row: row, num: t.spec.Offset + int64(len(w)) + 1})
		return t.spec.Limit < 0 || int64(len(w)) < t.spec.Limit
	})
	return w
}

// rankWindow returns the entries whose rank() is in Offset+1 ..
// Offset+Limit: a row's rank is 1 + the number of rows strictly before it.
func (t *topN) rankWindow(g *Group) []topNEntry {
	var w []topNEntry
	var prev []types.Datum
	rank, i := int64(0), int64(0)
	g.Ascend(func(suffix []byte, row []types.Datum) bool {
		i++
		if prev == nil || !t.sameOrder(prev, row) {
			rank = i
		}
		prev = row
		if t.spec.Limit >= 0 && rank > t.spec.Offset+t.spec.Limit {
			return false
		}
		if rank > t.spec.Offset {
			w = append(w, topNEntry{suffix: suffix, row: row, num: rank})
		}
		return true
	})
	return w
}

// sameOrder reports whether two rows tie on the order key.
func (t *topN) sameOrder(a, b []types.Datum) bool {
	for _, k := range t.spec.Order {
		x, y := a[k.Col], b[k.Col]
		if x.IsNull() != y.IsNull() || (!x.IsNull() && types.Compare(x, y) != 0) {
			return false
		}
	}
	return true
}

// Process implements Operator.
func (t *topN) Process(_ int, c *Chunk, _ Emit) error {
	for i, row := range c.Rows {
		t.key, _ = rowkey.AppendCols(t.key[:0], row, t.spec.GroupKey)
		tg := t.touched[string(t.key)]
		if tg == nil {
			g, err := t.state.Group(distVNode(t.key, len(t.spec.GroupKey), t.groups), t.key)
			if err != nil {
				return err
			}
			tg = &topNGroup{g: g, old: t.window(g)}
			t.touched[string(t.key)] = tg
			t.order = append(t.order, tg)
		}
		t.suffix = appendRowOrderKey(t.suffix[:0], row, t.spec.Order, t.spec.StreamKey)
		if c.Ops[i].IsInsert() {
			tg.g.Put(t.suffix, row)
			continue
		}
		if _, ok := tg.g.Get(t.suffix); !ok {
			return errRetractMissing
		}
		tg.g.Delete(t.suffix)
	}
	return nil
}

// Barrier implements Operator: it emits the changes of the touched groups'

// Watermark implements watermarker: the watermark of a group key column
// passes, after the changes so far, as a group's rows change only when
// rows of that group arrive.
func (t *topN) Watermark(_ int, w Watermark, emit Emit, out WatermarkEmit) error {
	if !slices.Contains(t.spec.GroupKey, w.Col) {
		return nil
	}
	if err := t.emitChanges(emit); err != nil {
		return err
	}
	return out(w)
}

// windows.
func (t *topN) Barrier(b *Barrier, emit Emit) error {
	if err := t.emitChanges(emit); err != nil {
		return err
	}
	if b.Checkpoint {
		t.state.Commit(b.Epoch)
	}
	return nil
}

// emitChanges emits the changes of the groups touched since the last
// call.
func (t *topN) emitChanges(emit Emit) error {
	for _, tg := range t.order {
		if err := t.emitDiff(tg.old, t.window(tg.g), emit); err != nil {
			return err
		}
	}
	clear(t.touched)
	clear(t.order)
	t.order = t.order[:0]
	return t.diff.out.flush(emit)
}

// emitDiff emits the change from window old to window cur.
func (t *topN) emitDiff(old, cur []topNEntry, emit Emit) error {
	return t.diff.emit(old, cur, t.spec.Number, t.outRow, emit)
}

// entryDiff emits the change between two versions of a group's entries,
// each in suffix order. Its buffers are reused between calls.
type entryDiff struct {
	out  chunkOut
	cmp  rowComparer
	adds []windowChange
}

// emit emits the change from entries old to entries cur, as outRow renders
// them (numbered: an entry whose number changed is updated): deletes
// first, so that a row moving within the group is deleted before it is
// inserted again under its new suffix.
func (d *entryDiff) emit(old, cur []topNEntry, numbered bool, outRow func(*topNEntry) []types.Datum, emit Emit) error {
	d.adds = d.adds[:0]
	i, k := 0, 0
	for i < len(old) || k < len(cur) {
		c := 0
		switch {
		case i == len(old):
			c = 1
		case k == len(cur):
			c = -1
		default:
			c = bytes.Compare(old[i].suffix, cur[k].suffix)
		}
		switch {
		case c < 0:
			if err := d.out.add(Delete, outRow(&old[i]), emit); err != nil {
				return err
			}
			i++
		case c > 0:
			d.adds = append(d.adds, windowChange{cur: &cur[k]})
			k++
		default:
			if !d.cmp.identical(old[i].row, cur[k].row) || numbered && old[i].num != cur[k].num {
				d.adds = append(d.adds, windowChange{old: &old[i], cur: &cur[k]})
			}
			i++
			k++
		}
	}
	for _, a := range d.adds {
		var err error
		if a.old == nil {
			err = d.out.add(Insert, outRow(a.cur), emit)
		} else {
			err = d.out.update(outRow(a.old), outRow(a.cur), emit)
		}
		if err != nil {
			return err
		}
	}
	clear(d.adds)
	return nil
}

// outRow is the output row of a window entry: its row, followed by its
// number when the Top-N numbers its rows.
func (t *topN) outRow(e *topNEntry) []types.Datum {
	if !t.spec.Number {
		return e.row
	}
	row := t.diff.out.row(len(e.row) + 1)
	copy(row, e.row)
	row[len(e.row)] = types.NewInt(e.num)
	return row
}
