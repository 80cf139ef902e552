package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// Build implements Spec.
func (s *MaterializeSpec) Build(env *Env) (Operator, error) {
	return &materialize{spec: s, store: env.Store, groups: env.VNodeCount}, nil
}

// Explain implements Spec.
func (s *MaterializeSpec) Explain() string {
	return fmt.Sprintf("Materialize table=%d pk=%v", s.TableID, s.PK)
}

// materialize writes its input into a table with exactly the layout of
// exec.RowKey and types.AppendRow (so batch reads see it as a table) and
// passes the input through. Writes are staged at each checkpoint.
type materialize struct {
	spec   *MaterializeSpec
	store  *Store
	groups int
	key    []byte
	pk     []byte
	writes writeBuf
}

// Process implements Operator.
func (m *materialize) Process(_ int, c *Chunk, emit Emit) error {
	for i, row := range c.Rows {
		m.pk, _ = appendKeyCols(m.pk[:0], row, m.spec.PK)
		m.key = storage.AppendKey(m.key[:0], m.spec.TableID, types.VNode(m.pk, m.groups), m.pk)
		if c.Ops[i].IsInsert() {
			m.writes.put(m.key, row)
		} else {
			m.writes.del(m.key)
		}
	}
	return emit(c)
}

// Barrier implements Operator.
func (m *materialize) Barrier(b *Barrier, _ Emit) error {
	if b.Checkpoint {
		m.writes.stage(m.store, b.Epoch)
	}
	return nil
}
