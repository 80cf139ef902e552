package dataflow

import "github.com/streamdb/streamdb/types"

// arenaBlock is the number of datums allocated at once for rows.
const arenaBlock = 1024

// RowArena hands out rows that share large allocations, so that building
// a row for a chunk costs no allocation of its own. The rows stay valid
// as long as anything holds them; keep one RowArena per producer so that
// an allocation serves many rows. The zero value is ready to use.
type RowArena struct {
	free []types.Datum
}

// Row returns storage for a new row of n datums, all NULL. A row is never
// nil, also of no columns: operators tell a nil row from a row (an
// aggregation without aggregates over no group key has one, of none).
func (a *RowArena) Row(n int) []types.Datum {
	if a.free == nil || cap(a.free)-len(a.free) < n {
		a.free = make([]types.Datum, 0, max(n, arenaBlock))
	}
	start := len(a.free)
	a.free = a.free[:start+n]
	return a.free[start : start+n : start+n]
}

// chunkOut accumulates an operator's output changes into chunks of up to
// MaxChunkRows rows; row builds output rows from its arena. Keep one
// chunkOut per operator so that the arena's allocations serve many chunks.
type chunkOut struct {
	c     *Chunk
	arena RowArena
	// last is the length of the last chunk emitted, the room a new chunk
	// starts with: an operator's chunks tend to have similar lengths.
	last int
}

// row returns storage for a new output row of n datums, all NULL.
func (o *chunkOut) row(n int) []types.Datum { return o.arena.Row(n) }

// add appends a change, emitting the chunk once it is full. The row is
// kept: it must not be modified afterwards.
func (o *chunkOut) add(op Op, row []types.Datum, emit Emit) error {
	if o.c == nil {
		o.c = newChunk(o.last)
	}
	o.c.Append(op, row)
	if o.c.Len() >= MaxChunkRows {
		return o.flush(emit)
	}
	return nil
}

// update appends an update pair, keeping both halves in one chunk.
func (o *chunkOut) update(old, cur []types.Datum, emit Emit) error {
	if o.c != nil && o.c.Len()+2 > MaxChunkRows {
		if err := o.flush(emit); err != nil {
			return err
		}
	}
	if o.c == nil {
		o.c = newChunk(o.last)
	}
	o.c.Append(UpdateDelete, old)
	return o.add(UpdateInsert, cur, emit)
}

// flush emits the pending chunk, if any.
func (o *chunkOut) flush(emit Emit) error {
	if o.c == nil || o.c.Len() == 0 {
		return nil
	}
	c := o.c
	o.c, o.last = nil, c.Len()
	return emit(c)
}
