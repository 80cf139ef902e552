package dataflow

import "github.com/streamdb/streamdb/types"

// chunkOut accumulates an operator's output changes into chunks of up to
// MaxChunkRows rows; row builds output rows from its arena. Keep one
// chunkOut per operator so that the arena's allocations serve many chunks.
type chunkOut struct {
	c     *Chunk
	arena types.RowArena
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

// filter emits the changes of c that change reports passing, after
// applying each to the operator's state: an update pair whose sides both
// pass stays an update, one whose single side passes becomes that side's
// insert or delete. It is the Process of the filters that keep state
// (temporal and dynamic filters).
func (o *chunkOut) filter(c *Chunk, emit Emit, change func(row []types.Datum, insert bool) (bool, error)) error {
	for i := 0; i < len(c.Rows); i++ {
		if isPair(c, i) {
			kd, err := change(c.Rows[i], false)
			if err != nil {
				return err
			}
			ki, err := change(c.Rows[i+1], true)
			if err != nil {
				return err
			}
			switch {
			case kd && ki:
				err = o.update(c.Rows[i], c.Rows[i+1], emit)
			case kd:
				err = o.add(Delete, c.Rows[i], emit)
			case ki:
				err = o.add(Insert, c.Rows[i+1], emit)
			}
			if err != nil {
				return err
			}
			i++
			continue
		}
		insert := c.Ops[i].IsInsert()
		pass, err := change(c.Rows[i], insert)
		if err != nil {
			return err
		}
		if pass {
			if err := o.add(opOf(insert), c.Rows[i], emit); err != nil {
				return err
			}
		}
	}
	return o.flush(emit)
}
