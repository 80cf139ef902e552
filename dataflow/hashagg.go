package dataflow

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// Build implements Spec.
func (s *HashAggSpec) Build(env *Env) (Operator, error) {
	a := &hashAgg{spec: s, ev: env.Eval, groups: env.VNodeCount, owned: env.VNodes, touched: map[string]*aggGroup{}}
	for _, set := range s.EmptySets {
		row := make([]types.Datum, slices.Max(s.GroupKey)+1)
		row[s.GroupKey[len(s.GroupKey)-1]] = types.NewInt(int64(set))
		a.always = append(a.always, row)
	}
	rowTypes := make([]types.T, 0, len(s.GroupKey)+1)
	for _, c := range s.GroupKey {
		rowTypes = append(rowTypes, s.InputTypes[c])
	}
	rowTypes = append(rowTypes, types.TInt8)
	needMultiset := false
	for i, f := range s.Aggs {
		if s.Weighted && !Weighable(f, s.AppendOnly) {
			return nil, pgerror.New(pgerror.CodeInternal, "streaming aggregation %s cannot weigh its input rows", s.Explain())
		}
		k, err := newAggKind(f, s.AppendOnly)
		if err != nil {
			return nil, err
		}
		if s.rising(i) && !s.AppendOnly {
			if f.Name != "max" || f.Ordered() {
				return nil, pgerror.New(pgerror.CodeInternal, "streaming aggregation %s: only a max takes a rising argument", s.Explain())
			}
			k = risingMaxKind
		}
		a.kinds = append(a.kinds, k)
		a.args = append(a.args, make([]types.Datum, len(f.Args)))
		rowTypes = append(rowTypes, k.cols...)
		needMultiset = needMultiset || k.multiset
	}
	if needMultiset && s.MultisetTable == 0 {
		return nil, pgerror.New(pgerror.CodeInternal, "streaming aggregation %s needs a multiset table", s.Explain())
	}
	a.state = env.StateTable(s.StateTable, rowTypes)
	a.state.pointGroups = true // one state row per group
	a.memoize = !needMultiset
	if needMultiset {
		// Entries are [count, value, delimiter] of any types.
		a.multiset = env.StateTable(s.MultisetTable, []types.T{types.TInt8, types.TUnknown, types.TUnknown})
		// A group is the group key and the aggregate's index.
		a.multiset.layout = &groupLayout{cols: len(s.GroupKey), extra: 2}
	}
	if s.WindowKey {
		a.windows = newWindowIndex()
		err := a.windows.load(env.Store, s.StateTable, env.VNodes, rowTypes,
			func(row []types.Datum) types.Datum { return row[0] },
			func(rest []byte, _ []types.Datum) []byte { return rest })
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// rising reports whether aggregate i is Rising.
func (s *HashAggSpec) rising(i int) bool { return i < len(s.Rising) && s.Rising[i] }

// lazyState implements lazySpec: groups are read through the state
// tables when a row of their vnode reaches them, but a windowed
// aggregation indexes the windows of all its vnodes at build, a global
// one keeps its group under vnode 0 whatever the row's, and the groups of
// empty grouping sets are read at every barrier.
func (s *HashAggSpec) lazyState() bool {
	return !s.WindowKey && len(s.GroupKey) > 0 && len(s.EmptySets) == 0
}

// Explain implements Spec.
func (s *HashAggSpec) Explain() string {
	aggs := make([]string, len(s.Aggs))
	for i, f := range s.Aggs {
		aggs[i] = f.String()
	}
	mode := ""
	if s.AppendOnly {
		mode = " append-only"
	}
	if s.WindowKey {
		mode += " window-key"
	}
	if s.EmitOnWindowClose {
		mode += " emit-on-window-close"
	}
	if len(s.EmptySets) > 0 {
		mode += fmt.Sprintf(" empty-sets=%v", s.EmptySets)
	}
	if s.Weighted {
		mode += fmt.Sprintf(" weight=$%d", s.Weight)
	}
	for i, f := range s.Aggs {
		if s.rising(i) {
			mode += " rising=" + f.String()
		}
	}
	return fmt.Sprintf("HashAgg group=%v aggs=%v%s", s.GroupKey, aggs, mode)
}

// hashAgg maintains grouped aggregates. A group's state row is its group
// key values (as first seen: the key's encoding would lose numeric
// scales), its row count and each aggregate's state columns; aggregates
// that need their values keep them in the multiset table under (group key,
// aggregate index). The groups touched in an epoch are decoded into
// accumulators on first touch, together with their output row at that
// moment; at the barrier each is compared with its new output, the
// difference emitted and the state saved.
type hashAgg struct {
	spec     *HashAggSpec
	ev       *Evaluator
	groups   int
	kinds    []*aggKind
	args     [][]types.Datum
	state    *StateTable
	multiset *StateTable
	touched  map[string]*aggGroup
	// memoize keeps decoded groups with their cached state (no aggregate
	// holds a multiset, whose groups are valid for one epoch only).
	memoize bool
	order   []*aggGroup
	key     []byte
	msKey   []byte
	out     chunkOut
	cmp     rowComparer
	// windows lists the groups by their GroupKey[0] (WindowKey); groups
	// below closedBelow are closed.
	windows     *windowIndex
	closedBelow types.Datum
	// always holds, per empty grouping set (EmptySets), an input row of
	// its group; owned are the actor's vnodes.
	always [][]types.Datum
	owned  *Bitmap
}

// aggMemoBytes estimates an aggGroup's memory beyond its output row.
const aggMemoBytes = 160

// aggGroup is a group touched in the current epoch, and kept decoded with
// the group's cached state between epochs when the aggregation memoizes.
type aggGroup struct {
	state *Group
	// gk are the group key values; count the number of live input rows.
	gk    []types.Datum
	count int64
	accs  []aggAcc
	// changed: input rows arrived for the group in the epoch.
	changed bool
	// always: the group of an empty grouping set, which has a row also
	// without input rows.
	always bool
	// old is the group's output row before the epoch, nil if none.
	old []types.Datum
}

// global reports whether the aggregation has no group key: one group that
// always has an output row.
func (a *hashAgg) global() bool { return len(a.spec.GroupKey) == 0 }

// touch returns the group of row (nil: the global group), loading it on
// its first touch in the epoch.
func (a *hashAgg) touch(row []types.Datum) (*aggGroup, error) {
	a.key, _ = rowkey.AppendCols(a.key[:0], row, a.spec.GroupKey)
	if g := a.touched[string(a.key)]; g != nil {
		return g, nil
	}
	return a.touchKey(distVNode(a.key, len(a.spec.GroupKey), a.groups), row)
}

// touchKey loads the group of key a.key in vnode; row is an input row of
// the group, needed only when the group has no state yet.
func (a *hashAgg) touchKey(vnode uint16, row []types.Datum) (*aggGroup, error) {
	sg, err := a.state.Group(vnode, a.key)
	if err != nil {
		return nil, err
	}
	if g, ok := sg.Memo().(*aggGroup); ok {
		// Decoded at an earlier barrier and cached since: its output
		// then is the old row now.
		g.state, g.changed = sg, false
		a.touched[string(a.key)] = g
		a.order = append(a.order, g)
		return g, nil
	}
	g := &aggGroup{state: sg, accs: make([]aggAcc, len(a.kinds))}
	stored, found := sg.Get(nil)
	var cols []types.Datum
	nk := len(a.spec.GroupKey)
	if found {
		g.gk, g.count, cols = stored[:nk], stored[nk].Int(), stored[nk+1:]
	} else {
		g.gk = make([]types.Datum, nk)
		for i, c := range a.spec.GroupKey {
			g.gk[i] = row[c]
		}
		if a.windows != nil {
			a.windows.add(g.gk[0], vnode, a.key)
		}
	}
	for i, k := range a.kinds {
		var ms *Group
		if k.multiset {
			a.msKey = binary.BigEndian.AppendUint16(append(a.msKey[:0], a.key...), uint16(i))
			if !found {
				// A group without a state row has no live values.
				ms = a.multiset.emptyGroup(vnode, a.msKey)
			} else if ms, err = a.multiset.Group(vnode, a.msKey); err != nil {
				return nil, err
			}
		}
		var c []types.Datum
		if found {
			c, cols = cols[:len(k.cols)], cols[len(k.cols):]
		}
		g.accs[i] = k.load(c, ms)
	}
	if found {
		if g.old, err = a.output(g); err != nil {
			return nil, err
		}
	}
	a.touched[string(a.key)] = g
	a.order = append(a.order, g)
	return g, nil
}

// output returns the group's current output row. A result out of its
// type's range (a sum that overflows) is a data error: NULL, counted, as
// for expressions.
func (a *hashAgg) output(g *aggGroup) ([]types.Datum, error) {
	row := a.out.row(len(g.gk) + len(g.accs))
	copy(row, g.gk)
	for i, acc := range g.accs {
		v, err := acc.result()
		if err != nil && a.ev.tolerate(err) {
			v, err = types.Null, nil
		}
		if err != nil {
			return nil, err
		}
		row[len(g.gk)+i] = v
	}
	return row, nil
}

// Weighable reports whether aggregate f reads weighted rows
// (HashAggSpec.Weighted): a count adds the weight, and over append-only
// input min and max are the same for one row as for its copies.
func Weighable(f *expr.AggFunc, appendOnly bool) bool {
	if f.Distinct || f.Filter != nil || f.Ordered() {
		return false
	}
	return f.Name == "count" || (appendOnly && (f.Name == "min" || f.Name == "max"))
}

// Process implements Operator.
func (a *hashAgg) Process(_ int, c *Chunk, _ Emit) error {
	for i, row := range c.Rows {
		if a.late(row) {
			continue
		}
		g, err := a.touch(row)
		if err != nil {
			return err
		}
		n := step(!c.Ops[i].IsInsert())
		if a.spec.Weighted {
			n *= row[a.spec.Weight].Int()
		}
		g.changed = true
		g.count += n
		for j, f := range a.spec.Aggs {
			if ok, err := a.ev.Accepts(f, row); err != nil || !ok {
				if err != nil {
					return err
				}
				continue
			}
			args := a.args[j]
			for k, e := range f.Args {
				if args[k], err = a.ev.Eval(e, row); err != nil {
					return err
				}
			}
			if count, ok := g.accs[j].(*countAcc); ok {
				count.addN(args, n)
			} else if err := g.accs[j].add(args, n < 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// late reports whether row belongs to a closed group.
func (a *hashAgg) late(row []types.Datum) bool {
	if a.windows == nil || a.closedBelow.IsNull() {
		return false
	}
	v := row[a.spec.GroupKey[0]]
	return !v.IsNull() && types.Compare(v, a.closedBelow) < 0
}

// Barrier implements Operator: it emits the changed groups' outputs and
// saves their state.
func (a *hashAgg) Barrier(b *Barrier, emit Emit) error {
	if err := a.settle(emit); err != nil {
		return err
	}
	if b.Checkpoint {
		a.state.Commit(b.Epoch)
		if a.multiset != nil {
			a.multiset.Commit(b.Epoch)
		}
	}
	return a.out.flush(emit)
}

// settle emits the changes of the groups touched since the last settle
// (none when emitting on window close) and saves their state.
func (a *hashAgg) settle(emit Emit) error {
	if a.global() {
		// The global group has a row from the first barrier on.
		if _, err := a.touch(nil); err != nil {
			return err
		}
	}
	for _, row := range a.always {
		// So have the groups of empty grouping sets, in their vnodes.
		a.key, _ = rowkey.AppendCols(a.key[:0], row, a.spec.GroupKey)
		if !a.owned.Has(int(distVNode(a.key, len(a.spec.GroupKey), a.groups))) {
			continue
		}
		g, err := a.touch(row)
		if err != nil {
			return err
		}
		g.always = true
	}
	for _, g := range a.order {
		if !g.changed && g.old != nil {
			continue // the global group, unchanged
		}
		if g.count < 0 {
			return errRetractMissing
		}
		var cur []types.Datum
		if g.count > 0 || g.always || a.global() {
			var err error
			if cur, err = a.output(g); err != nil {
				return err
			}
			row := append(append(make([]types.Datum, 0, len(a.state.types)), g.gk...), types.NewInt(g.count))
			for _, acc := range g.accs {
				row = acc.save(row)
			}
			g.state.Put(nil, row)
		} else {
			g.state.Delete(nil)
		}
		if !a.spec.EmitOnWindowClose {
			if err := a.emitChange(g.old, cur, emit); err != nil {
				return err
			}
		}
		if a.memoize && cur != nil {
			// The emitted row belongs downstream: keep a copy.
			g.old = slices.Clone(cur)
			g.state.SetMemo(g, aggMemoBytes+rowBytes(cur))
		} else {
			g.state.SetMemo(nil, 0)
		}
	}
	a.untouch()
	return nil
}

// untouch forgets the groups touched in the epoch.
func (a *hashAgg) untouch() {
	clear(a.touched)
	clear(a.order)
	a.order = a.order[:0]
}

// Watermark implements watermarker: a watermark of the window key closes
// the groups below it (see HashAggSpec.WindowKey); others are dropped.
// Only a watermark that closes a window settles the groups touched since
// the last settle, before they close: one that closes none passes on at
// once, as no touched group is below it (late rows are dropped), and the
// groups settle at the next barrier or closing watermark, each emitting one
// change for all its rows since. A source's watermark advances with
// nearly every chunk; a window closes once per slide.
func (a *hashAgg) Watermark(_ int, w Watermark, emit Emit, out WatermarkEmit) error {
	if a.windows == nil || w.Col != a.spec.GroupKey[0] {
		return nil
	}
	if closing := a.windows.close(w.Val); len(closing) > 0 {
		if err := a.settle(emit); err != nil {
			return err
		}
		for _, win := range closing {
			for ref := range win.groups {
				if err := a.closeGroup(ref, emit); err != nil {
					return err
				}
			}
		}
		a.untouch()
		if err := a.out.flush(emit); err != nil {
			return err
		}
	}
	a.closedBelow = w.Val
	return out(Watermark{Col: 0, Val: w.Val})
}

// closeGroup emits a closing group's row when emitting on window close,
// then deletes its state.
func (a *hashAgg) closeGroup(ref groupRef, emit Emit) error {
	sg, err := a.state.Group(ref.vnode, []byte(ref.prefix))
	if err != nil {
		return err
	}
	if _, found := sg.Get(nil); !found {
		return nil // its rows were all retracted
	}
	if a.spec.EmitOnWindowClose {
		a.key = append(a.key[:0], ref.prefix...)
		g, err := a.touchKey(ref.vnode, nil)
		if err != nil {
			return err
		}
		row, err := a.output(g)
		if err != nil {
			return err
		}
		if err := a.out.add(Insert, row, emit); err != nil {
			return err
		}
	}
	for i, k := range a.kinds {
		if !k.multiset {
			continue
		}
		a.msKey = binary.BigEndian.AppendUint16(append(a.msKey[:0], ref.prefix...), uint16(i))
		if err := deleteGroup(a.multiset, groupRef{vnode: ref.vnode, prefix: string(a.msKey)}); err != nil {
			return err
		}
	}
	sg.SetMemo(nil, 0)
	sg.Delete(nil)
	return nil
}

// emitChange emits the change of a group's output row from old to cur
// (nil: no row); nothing if the row is unchanged.
func (a *hashAgg) emitChange(old, cur []types.Datum, emit Emit) error {
	switch {
	case old == nil && cur == nil:
		return nil
	case old == nil:
		return a.out.add(Insert, cur, emit)
	case cur == nil:
		return a.out.add(Delete, old, emit)
	case a.cmp.identical(old, cur):
		return nil
	}
	return a.out.update(old, cur, emit)
}
