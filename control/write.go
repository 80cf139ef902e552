package control

import (
	"context"
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// ErrRecovered fails a write whose epoch a recovery rolled back: it was
// not applied, and it may be sent again.
var ErrRecovered = dataflow.ErrRecovered

// Changes are changes to the rows of one table, in order, which one epoch
// carries into its stream (Streaming.Write). Rows are kept, not copied.
type Changes struct {
	chunk dataflow.Chunk
}

// NewChanges returns empty changes with room for n.
func NewChanges(n int) *Changes {
	return &Changes{chunk: dataflow.Chunk{Ops: make([]dataflow.Op, 0, n), Rows: make([][]types.Datum, 0, n)}}
}

// Insert adds row.
func (c *Changes) Insert(row []types.Datum) { c.chunk.Append(dataflow.Insert, row) }

// Delete removes row.
func (c *Changes) Delete(row []types.Datum) { c.chunk.Append(dataflow.Delete, row) }

// Update replaces row before with row after (of the same key or not).
func (c *Changes) Update(before, after []types.Datum) {
	c.chunk.Append(dataflow.UpdateDelete, before)
	c.chunk.Append(dataflow.UpdateInsert, after)
}

// Len returns the number of rows the changes hold (an update holds two).
func (c *Changes) Len() int { return c.chunk.Len() }

// Resets returns the number of recoveries on this node so far (see
// WaitWritten).
func (s *Streaming) Resets() uint64 { return s.mgr.Resets() }

// TableChanges are changes to one table, for Write.
type TableChanges struct {
	Table   *meta.Table
	Changes *Changes
}

// Write puts each table's changes into its stream, all of them in one
// epoch, and returns that epoch; the tables run on this node and the
// changes must not change afterwards. It waits while checkpoints lag
// behind. While the node is failed or recovering nothing is written: it
// fails with ErrRecovered and the write may be sent again.
func (s *Streaming) Write(ctx context.Context, writes []TableChanges) (uint64, error) {
	chunks := make([]dataflow.SourceChunk, len(writes))
	rowIDs := false
	for i, w := range writes {
		chunks[i] = dataflow.SourceChunk{Source: w.Table.ID, Chunk: &w.Changes.chunk}
		rowIDs = rowIDs || w.Table.HiddenRowID
	}
	return s.mgr.SendAll(ctx, chunks, s.rowIDWrites(rowIDs))
}

// Ingest writes rows into the stream of table t as inserts, in chunks of
// dataflow.MaxChunkRows, and returns the epoch that carries the last row
// (0 for no rows), without asking for a barrier. Rows hold t's visible
// columns (see FullRow); they are kept, not copied, when those are all.
// If a write fails, the chunks written before stay written.
func (s *Streaming) Ingest(ctx context.Context, t *meta.Table, rows [][]types.Datum) (epoch uint64, err error) {
	var arena types.RowArena
	for len(rows) > 0 {
		n := min(len(rows), dataflow.MaxChunkRows)
		c := &dataflow.Chunk{Ops: slices.Repeat([]dataflow.Op{dataflow.Insert}, n), Rows: rows[:n:n]}
		if t.Width() != len(t.Columns) {
			c.Rows = make([][]types.Datum, n)
			for i, row := range rows[:n] {
				c.Rows[i] = s.FullRow(t, &arena, row)
			}
		}
		if epoch, err = s.send(ctx, t, c); err != nil {
			return 0, err
		}
		rows = rows[n:]
	}
	return epoch, nil
}

// FullRow returns row, values of t's visible columns in order, as a row
// of all t's columns built in arena: with a new hidden row id if t has
// one, NULL in dropped columns.
func (s *Streaming) FullRow(t *meta.Table, arena *types.RowArena, row []types.Datum) []types.Datum {
	full := arena.Row(len(t.Columns))
	j := 0
	for i, c := range t.Columns {
		if !c.Hidden {
			full[i] = row[j]
			j++
		}
	}
	if t.HiddenRowID {
		full[t.PK[0]] = types.NewInt(s.rowIDs.take())
	}
	return full
}

// send puts c into t's stream and returns the epoch that carries it.
func (s *Streaming) send(ctx context.Context, t *meta.Table, c *dataflow.Chunk) (uint64, error) {
	return s.mgr.Send(ctx, t.ID, c, s.rowIDWrites(t.HiddenRowID))
}

// rowIDWrites returns, for writes to tables with hidden row ids, what
// stages the high-water mark of those ids with the writes' epoch.
func (s *Streaming) rowIDWrites(rowIDs bool) func() []dataflow.Write {
	if !rowIDs {
		return nil
	}
	return s.rowIDs.highWaterWrite
}

// WaitWritten returns once the epoch of a write, sent when Resets returned
// since, is committed, asking for its barrier at once if it has not been
// injected yet (group commit). It fails with ErrRecovered if a recovery
// came first and rolled the write's epoch back.
func (s *Streaming) WaitWritten(ctx context.Context, epoch, since uint64) error {
	s.requestFor(epoch)
	return s.mgr.WaitWritten(ctx, epoch, since)
}
