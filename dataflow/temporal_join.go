package dataflow

import (
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// TemporalJoinSpec is a processing-time temporal join (t FOR SYSTEM_TIME
// AS OF PROCTIME()): input 0, the left stream, hashed on LeftKey; input 1,
// the changes of the right table, hashed on RightKey. Each left change is
// looked up in the right table as it stands at the epoch's barrier and
// emits its joined rows (for a Left join, the row padded with NULLs when
// nothing matches); right changes update the lookup state only and never
// touch earlier output.
//
// Lookup state: the join keeps its own copy of the right table, grouped by
// join key under the key's vnode, fed by the right input (backfill, then
// changes). It does not read the table's storage: that is keyed by the
// table's own distribution, written by another job's actors that may not
// have written an epoch yet when the join reads it, and on another node
// in a cluster. The copy costs the right table's size once more, but
// lives in the join's vnodes, so each actor's lookups are local and the
// copy moves with rescale and recovers with the join's checkpoints.
//
// Consistency: left changes of an epoch are held until its barrier (or a
// left watermark) and looked up then, so every lookup of the epoch sees
// the right table as of that barrier, all right changes of the epoch
// applied (also when a new view backfills both sides in one epoch).
//
// Creation: a new view backfills both inputs, the right one in batches
// over many epochs. Until the right input is loaded (Loaded), left
// changes are held in HoldTable, not looked up against a partial copy;
// at the barrier of the epoch the right input is loaded in, they are
// looked up in order, then the join goes on as above. Holding them in
// the join, rather than delaying the left backfill until the right one
// is done, also covers a left input that is not backfilled (a source)
// and needs no coordination between the backfills' actors, which may
// run on other nodes. The hold costs state bounded by what the left
// input sends while the right one loads (about what the left backfill
// reads in as many batches as the right one takes); past checkpoints'
// groups are evictable. A crash during creation fails the CREATE: the
// view is recorded only once created, so a restarted job never holds
// (Env.Creating is false) and a new CREATE starts over with fresh state
// tables, exactly once either way.
//
// Retractions: with MemoTable (a left input with updates or deletes), the
// right rows each left row was joined with are kept under (join key, left
// stream key), so that its delete retracts exactly what its insert
// emitted, whatever the right table became since.
type TemporalJoinSpec struct {
	// Kind is exec.Inner or exec.Left.
	Kind                          exec.JoinKind
	LeftKey, RightKey             []int
	Cond                          expr.Expr
	LeftTypes, RightTypes         []types.T
	LeftStreamKey, RightStreamKey []int
	// RightTable holds the right rows keyed by (join key, right stream key).
	RightTable uint32
	// MemoTable holds the right rows (all NULL for padding) each left row
	// was emitted with, keyed by (join key, left stream key, right stream
	// key); 0 for an append-only left input.
	MemoTable uint32
	// HoldTable holds the left changes that arrive while a new job's
	// right input loads (leftHold).
	HoldTable uint32
}

// Build implements Spec.
func (s *TemporalJoinSpec) Build(env *Env) (Operator, error) {
	j := &temporalJoin{spec: s, ev: env.Eval, groups: env.VNodeCount,
		left: len(s.LeftTypes), right: len(s.RightTypes),
		joined: make([]types.Datum, len(s.LeftTypes)+len(s.RightTypes)),
		nulls:  make([]types.Datum, len(s.RightTypes))}
	if s.Cond != nil {
		j.cond = expr.CompileTest(s.Cond)
	}
	j.rightTable = env.StateTable(s.RightTable, s.RightTypes)
	j.rightTable.layout = &groupLayout{cols: len(s.RightKey)}
	if s.MemoTable != 0 {
		j.memo = env.StateTable(s.MemoTable, s.RightTypes)
		j.memo.layout = &groupLayout{cols: len(s.LeftKey) + len(s.LeftStreamKey)}
	}
	if env.Creating {
		j.holdTable = env.StateTable(s.HoldTable, append(slices.Clip(s.LeftTypes), types.TInt2))
		j.hold = newLeftHold(j.holdTable, env.VNodes)
	}
	return j, nil
}

// lazyState implements lazySpec: groups are read when a row of their
// vnode reaches them (a join without keys keeps its rows under vnode 0).
func (s *TemporalJoinSpec) lazyState() bool { return len(s.LeftKey) > 0 }

// Explain implements Spec.
func (s *TemporalJoinSpec) Explain() string {
	cond := ""
	if s.Cond != nil {
		cond = " cond=" + s.Cond.String()
	}
	memo := ""
	if s.MemoTable != 0 {
		memo = " memo"
	}
	return fmt.Sprintf("TemporalJoin %s left=%v right=%v%s%s", s.Kind, s.LeftKey, s.RightKey, cond, memo)
}

// temporalJoin is the operator of TemporalJoinSpec.
type temporalJoin struct {
	spec        *TemporalJoinSpec
	cond        expr.Test // spec.Cond compiled, nil for none
	ev          *Evaluator
	groups      int
	left, right int
	rightTable  *StateTable
	// memo is nil for an append-only left input; holdTable is the hold's
	// (nil for a restarted job).
	memo, holdTable *StateTable
	// held are the left chunks of the current epoch, not looked up yet.
	held []*Chunk
	// hold, until the right input is loaded, holds the left changes; nil
	// once they are released. rightLoaded: the right input is loaded,
	// and hold goes at the barrier. wm is a left watermark held with
	// them, out where it goes.
	hold        *leftHold
	rightLoaded bool
	wm          *Watermark
	wmOut       WatermarkEmit
	// joined is scratch space for evaluating Cond; nulls a padding row.
	joined, nulls []types.Datum
	key, sk, rk   []byte
	matches       [][]types.Datum
	out           chunkOut
}

// Process implements Operator: left chunks wait for the barrier, right
// changes update the lookup state at once.
func (j *temporalJoin) Process(input int, c *Chunk, emit Emit) error {
	if input == 0 {
		if j.hold != nil {
			return j.hold.add(c)
		}
		j.held = append(j.held, c)
		return nil
	}
	for i, row := range c.Rows {
		key, null := rowkey.AppendCols(j.key[:0], row, j.spec.RightKey)
		j.key = key
		if null {
			continue // matches nothing
		}
		g, err := j.rightTable.Group(distVNode(key, len(j.spec.RightKey), j.groups), key)
		if err != nil {
			return err
		}
		j.rk, _ = rowkey.AppendCols(j.rk[:0], row, j.spec.RightStreamKey)
		if c.Ops[i].IsInsert() {
			g.Put(j.rk, row)
		} else {
			g.Delete(j.rk)
		}
	}
	return nil
}

// Watermark implements watermarker: a left watermark passes after the
// held rows (which it may cover), or with the hold; the right input's are
// dropped.
func (j *temporalJoin) Watermark(input int, w Watermark, emit Emit, out WatermarkEmit) error {
	if input != 0 {
		return nil
	}
	if j.hold != nil {
		j.wm = &w
		return nil
	}
	if err := j.lookUp(emit); err != nil {
		return err
	}
	return out(w)
}

// setWatermarkOut implements watermarkSource: a held left watermark
// goes with the hold.
func (j *temporalJoin) setWatermarkOut(out WatermarkEmit) { j.wmOut = out }

// Loaded implements loadWatcher.
func (j *temporalJoin) Loaded(input int) error {
	j.rightLoaded = j.rightLoaded || input == 1
	return nil
}

// Barrier implements Operator.
func (j *temporalJoin) Barrier(b *Barrier, emit Emit) error {
	if err := j.passHold(emit); err != nil {
		return err
	}
	if err := j.lookUp(emit); err != nil {
		return err
	}
	if b.Checkpoint {
		for _, t := range []*StateTable{j.rightTable, j.memo, j.holdTable} {
			if t != nil {
				t.Commit(b.Epoch)
			}
		}
	}
	return nil
}

// passHold, at a barrier, looks the held left changes up once the right
// input is loaded, or starts the next barrier's group of the hold.
func (j *temporalJoin) passHold(emit Emit) error {
	if j.hold == nil {
		return nil
	}
	if !j.rightLoaded {
		j.hold.next()
		return nil
	}
	h := j.hold
	j.hold = nil
	if err := h.release(func(row []types.Datum, insert bool) error { return j.change(row, insert, emit) }); err != nil {
		return err
	}
	if err := j.out.flush(emit); err != nil {
		return err
	}
	if w := j.wm; w != nil && j.wmOut != nil {
		j.wm = nil
		return j.wmOut(*w)
	}
	return nil
}

// lookUp joins the held left changes and emits the result.
func (j *temporalJoin) lookUp(emit Emit) error {
	for _, c := range j.held {
		for i, row := range c.Rows {
			if err := j.change(row, c.Ops[i].IsInsert(), emit); err != nil {
				return err
			}
		}
	}
	clear(j.held)
	j.held = j.held[:0]
	return j.out.flush(emit)
}

// change joins one left insert or delete.
func (j *temporalJoin) change(row []types.Datum, insert bool, emit Emit) error {
	s := j.spec
	key, null := rowkey.AppendCols(j.key[:0], row, s.LeftKey)
	j.key = key
	if null {
		// Matches nothing, now or ever: no memo needed.
		if s.Kind == exec.Left {
			return j.emit(opOf(insert), row, j.nulls, emit)
		}
		return nil
	}
	vnode := distVNode(key, len(s.LeftKey), j.groups)
	var memo *Group
	if j.memo != nil {
		j.sk, _ = rowkey.AppendCols(append(j.sk[:0], key...), row, s.LeftStreamKey)
		var err error
		if memo, err = j.memo.Group(vnode, j.sk); err != nil {
			return err
		}
	}
	if !insert {
		if memo == nil {
			return errRetractMissing
		}
		var err error
		memo.Ascend(func(_ []byte, orow []types.Datum) bool {
			err = j.emit(Delete, row, orow, emit)
			return err == nil
		})
		if err != nil {
			return err
		}
		memo.Clear()
		return nil
	}
	theirs, err := j.rightTable.Lookup(vnode, key)
	if err != nil {
		return err
	}
	if err := j.match(row, theirs); err != nil {
		return err
	}
	if len(j.matches) == 0 && s.Kind == exec.Left {
		j.matches = append(j.matches, j.nulls)
	}
	for _, orow := range j.matches {
		if err := j.emit(Insert, row, orow, emit); err != nil {
			return err
		}
		if memo != nil {
			j.rk, _ = rowkey.AppendCols(j.rk[:0], orow, s.RightStreamKey)
			memo.Put(j.rk, orow)
		}
	}
	return nil
}

// match collects into j.matches the rows of group theirs that match row
// on Cond (none: theirs is nil).
func (j *temporalJoin) match(row []types.Datum, theirs *Group) error {
	clear(j.matches)
	j.matches = j.matches[:0]
	if theirs == nil {
		return nil
	}
	var err error
	theirs.Ascend(func(_ []byte, orow []types.Datum) bool {
		if j.cond != nil {
			copy(j.joined, row)
			copy(j.joined[j.left:], orow)
			var ok bool
			if ok, err = j.ev.Holds(j.cond, j.joined); !ok {
				return err == nil
			}
		}
		j.matches = append(j.matches, orow)
		return true
	})
	return err
}

// emit adds the joined row of row and orow.
func (j *temporalJoin) emit(op Op, row, orow []types.Datum, emit Emit) error {
	out := j.out.row(j.left + j.right)
	copy(out, row)
	copy(out[j.left:], orow)
	return j.out.add(op, out, emit)
}
