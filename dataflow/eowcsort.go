package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// EowcSortSpec buffers its input rows until a watermark of column Col
// passes them, then emits them as inserts, in ascending order of Col, and
// forgets them: EMIT ON WINDOW CLOSE over rows. A retraction removes a
// row still buffered. Rows whose Col is NULL never close and are dropped,
// as are rows arriving below the last watermark. The output is
// append-only and carries Col's watermarks.
type EowcSortSpec struct {
	Col       int
	StreamKey []int
	Types     []types.T
	// StateTable holds the buffered rows keyed by (Col, stream key).
	StateTable uint32
}

// Build implements Spec: the buffered rows of the actor's vnodes are
// indexed by their Col.
func (s *EowcSortSpec) Build(env *Env) (Operator, error) {
	o := &eowcSort{spec: s, state: env.StateTable(s.StateTable, s.Types), groups: env.VNodeCount, windows: newWindowIndex()}
	err := o.windows.load(env.Store, s.StateTable, env.VNodes, s.Types,
		func(row []types.Datum) types.Datum { return row[s.Col] },
		func(_ []byte, row []types.Datum) []byte { return types.AppendKey(nil, row[s.Col], false) })
	return o, err
}

// Explain implements Spec.
func (s *EowcSortSpec) Explain() string {
	return fmt.Sprintf("EowcSort $%d state=%d", s.Col, s.StateTable)
}

// eowcSort is the operator of EowcSortSpec: one state group per (vnode,
// Col value), its entries keyed by stream key.
type eowcSort struct {
	spec        *EowcSortSpec
	state       *StateTable
	groups      int
	windows     *windowIndex
	closedBelow types.Datum
	key, prefix []byte
	out         chunkOut
}

// Process implements Operator.
func (o *eowcSort) Process(_ int, c *Chunk, _ Emit) error {
	for i, row := range c.Rows {
		v := row[o.spec.Col]
		if v.IsNull() || (!o.closedBelow.IsNull() && types.Compare(v, o.closedBelow) < 0) {
			continue
		}
		o.key, _ = rowkey.AppendCols(o.key[:0], row, o.spec.StreamKey)
		vnode := rowkey.VNode(o.key, o.groups)
		o.prefix = types.AppendKey(o.prefix[:0], v, false)
		g, err := o.state.Group(vnode, o.prefix)
		if err != nil {
			return err
		}
		if c.Ops[i].IsInsert() {
			g.Put(o.key, row)
			o.windows.add(v, vnode, o.prefix)
		} else {
			g.Delete(o.key)
		}
	}
	return nil
}

// Watermark implements watermarker: a watermark of Col emits the rows
// below it.
func (o *eowcSort) Watermark(_ int, w Watermark, emit Emit, out WatermarkEmit) error {
	if w.Col != o.spec.Col {
		return nil
	}
	for _, win := range o.windows.close(w.Val) {
		for ref := range win.groups {
			g, err := o.state.Group(ref.vnode, []byte(ref.prefix))
			if err != nil {
				return err
			}
			var addErr error
			g.Ascend(func(_ []byte, row []types.Datum) bool {
				addErr = o.out.add(Insert, row, emit)
				return addErr == nil
			})
			if addErr != nil {
				return addErr
			}
			if err := deleteGroup(o.state, ref); err != nil {
				return err
			}
		}
	}
	if err := o.out.flush(emit); err != nil {
		return err
	}
	o.closedBelow = w.Val
	return out(w)
}

// Barrier implements Operator.
func (o *eowcSort) Barrier(b *Barrier, _ Emit) error {
	if b.Checkpoint {
		o.state.Commit(b.Epoch)
	}
	return nil
}
