package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// Build implements Spec.
func (s *MaterializeSpec) Build(env *Env) (Operator, error) {
	if s.Upsert {
		return newUpsert(s, env), nil
	}
	m := &materialize{spec: s, store: env.Store, groups: env.VNodeCount}
	if s.RowBlocks {
		m.blocks = make([]rowBlock, env.VNodeCount)
	}
	return m, nil
}

// lazyState implements lazySpec: a materialization writes its rows and
// reads nothing, or, upserting, reads them by key as they come.
func (*MaterializeSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *MaterializeSpec) Explain() string {
	blocks := ""
	if s.RowBlocks {
		blocks = " row-blocks"
	}
	if s.Upsert {
		blocks = " upsert"
	}
	return fmt.Sprintf("Materialize table=%d pk=%v%s", s.TableID, s.PK, blocks)
}

// Bounds of a row block: a block is written once it holds this many rows
// or bytes, so that a scan never decodes a huge value at once.
const (
	maxBlockRows  = 4096
	maxBlockBytes = 256 << 10
)

// materialize writes its input into a table with exactly the layout of
// exec.RowKey and types.AppendRow (so batch reads see it as a table) and
// passes the input through. Writes are staged at each checkpoint. With
// RowBlocks the inserts of each vnode are gathered into row blocks, each
// stored under the key of its first row.
type materialize struct {
	spec   *MaterializeSpec
	store  *Store
	groups int
	key    []byte
	pk     []byte
	writes writeBuf
	// blocks are the open row blocks by vnode; touched lists the vnodes
	// whose block holds rows.
	blocks  []rowBlock
	touched []uint16
}

// rowBlock is the open row block of a vnode: the storage key of its first
// row and its rows as AppendRow encodes them.
type rowBlock struct {
	key  []byte
	rows []byte
	n    int
}

// Process implements Operator.
func (m *materialize) Process(_ int, c *Chunk, emit Emit) error {
	// The changes go on first: the actors downstream start on them while
	// they are encoded here.
	if err := emit(c); err != nil {
		return err
	}
	for i, row := range c.Rows {
		m.pk, _ = rowkey.AppendCols(m.pk[:0], row, m.spec.PK)
		vnode := rowkey.VNode(m.pk, m.groups)
		m.key = storage.AppendKey(m.key[:0], m.spec.TableID, vnode, m.pk)
		switch {
		case m.blocks != nil:
			if !c.Ops[i].IsInsert() {
				return pgerror.New(pgerror.CodeInternal, "materialized view table %d stores row blocks but received a %v", m.spec.TableID, c.Ops[i])
			}
			m.appendToBlock(vnode, row)
		case c.Ops[i].IsInsert():
			m.writes.put(m.key, row)
		default:
			m.writes.del(m.key)
		}
	}
	return nil
}

// appendToBlock adds row, whose storage key is m.key, to vnode's block,
// writing the block out once it is full.
func (m *materialize) appendToBlock(vnode uint16, row []types.Datum) {
	b := &m.blocks[vnode]
	if b.n == 0 {
		b.key = append(b.key[:0], m.key...)
		m.touched = append(m.touched, vnode)
	}
	b.rows = types.AppendRow(b.rows, row)
	b.n++
	if b.n >= maxBlockRows || len(b.rows) >= maxBlockBytes {
		m.writeBlock(b)
	}
}

// writeBlock adds b's rows to the writes and empties it.
func (m *materialize) writeBlock(b *rowBlock) {
	if b.n > 0 {
		m.writes.putValue(b.key, b.rows)
		b.rows, b.n = b.rows[:0], 0
	}
}

// Watermark implements watermarker: the watermarks pass to downstream jobs.
func (m *materialize) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error { return out(w) }

// Barrier implements Operator.
func (m *materialize) Barrier(b *Barrier, _ Emit) error {
	if !b.Checkpoint {
		return nil
	}
	for _, vnode := range m.touched {
		m.writeBlock(&m.blocks[vnode])
	}
	m.touched = m.touched[:0]
	m.writes.stage(m.store, b.Epoch)
	return nil
}
