package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// Build implements Spec.
func (s *HashJoinSpec) Build(env *Env) (Operator, error) {
	semi := s.Kind == exec.Semi || s.Kind == exec.Anti
	j := &hashJoin{ev: env.Eval, groups: env.VNodeCount, presence: s.RightPresence,
		joined: make([]types.Datum, len(s.LeftTypes)+len(s.RightTypes)),
		width:  len(s.LeftTypes) + len(s.RightTypes), semi: semi, matchedOnly: s.Kind == exec.Semi,
		inWM: [2]map[int]types.Datum{{}, {}}, sent: watermarkSwitch{}}
	if s.Cond != nil {
		j.cond = expr.CompileTest(s.Cond)
	}
	if semi {
		j.width = len(s.LeftTypes)
	}
	j.sides[0] = newJoinSide(env, s.LeftTable, s.LeftTypes, s.LeftKey, s.LeftStreamKey,
		s.Kind == exec.Left || s.Kind == exec.Full || semi)
	j.sides[1] = newJoinSide(env, s.RightTable, s.RightTypes, s.RightKey, s.RightStreamKey,
		s.Kind == exec.Right || s.Kind == exec.Full)
	j.sides[0].unread, j.sides[1].unread = s.LeftUnread, s.RightUnread
	if s.WindowKey {
		j.kind, j.wm = s.Kind, newWatermarkMin(2)
		for i := range j.sides {
			side := &j.sides[i]
			side.windows = newWindowIndex()
			err := side.windows.load(env.Store, side.table.id, env.VNodes, side.table.types,
				func(row []types.Datum) types.Datum { return row[side.keys[0]] },
				func(_ []byte, row []types.Datum) []byte { k, _ := rowkey.AppendCols(nil, row, side.keys); return k })
			if err != nil {
				return nil, err
			}
		}
	}
	for i, b := range s.Interval {
		if b == nil {
			continue
		}
		var err error
		if j.interval[i], err = newIntervalSide(b, &j.sides[i], env); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// lazyState implements lazySpec: join keys are read through the state
// tables when a row of their vnode reaches them, but a windowed join
// indexes the windows and an interval join the rows of all its vnodes at
// build, and a join without keys keeps its rows under vnode 0.
func (s *HashJoinSpec) lazyState() bool {
	return !s.WindowKey && s.Interval == [2]*IntervalBound{} && len(s.LeftKey) > 0
}

// Explain implements Spec.
func (s *HashJoinSpec) Explain() string {
	cond := ""
	if s.Cond != nil {
		cond = " cond=" + s.Cond.String()
	}
	interval := ""
	for i, b := range s.Interval {
		if b == nil {
			continue
		}
		interval += fmt.Sprintf(" %s-interval=%s<=%s", [2]string{"left", "right"}[i], b.Bound, b.Key)
		if b.Clean {
			interval += " clean"
		}
	}
	return fmt.Sprintf("HashJoin %s left=%v right=%v%s%s", s.Kind, s.LeftKey, s.RightKey, cond, interval)
}

// hashJoin joins its inputs symmetrically: each side's rows are kept in its
// state table grouped by join key and keyed by stream key; a change on one
// side is joined with the other side's group at once. Rows of an outer side
// carry their degree (the number of matching rows of the other side) as an
// extra last column, so that a NULL-padded row is retracted when its first
// match appears and emitted again when its last match goes. Rows with a
// NULL in the join key match nothing and are not stored; those of an outer
// side pass through padded. A semi or anti join (HashJoinSpec.Kind) keeps
// the same state but emits no joined rows: its left side is the outer one,
// whose rows it emits alone, unpadded, at the degree's edges between 0 and
// 1 the other way round for a semi join.
type hashJoin struct {
	cond   expr.Test
	ev     *Evaluator
	groups int
	sides  [2]joinSide
	key    []byte
	sk     []byte
	// joined is scratch space for evaluating cond.
	joined []types.Datum
	// width is the output rows' width without the presence column.
	width int
	// semi: a semi or anti join; matchedOnly: a semi join, whose left
	// rows are emitted while they have matches, not while they have none.
	semi, matchedOnly bool
	// presence: output rows end with HashJoinSpec.RightPresence's column.
	presence bool
	matches  []joinMatch
	out      chunkOut
	// With HashJoinSpec.WindowKey: wm merges both sides' watermarks of
	// the first join key; keys below closedBelow are closed.
	kind        exec.JoinKind
	wm          *watermarkMin
	closedBelow types.Datum
	// interval holds each side's HashJoinSpec.Interval, nil if none;
	// inWM is each input's last watermark per column, sent the output's.
	interval [2]*intervalSide
	inWM     [2]map[int]types.Datum
	sent     watermarkSwitch
}

// joinSide is one input of a join.
type joinSide struct {
	keys, streamKey []int
	width           int
	outer           bool
	// unread are the columns stored as NULL (HashJoinSpec.LeftUnread).
	unread []int
	table  *StateTable
	// windows lists the side's groups by their first join key column
	// (HashJoinSpec.WindowKey).
	windows *windowIndex
}

// joinMatch is a stored row of the other side that matches the current row.
type joinMatch struct {
	suffix []byte
	row    []types.Datum
}

func newJoinSide(env *Env, table uint32, rowTypes []types.T, keys, streamKey []int, outer bool) joinSide {
	stored := rowTypes
	if outer {
		stored = append(append([]types.T(nil), rowTypes...), types.TInt8)
	}
	side := joinSide{keys: keys, streamKey: streamKey, width: len(rowTypes), outer: outer,
		table: env.StateTable(table, stored)}
	// A group is a join key.
	side.table.layout = &groupLayout{cols: len(keys)}
	return side
}

// Process implements Operator.
func (j *hashJoin) Process(input int, c *Chunk, emit Emit) error {
	self, other := &j.sides[input], &j.sides[1-input]
	for i, row := range c.Rows {
		if err := j.change(input, self, other, row, c.Ops[i].IsInsert(), emit); err != nil {
			return err
		}
	}
	return j.out.flush(emit)
}

// change applies one insert or delete of row on side input.
func (j *hashJoin) change(input int, self, other *joinSide, row []types.Datum, insert bool, emit Emit) error {
	key, null := rowkey.AppendCols(j.key[:0], row, self.keys)
	j.key = key
	if null {
		if self.outer && !j.matchedOnly {
			return j.out.add(opOf(insert), j.padded(input, row), emit)
		}
		return nil
	}
	if k := row[self.keys[0]]; j.wm != nil && !j.closedBelow.IsNull() && types.Compare(k, j.closedBelow) < 0 {
		return nil // late: its key is closed
	}
	vnode := distVNode(key, len(self.keys), j.groups)
	iv := j.interval[input]
	var ik types.Datum
	if iv != nil && iv.index != nil {
		var err error
		if ik, err = j.ev.Eval(iv.spec.Key, row); err != nil {
			return err
		}
	}
	mine, err := self.table.Group(vnode, key)
	if err != nil {
		return err
	}
	theirs, err := other.table.Lookup(vnode, key)
	if err != nil {
		return err
	}
	if err := j.match(input, row, theirs, other.width); err != nil {
		return err
	}
	j.sk, _ = rowkey.AppendCols(j.sk[:0], row, self.streamKey)
	if !insert {
		if _, ok := mine.Get(j.sk); !ok {
			return errRetractMissing
		}
	}
	for _, m := range j.matches {
		orow := m.row[:other.width]
		if !other.outer {
			if err := j.emitJoined(opOf(insert), input, row, orow, emit); err != nil {
				return err
			}
			continue
		}
		// The other side's degree counts this side's matching rows: its
		// padded row goes at the first match and comes back after the last.
		d := m.row[other.width].Int()
		if insert {
			if d == 0 {
				if err := j.out.add(j.unmatchedOp(Delete), j.padded(1-input, orow), emit); err != nil {
					return err
				}
			}
			if err := j.emitJoined(Insert, input, row, orow, emit); err != nil {
				return err
			}
			d++
		} else {
			if err := j.emitJoined(Delete, input, row, orow, emit); err != nil {
				return err
			}
			if d--; d == 0 {
				if err := j.out.add(j.unmatchedOp(Insert), j.padded(1-input, orow), emit); err != nil {
					return err
				}
			}
		}
		// The group owns its rows: update the degree in place.
		m.row[other.width] = types.NewInt(d)
		theirs.Put(m.suffix, m.row)
	}
	if self.outer && (len(j.matches) == 0) != j.matchedOnly {
		if err := j.out.add(opOf(insert), j.padded(input, row), emit); err != nil {
			return err
		}
	}
	if !insert {
		mine.Delete(j.sk)
		if iv != nil && iv.index != nil {
			iv.index.remove(ik, mine.prefix, j.sk)
		}
		return nil
	}
	if iv != nil && iv.dead(ik) {
		return nil // it can match no later row
	}
	stored := row
	if self.outer || len(self.unread) > 0 {
		stored = append(make([]types.Datum, 0, len(row)+1), row...)
		for _, c := range self.unread {
			stored[c] = types.Null
		}
		if self.outer {
			stored = append(stored, types.NewInt(int64(len(j.matches))))
		}
	}
	suffix := mine.Put(j.sk, stored)
	if self.windows != nil {
		self.windows.add(row[self.keys[0]], vnode, key)
	}
	if iv != nil && iv.index != nil {
		iv.index.add(ik, mine, suffix)
	}
	return nil
}

// Watermark implements watermarker: see HashJoinSpec.WindowKey and
// HashJoinSpec.Interval.
func (j *hashJoin) Watermark(input int, w Watermark, _ Emit, out WatermarkEmit) error {
	j.inWM[input][w.Col] = w.Val
	if j.wm != nil && w.Col == j.sides[input].keys[0] {
		if err := j.closeKeys(input, w, out); err != nil {
			return err
		}
	}
	return j.intervalWatermark(out)
}

// closeKeys merges w, a watermark of side input's first join key, with
// the other side's and deletes the state of the keys below the merged one.
func (j *hashJoin) closeKeys(input int, w Watermark, out WatermarkEmit) error {
	merged, ok := j.wm.add(input, Watermark{Col: 0, Val: w.Val})
	if !ok {
		return nil
	}
	for i := range j.sides {
		side := &j.sides[i]
		for _, win := range side.windows.close(merged.Val) {
			for ref := range win.groups {
				if err := deleteGroup(side.table, ref); err != nil {
					return err
				}
			}
		}
	}
	j.closedBelow = merged.Val
	if err := j.sendWatermark(out, Watermark{Col: j.sides[0].keys[0], Val: merged.Val}); err != nil {
		return err
	}
	if j.kind == exec.Inner {
		return j.sendWatermark(out, Watermark{Col: j.sides[0].width + j.sides[1].keys[0], Val: merged.Val})
	}
	return nil
}

// sendWatermark passes w on when it advances its output column.
func (j *hashJoin) sendWatermark(out WatermarkEmit, w Watermark) error {
	if !j.sent.advance(w) {
		return nil
	}
	return out(w)
}

// match collects into j.matches the rows of the other side's group that
// match row (of side input) on the residual condition (none: theirs is
// nil).
func (j *hashJoin) match(input int, row []types.Datum, theirs *Group, width int) error {
	clear(j.matches)
	j.matches = j.matches[:0]
	if theirs == nil {
		return nil
	}
	var err error
	theirs.Ascend(func(suffix []byte, orow []types.Datum) bool {
		if j.cond != nil {
			j.concat(j.joined, input, row, orow[:width])
			var ok bool
			if ok, err = j.ev.Holds(j.cond, j.joined); !ok {
				return err == nil
			}
		}
		j.matches = append(j.matches, joinMatch{suffix: suffix, row: orow})
		return true
	})
	return err
}

// concat writes the joined row of row (of side input) and orow (of the
// other side) into dst, left columns first.
func (j *hashJoin) concat(dst []types.Datum, input int, row, orow []types.Datum) {
	left, right := row, orow
	if input == 1 {
		left, right = orow, row
	}
	copy(dst, left)
	copy(dst[len(left):], right)
}

// unmatchedOp is op, the change of an outer row's padded output row as
// its degree leaves or reaches 0, or the reverse for a semi join, which
// emits the row while it has matches.
func (j *hashJoin) unmatchedOp(op Op) Op {
	if !j.matchedOnly {
		return op
	}
	return opOf(op == Delete)
}

// emitJoined emits the join of row (of side input) with orow; a semi or
// anti join emits none.
func (j *hashJoin) emitJoined(op Op, input int, row, orow []types.Datum, emit Emit) error {
	if j.semi {
		return nil
	}
	out := j.outRow(true)
	j.concat(out, input, row, orow)
	return j.out.add(op, out, emit)
}

// padded returns row of side input padded with NULLs for the other side
// (unpadded for a semi or anti join, whose rows are the left side's).
func (j *hashJoin) padded(input int, row []types.Datum) []types.Datum {
	out := j.outRow(input == 1)
	if input == 0 {
		copy(out, row)
	} else {
		copy(out[j.sides[0].width:], row)
	}
	return out
}

// outRow returns a new output row, its presence column (if any) TRUE when
// the right side is a row.
func (j *hashJoin) outRow(rightPresent bool) []types.Datum {
	if !j.presence {
		return j.out.row(j.width)
	}
	out := j.out.row(j.width + 1)
	if rightPresent {
		out[j.width] = types.NewBool(true)
	}
	return out
}

// opOf returns Insert or Delete.
func opOf(insert bool) Op {
	if insert {
		return Insert
	}
	return Delete
}

// Barrier implements Operator.
func (j *hashJoin) Barrier(b *Barrier, _ Emit) error {
	if b.Checkpoint {
		for i := range j.sides {
			j.sides[i].table.Commit(b.Epoch)
		}
	}
	return nil
}
