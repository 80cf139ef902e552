package dataflow

import (
	"context"
	"slices"

	"github.com/streamdb/streamdb/types"
)

// queueLen bounds every exchange queue (in messages of at most
// MaxChunkRows rows): a slow consumer blocks its producers, so memory stays
// bounded and barriers stay close behind the data (DESIGN.md §6 lessons).
const queueLen = 16

// passChunkRows is the fewest rows a chunk for a single actor needs to go
// on unbuffered.
const passChunkRows = MaxChunkRows / 4

// outputGroup sends a fragment's output to one consuming fragment: each
// row to the actor owning its vnode (hash), to the single actor, or to
// every actor (broadcast).
type outputGroup struct {
	// job is the consuming job; edge the input it feeds.
	job        uint32
	edge       *edge
	dist       DistKind
	keys       []int
	vnodeCount int
	// owner maps each vnode to an index into outs.
	owner []int
	outs  []chan<- Message
	bufs  []*Chunk
	key   []byte
	// cols, if set, are the columns of each row the consumer reads
	// (InputSpec.Cols); arena holds the rows so cut.
	cols  []int
	arena types.RowArena
}

func newOutputGroup(dist DistKind, keys []int, vnodeCount int, owner []int, outs []chan<- Message) *outputGroup {
	return &outputGroup{dist: dist, keys: keys, vnodeCount: vnodeCount, owner: owner, outs: outs, bufs: make([]*Chunk, len(outs))}
}

// route returns the index of the actor that owns row.
func (g *outputGroup) route(row []types.Datum) int {
	if g.dist == DistSingle || len(g.outs) == 1 {
		return 0
	}
	return g.owner[rowVNode(&g.key, row, g.keys, g.vnodeCount)]
}

// add buffers one change for target, sending the buffer once full. A new
// buffer is sized for its share of an input chunk of n rows.
func (g *outputGroup) add(ctx context.Context, target int, op Op, row []types.Datum, n int) error {
	b := g.bufs[target]
	if b == nil {
		share := min(n/len(g.outs)+1, MaxChunkRows)
		b = newChunk(share)
		g.bufs[target] = b
	}
	b.Append(op, row)
	if b.Len() >= MaxChunkRows {
		g.bufs[target] = nil
		return send(ctx, g.outs[target], b)
	}
	return nil
}

// push routes the changes of c to the consuming actors, buffering them in
// chunks per actor. A large chunk for a single actor with nothing buffered
// before it goes on as it is, at once; small ones are gathered.
func (g *outputGroup) push(ctx context.Context, c *Chunk) error {
	if g.cols != nil {
		c = g.cut(c)
	}
	if g.dist == DistBroadcast && len(g.outs) > 1 {
		return g.pushAll(ctx, c)
	}
	if len(g.outs) == 1 && c.Len() >= passChunkRows && (g.bufs[0] == nil || g.bufs[0].Len() == 0) {
		return send(ctx, g.outs[0], c)
	}
	for i := 0; i < len(c.Rows); i++ {
		op, row := c.Ops[i], c.Rows[i]
		if op == Truncate {
			if err := g.addAll(ctx, op, row, len(c.Rows)); err != nil {
				return err
			}
			continue
		}
		t := g.route(row)
		if op == UpdateDelete && i+1 < len(c.Rows) && c.Ops[i+1] == UpdateInsert {
			if t2 := g.route(c.Rows[i+1]); t2 != t {
				// The update moves the row to another actor: send it as a
				// delete there and an insert here.
				if err := g.add(ctx, t, Delete, row, len(c.Rows)); err != nil {
					return err
				}
				if err := g.add(ctx, t2, Insert, c.Rows[i+1], len(c.Rows)); err != nil {
					return err
				}
				i++
				continue
			}
		}
		if err := g.add(ctx, t, op, row, len(c.Rows)); err != nil {
			return err
		}
	}
	return nil
}

// cut returns the changes of c with their rows cut to the consumer's
// columns; a Truncate, which carries no values, stays as it is.
func (g *outputGroup) cut(c *Chunk) *Chunk {
	out := &Chunk{Ops: c.Ops, Rows: make([][]types.Datum, len(c.Rows))}
	for i, row := range c.Rows {
		if c.Ops[i] == Truncate {
			out.Rows[i] = row
			continue
		}
		r := g.arena.Row(len(g.cols))
		for j, col := range g.cols {
			r[j] = row[col]
		}
		out.Rows[i] = r
	}
	return out
}

// pushAll buffers every change of c for every consumer actor (a
// broadcast), update pairs as they are.
func (g *outputGroup) pushAll(ctx context.Context, c *Chunk) error {
	for i, row := range c.Rows {
		if err := g.addAll(ctx, c.Ops[i], row, len(c.Rows)); err != nil {
			return err
		}
	}
	return nil
}

// addAll buffers one change for every consumer actor, of an input chunk
// of n rows.
func (g *outputGroup) addAll(ctx context.Context, op Op, row []types.Datum, n int) error {
	for t := range g.outs {
		if err := g.add(ctx, t, op, row, n*len(g.outs)); err != nil {
			return err
		}
	}
	return nil
}

// barrier flushes buffered rows, then sends b to every consumer actor.
func (g *outputGroup) barrier(ctx context.Context, b *Barrier) error {
	return g.broadcast(ctx, b)
}

// broadcast flushes buffered rows, then sends m to every consumer actor:
// every row sent before m reaches each consumer before it.
func (g *outputGroup) broadcast(ctx context.Context, m Message) error {
	if w, ok := m.(*Watermark); ok && g.cols != nil {
		// A watermark of a column the consumer does not read is dropped.
		col := slices.Index(g.cols, w.Col)
		if col < 0 {
			return nil
		}
		m = &Watermark{Col: col, Val: w.Val}
	}
	for i, buf := range g.bufs {
		if buf != nil && buf.Len() > 0 {
			g.bufs[i] = nil
			if err := send(ctx, g.outs[i], buf); err != nil {
				return err
			}
		}
	}
	for _, out := range g.outs {
		if err := send(ctx, out, m); err != nil {
			return err
		}
	}
	return nil
}

func send(ctx context.Context, ch chan<- Message, m Message) error {
	select {
	case ch <- m:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// dispatcher is an actor's output: one group per consuming fragment.
type dispatcher struct {
	groups []*outputGroup
}

func (d *dispatcher) push(ctx context.Context, c *Chunk) error {
	for _, g := range d.groups {
		if err := g.push(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func (d *dispatcher) barrier(ctx context.Context, b *Barrier) error {
	for _, g := range d.groups {
		if err := g.barrier(ctx, b); err != nil {
			return err
		}
	}
	return nil
}

// setGroup replaces the group feeding g's edge with g, or adds g, at
// barrier b (already sent to the old group's consumers): each consumer new
// to this actor gets b first.
func (d *dispatcher) setGroup(ctx context.Context, g *outputGroup, b *Barrier) error {
	var had []chan<- Message
	if i := slices.IndexFunc(d.groups, func(x *outputGroup) bool { return x.edge == g.edge }); i >= 0 {
		had = d.groups[i].outs
		d.groups[i] = g
	} else {
		d.groups = append(d.groups, g)
	}
	for _, out := range g.outs {
		if !slices.Contains(had, out) {
			if err := send(ctx, out, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// broadcast sends m (a watermark or Loaded) to every consumer actor of
// every group.
func (d *dispatcher) broadcast(ctx context.Context, m Message) error {
	for _, g := range d.groups {
		if err := g.broadcast(ctx, m); err != nil {
			return err
		}
	}
	return nil
}
