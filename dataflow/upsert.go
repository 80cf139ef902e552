package dataflow

import (
	"bytes"

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
type upsert struct {
	spec   *MaterializeSpec
	state  *StateTable
	groups int
	pk     []byte
	out    chunkOut
	// a and b hold the encodings of rows being compared.
	a, b []byte
}

// newUpsert builds the upsert operator of s.
func newUpsert(s *MaterializeSpec, env *Env) *upsert {
	u := &upsert{spec: s, groups: env.VNodeCount, state: env.StateTable(s.TableID, s.Types)}
	u.state.pointGroups = true
	return u
}

// Process implements Operator.
func (u *upsert) Process(_ int, c *Chunk, emit Emit) error {
	for i, row := range c.Rows {
		u.pk, _ = rowkey.AppendCols(u.pk[:0], row, u.spec.PK)
		g, err := u.state.Group(rowkey.VNode(u.pk, u.groups), u.pk)
		if err != nil {
			return err
		}
		old, stored := g.Get(nil)
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
