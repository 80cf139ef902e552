package dataflow

import (
	"context"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// lazySpec is implemented by the specs whose operators read no vnode's
// state when they are built: they read a vnode's state (through state
// tables) only when a row of that vnode reaches them, or keep none. An
// actor whose chain is built only from such specs can be rebuilt for the
// vnodes it gains at a switch barrier at once and go on with the rows of
// the vnodes it keeps while the gained vnodes' handoffs are pending (the
// per-vnode gate, DESIGN.md §6). Specs that do not implement it, or
// report false, load state eagerly at build (windows, clocks, watermarks,
// source splits, interval indexes): their actors wait for every handoff
// before they build.
type lazySpec interface {
	lazyState() bool
}

// lazyChain reports whether every spec of specs is lazy (lazySpec).
func lazyChain(specs []Spec) bool {
	for _, s := range specs {
		l, ok := s.(lazySpec)
		if !ok || !l.lazyState() {
			return false
		}
	}
	return true
}

// heldRows bounds the rows an actor's gate holds: once that many rows of
// gained vnodes wait, the actor waits for the handoffs (bounded memory).
const heldRows = queueLen * MaxChunkRows

// heldChunk is a chunk of rows of gained vnodes held by a gate, with the
// input it arrived on.
type heldChunk struct {
	input int
	c     *Chunk
}

// vnodeGate holds back, after a switch barrier, the rows of the vnodes an
// actor gains until the actors it takes them from have handed them over
// (their handoffs are done), while the rows of the vnodes it keeps go on
// (DESIGN.md §6: the gate is per vnode). Held rows stay in arrival order.
type vnodeGate struct {
	mu *UpdateMutation
	// handoffs are those of the vnodes in gained; gains those not yet
	// seen done, in order.
	handoffs, gains []*handoff
	gained          *Bitmap
	// keys are the distribution keys of each input (the columns the
	// upstream dispatchers route by); groups is the job's vnode count.
	keys   [][]int
	groups int
	held   []heldChunk
	rows   int
	key    []byte
}

// gateKeys returns the distribution keys of inputs, or false if an input
// is not hash-distributed (its rows' vnodes are unknown).
func gateKeys(inputs []InputSpec) ([][]int, bool) {
	keys := make([][]int, len(inputs))
	for i, in := range inputs {
		if in.Dist != DistHash || len(in.Keys) == 0 {
			return nil, false
		}
		keys[i] = in.Keys
	}
	return keys, true
}

// rowVNode returns the vnode of row by the distribution key keys among
// groups vnodes, encoding the key into *buf (reused).
func rowVNode(buf *[]byte, row []types.Datum, keys []int, groups int) uint16 {
	k := (*buf)[:0]
	for _, c := range keys {
		k = types.AppendKey(k, row[c], false)
	}
	*buf = k
	return rowkey.VNode(k, groups)
}

// pending returns the done channel of the first handoff not yet seen
// done, or nil once all are.
func (g *vnodeGate) pending() <-chan struct{} {
	for len(g.gains) > 0 {
		select {
		case <-g.gains[0].done:
			g.gains = g.gains[1:]
			continue
		default:
		}
		return g.gains[0].done
	}
	return nil
}

// split returns the rows of c that may go on at once, those of the vnodes
// the actor keeps (nil if none), and holds the rows of gained vnodes
// behind those held before. An update pair split by the gate becomes a
// delete and an insert. It reports whether the gate is full, as it is
// once it holds a Truncate.
func (g *vnodeGate) split(input int, c *Chunk) (*Chunk, bool) {
	keys := g.keys[input]
	n := 0
	for i, row := range c.Rows {
		if c.Ops[i] == Truncate {
			// A truncate reaches the gained vnodes too: it waits for
			// their handoffs, and the rows after it with it.
			g.hold(input, c)
			return nil, true
		}
		if g.gained.Has(int(rowVNode(&g.key, row, keys, g.groups))) {
			n++
		}
	}
	switch n {
	case 0:
		return c, false
	case c.Len():
		g.hold(input, c)
		return nil, g.rows >= heldRows
	}
	pass, held := newChunk(c.Len()-n), newChunk(n)
	for i, row := range c.Rows {
		op := c.Ops[i]
		gained := g.gained.Has(int(rowVNode(&g.key, row, keys, g.groups)))
		to := pass
		if gained {
			to = held
		}
		switch {
		case op == UpdateDelete && i+1 < c.Len() && c.Ops[i+1] == UpdateInsert &&
			gained != g.gained.Has(int(rowVNode(&g.key, c.Rows[i+1], keys, g.groups))):
			op = Delete
		case op == UpdateInsert && i > 0 && c.Ops[i-1] == UpdateDelete &&
			gained != g.gained.Has(int(rowVNode(&g.key, c.Rows[i-1], keys, g.groups))):
			op = Insert
		}
		to.Append(op, row)
	}
	g.hold(input, held)
	return pass, g.rows >= heldRows
}

// hold appends c to the held rows.
func (g *vnodeGate) hold(input int, c *Chunk) {
	g.held = append(g.held, heldChunk{input, c})
	g.rows += c.Len()
}

// wait blocks until every handoff of the gate is done or ctx ends.
func (g *vnodeGate) wait(ctx context.Context) error {
	for _, h := range g.gains {
		if err := h.wait(ctx); err != nil {
			return err
		}
	}
	g.gains = nil
	return nil
}
