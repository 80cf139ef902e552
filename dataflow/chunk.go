// Package dataflow is streamdb's streaming runtime: continuous queries run
// as graphs of fragments, each fragment as parallel actors that own sets of
// key groups (vnodes). Actors exchange changelog chunks and barriers over
// bounded queues; barriers carry epochs, align at multi-input operators and
// trigger checkpoints of every operator's state into the node's store
// (DESIGN.md sections 2 to 5).
package dataflow

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// Op is the change a row carries in a changelog stream.
type Op uint8

// Changelog ops. An update is a pair UpdateDelete (old row) immediately
// followed by UpdateInsert (new row); operators may treat the pair as a
// delete and an insert.
const (
	Insert Op = iota
	Delete
	UpdateDelete
	UpdateInsert
	// Truncate deletes every row of the table it reaches, as of its place
	// in the stream (an upstream TRUNCATE). Only a keyed source emits it,
	// with a row of types.Unchanged; dispatchers send it to every actor of
	// a hash-distributed consumer, and the upserting materialization of
	// the source's table consumes it (it emits the deletes of its rows).
	Truncate
)

// IsInsert reports whether op adds its row (Insert or UpdateInsert).
func (op Op) IsInsert() bool { return op == Insert || op == UpdateInsert }

func (op Op) String() string { return [...]string{"+", "-", "U-", "U+", "T"}[op] }

// MaxChunkRows is the number of rows operators batch into one chunk.
const MaxChunkRows = 1024

// Chunk is a batch of changes. A chunk is immutable once sent: receivers
// may keep its rows.
type Chunk struct {
	Ops  []Op
	Rows [][]types.Datum
}

// Len returns the number of rows.
func (c *Chunk) Len() int { return len(c.Rows) }

// newChunk returns an empty chunk with room for n changes.
func newChunk(n int) *Chunk {
	return &Chunk{Ops: make([]Op, 0, n), Rows: make([][]types.Datum, 0, n)}
}

// Append adds one change; the row is kept, not copied.
func (c *Chunk) Append(op Op, row []types.Datum) {
	c.Ops = append(c.Ops, op)
	c.Rows = append(c.Rows, row)
}

// String renders the chunk for tests and debugging, one change per line.
func (c *Chunk) String() string {
	var b strings.Builder
	for i, r := range c.Rows {
		b.WriteString(c.Ops[i].String())
		for _, d := range r {
			b.WriteByte(' ')
			b.WriteString(d.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
