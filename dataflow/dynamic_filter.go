package dataflow

import (
	"fmt"
	"math"
	"strings"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// DynamicFilterSpec keeps the rows of its left input (input 0) whose Left
// value lies within bounds computed from the one row of its right input
// (input 1): a comparison with an uncorrelated scalar subquery (WHERE
// price > (SELECT avg(price) FROM bid)) or with a cross-joined one-row
// relation. Output: the left rows that pass.
//
// The left input stays partitioned as it is (hashed by its stream key);
// the right input is broadcast, so every actor keeps the right row
// itself. A left change goes out if it passes the bounds in force. A
// right change takes effect at the next barrier, so that each epoch's
// output is the left rows filtered by the right row of that epoch: the
// rows whose value lies between the old and the new bounds go out as
// inserts or deletes, found by a range scan over the rows ordered by
// value. A NULL bound, or no right row, lets nothing pass; nor does a NULL
// left value.
//
// State, in one table: each left row with a non-NULL value under (vnode,
// 1, value, stream key), and the bound values under (vnode, 0) for every
// vnode, since each actor holds them: an actor rebuilt at a rescale or
// recovery reads them back from any of its vnodes.
type DynamicFilterSpec struct {
	// Left computes the compared value over a left row.
	Left expr.Expr
	// Lower and Upper are the bounds, computed over the right row (nil
	// when absent, not both); = is both, inclusive, of one expression.
	Lower, Upper *DynamicBound
	// T is the type the values are compared in (Left's and the bounds').
	T             types.T
	LeftTypes     []types.T
	LeftStreamKey []int
	StateTable    uint32
}

// DynamicBound is one bound of a dynamic filter: Right computes it over
// the right row; Inclusive admits values equal to it.
type DynamicBound struct {
	Right     expr.Expr
	Inclusive bool
}

// Build implements Spec: the bounds resume as stored under the actor's
// first vnode (every vnode holds the same).
func (s *DynamicFilterSpec) Build(env *Env) (Operator, error) {
	f := &dynamicFilter{spec: s, ev: env.Eval, store: env.Store, vnodes: env.VNodes,
		state: env.StateTable(s.StateTable, s.LeftTypes), cur: make([]types.Datum, 2), saved: true}
	f.rows = valueRows{state: f.state, prefix: leftPrefix, streamKey: s.LeftStreamKey, groups: env.VNodeCount}
	first := -1
	env.VNodes.Each(func(v int) {
		if first < 0 {
			first = v
		}
	})
	if first < 0 {
		return f, nil
	}
	raw, ok, err := env.Store.Engine().Get(boundsKey(s.StateTable, first), math.MaxUint64)
	if err != nil || !ok {
		return f, err
	}
	if f.cur, err = types.DecodeRow(raw, []types.T{s.T, s.T}, nil); err != nil {
		return nil, fmt.Errorf("dynamic filter bounds: %w", err)
	}
	if !f.cur[0].IsNull() || !f.cur[1].IsNull() {
		f.right = append(f.right, f.cur)
	}
	return f, nil
}

// Explain implements Spec.
func (s *DynamicFilterSpec) Explain() string {
	var conds []string
	for _, b := range []struct {
		bound *DynamicBound
		op    string
	}{{s.Lower, ">"}, {s.Upper, "<"}} {
		if b.bound == nil {
			continue
		}
		op := b.op
		if b.bound.Inclusive {
			op += "="
		}
		conds = append(conds, fmt.Sprintf("%s %s right(%s)", s.Left, op, b.bound.Right))
	}
	return fmt.Sprintf("DynamicFilter %s state=%d", strings.Join(conds, " AND "), s.StateTable)
}

// stateTables implements stateful.
func (s *DynamicFilterSpec) stateTables() []uint32 { return []uint32{s.StateTable} }

// boundsKey is the state key of a dynamic filter's bounds in one vnode.
func boundsKey(table uint32, vnode int) []byte {
	return storage.AppendKey(nil, table, uint16(vnode), boundsPrefix)
}

// Prefixes of a dynamic filter's state keys after the vnode.
var (
	boundsPrefix = []byte{0}
	leftPrefix   = []byte{1}
)

// dynamicFilter is the operator of DynamicFilterSpec.
type dynamicFilter struct {
	spec   *DynamicFilterSpec
	ev     *Evaluator
	store  *Store
	vnodes *Bitmap
	state  *StateTable
	// cur are the bounds in force, lower then upper (NULL where the spec
	// has none); saved reports whether they are stored.
	cur   []types.Datum
	saved bool
	// right holds the bounds of each live right row: at most one at a
	// barrier, two while an update's halves arrive apart.
	right [][]types.Datum
	// scan walks the rows between two bounds at a barrier.
	scan boundScan
	// rows are the left rows, ordered by their compared value.
	rows   valueRows
	out    chunkOut
	writes writeBuf
}

// Process implements Operator.
func (f *dynamicFilter) Process(input int, c *Chunk, emit Emit) error {
	if input == 1 {
		return f.processRight(c)
	}
	return f.out.filter(c, emit, f.change)
}

// change applies an insert or delete of a left row to state and reports
// whether the row passes the bounds in force.
func (f *dynamicFilter) change(row []types.Datum, insert bool) (bool, error) {
	v, err := f.ev.Eval(f.spec.Left, row)
	if err != nil || v.IsNull() {
		return false, err
	}
	if err := f.rows.apply(row, v, insert); err != nil {
		return false, err
	}
	return f.passes(v, f.cur), nil
}

// passes reports whether value v lies within bounds.
func (f *dynamicFilter) passes(v types.Datum, bounds []types.Datum) bool {
	return inBound(f.spec.T, f.spec.Lower, v, bounds[0], 1) && inBound(f.spec.T, f.spec.Upper, v, bounds[1], -1)
}

// inBound reports whether v passes bound b at value at: above it for a
// lower bound (dir 1), below it for an upper one (dir -1). No bound passes
// everything, a NULL one nothing.
func inBound(t types.T, b *DynamicBound, v, at types.Datum, dir int) bool {
	if b == nil {
		return true
	}
	if at.IsNull() || v.IsNull() {
		return false
	}
	c := types.CompareAs(t, v, at) * dir
	return c > 0 || c == 0 && b.Inclusive
}

// processRight applies the right input's changes to the live right rows;
// the bounds change at the barrier.
func (f *dynamicFilter) processRight(c *Chunk) error {
	for i, row := range c.Rows {
		bounds := make([]types.Datum, 2)
		for j, b := range []*DynamicBound{f.spec.Lower, f.spec.Upper} {
			if b == nil {
				continue
			}
			v, err := f.ev.Eval(b.Right, row)
			if err != nil {
				return err
			}
			bounds[j] = v
		}
		if c.Ops[i].IsInsert() {
			f.right = append(f.right, bounds)
			continue
		}
		// A delete names a live row; one not found was seen before a
		// recovery with NULL bounds, which were not kept.
		for k, r := range f.right {
			if equalBounds(r, bounds) {
				f.right = append(f.right[:k], f.right[k+1:]...)
				break
			}
		}
	}
	return nil
}

// equalBounds reports whether two bound rows are equal (NULLs alike).
func equalBounds(a, b []types.Datum) bool {
	for i := range a {
		if a[i].IsNull() != b[i].IsNull() || !a[i].IsNull() && types.Compare(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// Barrier implements Operator: it moves the bounds to those of the live
// right row, emitting the rows that cross them, and stores the state at
// checkpoints.
func (f *dynamicFilter) Barrier(b *Barrier, emit Emit) error {
	if len(f.right) > 1 {
		return fmt.Errorf("dynamic filter: %d rows on the one-row side", len(f.right))
	}
	next := []types.Datum{types.Null, types.Null}
	if len(f.right) == 1 {
		next = f.right[0]
	}
	if !equalBounds(next, f.cur) {
		if err := f.move(f.cur, next, emit); err != nil {
			return err
		}
		f.cur, f.saved = next, false
	}
	if err := f.out.flush(emit); err != nil {
		return err
	}
	if !b.Checkpoint {
		return nil
	}
	f.state.Commit(b.Epoch)
	if !f.saved {
		f.vnodes.Each(func(v int) { f.writes.put(boundsKey(f.spec.StateTable, v), f.cur) })
		f.writes.stage(f.store, b.Epoch)
		f.saved = true
	}
	return nil
}

// move emits, for every owned vnode, the rows that pass one of the bounds
// old and cur and not the other: deletes for those that leave, inserts
// for those that enter. It walks only the value ranges where the two
// differ (see boundScan).
func (f *dynamicFilter) move(old, cur []types.Datum, emit Emit) error {
	f.scan.plan(f, old, cur)
	var err error
	f.vnodes.Each(func(vnode int) {
		if err != nil {
			return
		}
		var g *Group
		if g, err = f.state.Group(uint16(vnode), leftPrefix); err != nil || g.Len() == 0 {
			return
		}
		err = f.scan.each(g, func(v types.Datum, row []types.Datum) error {
			was, is := f.passes(v, old), f.passes(v, cur)
			if was == is {
				return nil
			}
			return f.out.add(opOf(is), row, emit)
		})
	})
	return err
}
