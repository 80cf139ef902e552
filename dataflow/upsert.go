package dataflow

import (
	"bytes"
	"log/slog"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// upsert is the operator of a MaterializeSpec with Upsert: its input is
// changes by primary key (a keyed source's), which it turns into the
// exact changes of the stored table, reading each key's stored row from
// the table itself (a state table whose groups are single rows under the
// primary key). An insert of a stored key becomes an update pair from the
// stored row, an insert equal to the stored row is dropped, a delete
// (whose non-key columns may be anything) deletes the stored row of its
// key, and a delete of an absent key is dropped. Replaying changes
// already applied is therefore harmless: the table converges on the last
// change of each key.
//
// A column of an insert that is types.Unchanged takes the stored row's
// value (NULL if the key is not stored, which is logged once), so no
// Unchanged leaves the operator. A Truncate deletes every stored row of
// the actor's vnodes (see StateTable.clearVNode); the source sends it to
// every actor, so the whole table is emptied at that point of the stream.
type upsert struct {
	spec   *MaterializeSpec
	state  *StateTable
	groups int
	vnodes *Bitmap
	pk     []byte
	out    chunkOut
	// a and b hold the encodings of rows being compared.
	a, b []byte
	// warned is set once an Unchanged column of an absent key was logged.
	warned bool
}

// newUpsert builds the upsert operator of s.
func newUpsert(s *MaterializeSpec, env *Env) *upsert {
	u := &upsert{spec: s, groups: env.VNodeCount, vnodes: env.VNodes, state: env.StateTable(s.TableID, s.Types)}
	u.state.pointGroups = true
	return u
}

// Process implements Operator.
func (u *upsert) Process(_ int, c *Chunk, emit Emit) error {
	for i, row := range c.Rows {
		if c.Ops[i] == Truncate {
			if err := u.truncate(emit); err != nil {
				return err
			}
			continue
		}
		u.pk, _ = rowkey.AppendCols(u.pk[:0], row, u.spec.PK)
		g, err := u.state.Group(rowkey.VNode(u.pk, u.groups), u.pk)
		if err != nil {
			return err
		}
		old, stored := g.Get(nil)
		if c.Ops[i].IsInsert() {
			row = u.keepUnchanged(row, old)
		}
		switch {
		case c.Ops[i].IsInsert() && !stored:
			g.Put(nil, row)
			err = u.out.add(Insert, row, emit)
		case c.Ops[i].IsInsert():
			if u.same(old, row) {
				continue
			}
			g.Put(nil, row)
			err = u.out.update(old, row, emit)
		case stored:
			g.Delete(nil)
			err = u.out.add(Delete, old, emit)
		}
		if err != nil {
			return err
		}
	}
	return u.out.flush(emit)
}

// keepUnchanged returns row, or, if a column of it is types.Unchanged, a
// copy of it with the values of those columns taken from old, the stored
// row (NULL if nil).
func (u *upsert) keepUnchanged(row, old []types.Datum) []types.Datum {
	i := 0
	for i < len(row) && !row[i].IsUnchanged() {
		i++
	}
	if i == len(row) {
		return row
	}
	if old == nil && !u.warned {
		u.warned = true
		slog.Warn("an update left a column unchanged (an unchanged TOASTed value) of a key the table does not hold; the column is NULL",
			"table", u.spec.TableID)
	}
	merged := u.out.row(len(row))
	for j, d := range row {
		switch {
		case !d.IsUnchanged():
			merged[j] = d
		case old != nil:
			merged[j] = old[j]
		}
	}
	return merged
}

// truncate deletes every stored row of the actor's vnodes, emitting their
// deletes.
func (u *upsert) truncate(emit Emit) error {
	var err error
	u.vnodes.Each(func(v int) {
		if err == nil {
			err = u.state.clearVNode(uint16(v), func(row []types.Datum) error {
				return u.out.add(Delete, row, emit)
			})
		}
	})
	return err
}

// same reports whether rows a and b encode alike (a numeric's scale and a
// NULL count as differences, as they show in the table).
func (u *upsert) same(a, b []types.Datum) bool {
	u.a, u.b = types.AppendRow(u.a[:0], a), types.AppendRow(u.b[:0], b)
	return bytes.Equal(u.a, u.b)
}

// Watermark implements watermarker: the watermarks pass to downstream jobs.
func (u *upsert) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error { return out(w) }

// Barrier implements Operator: a checkpoint stages the changed rows.
func (u *upsert) Barrier(b *Barrier, _ Emit) error {
	if b.Checkpoint {
		u.state.Commit(b.Epoch)
	}
	return nil
}
