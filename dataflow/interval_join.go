package dataflow

import (
	"bytes"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// IntervalBound is what an interval join's condition tells of one side
// (HashJoinSpec.Interval): it implies Bound(s) <= Key(r) for every row r
// of this side and s of the other side that match, Key non-decreasing in
// column KeyCol of this side's rows and Bound in column BoundCol of the
// other side's (B.date_time BETWEEN A.date_time AND A.expires bounds A by
// Bound = B.date_time <= Key = A.expires, and B by Bound = A.date_time <=
// Key = B.date_time).
//
// Once the other side's watermark W on BoundCol is known, no row still to
// come there (inserted or deleted) has Bound below Bound(W): a stored row
// r with Key(r) < Bound(W) can match nothing more, and with Clean it is
// deleted from the join's state, as a state delete of the epoch like any
// other write. A row arriving below that threshold is matched but not
// stored. The rows it matched keep their results and degrees: an outer
// row's padded row stays retracted while a match it counts is deleted
// this way, which no later change can retract.
type IntervalBound struct {
	Key, Bound       expr.Expr
	KeyCol, BoundCol int
	// Clean deletes the rows no later row can match. Retracts marks a side
	// whose input is not append-only: a row is deleted only once its own
	// watermark on KeyCol says no retraction of it can come either (Key(r)
	// < Key(own watermark)).
	Clean, Retracts bool
	// Inverse, if not nil, undoes Key (over a row holding Key's value in
	// KeyCol: $KeyCol - c for Key = $KeyCol + c). Output column KeyCol of
	// this side then carries the watermark min(own watermark on KeyCol,
	// Inverse(Bound(W))): a later output row holds a later row of this
	// side, or a stored one matching a later row of the other side.
	Inverse expr.Expr
}

// intervalSide is the state of one side's IntervalBound in a join.
type intervalSide struct {
	spec *IntervalBound
	// index lists the side's stored rows by Key (with Clean).
	index *intervalIndex
	// below is the threshold last applied: rows with Key below it are
	// gone (NULL: none yet).
	below types.Datum
}

// newIntervalSide returns the state of bound b of side, rebuilding the
// index of its rows stored under vnodes. Their groups are not read into
// the cache: each row refers to a group reference of its prefix
// (StateTable.groupRef), which cleaning it up resolves.
func newIntervalSide(b *IntervalBound, side *joinSide, env *Env) (*intervalSide, error) {
	s := &intervalSide{spec: b}
	if !b.Clean {
		return s, nil
	}
	s.index = newIntervalIndex()
	var prefix []byte
	var g *Group
	err := scanState(env.Store, side.table.id, env.VNodes, side.table.types, func(vnode uint16, rest []byte, row []types.Datum) error {
		k, err := env.Eval.Eval(b.Key, row)
		if err != nil {
			return err
		}
		prefix, _ = rowkey.AppendCols(prefix[:0], row, side.keys)
		if g == nil || g.vnode != vnode || g.prefix != string(prefix) {
			g = side.table.groupRef(vnode, prefix)
		}
		s.index.add(k, g, bytes.Clone(rest[len(prefix):]))
		return nil
	})
	return s, err
}

// dead reports whether a row with Key k can match nothing still to come.
func (s *intervalSide) dead(k types.Datum) bool {
	if !s.spec.Clean {
		return false
	}
	if k.IsNull() {
		// It matches nothing; a retraction of it may still come.
		return !s.spec.Retracts
	}
	return !s.below.IsNull() && types.Compare(k, s.below) < 0
}

// clean deletes from table the indexed rows with Key below threshold.
func (s *intervalSide) clean(table *StateTable, threshold types.Datum) error {
	if !s.below.IsNull() && types.Compare(threshold, s.below) <= 0 {
		return nil
	}
	s.below = threshold
	return s.index.takeBelow(threshold, func(r indexedRow) error {
		g, err := table.Refresh(r.g)
		if err != nil {
			return err
		}
		g.Delete(r.suffix)
		return nil
	})
}

// evalAt evaluates e over a row of width columns whose column col holds v
// (e's other columns are not read: it is monotone in col alone); NULL when
// v is unknown.
func evalAt(ev *Evaluator, e expr.Expr, width, col int, v types.Datum) (types.Datum, error) {
	if v.IsNull() {
		return types.Null, nil
	}
	row := make([]types.Datum, width)
	row[col] = v
	return ev.Eval(e, row)
}

// minDatum returns the lower of a and b, NULL if either is.
func minDatum(a, b types.Datum) types.Datum {
	if a.IsNull() || b.IsNull() {
		return types.Null
	}
	if types.Compare(b, a) < 0 {
		return b
	}
	return a
}

// intervalWatermark applies the input watermarks to each side's bound:
// it deletes the rows no later row can match and sends the output
// watermarks that follow.
func (j *hashJoin) intervalWatermark(out WatermarkEmit) error {
	for i, s := range j.interval {
		if s == nil {
			continue
		}
		self, other := &j.sides[i], &j.sides[1-i]
		b := s.spec
		bound, err := evalAt(j.ev, b.Bound, other.width, b.BoundCol, j.inWM[1-i][b.BoundCol])
		if err != nil {
			return err
		}
		own := j.inWM[i][b.KeyCol]
		if b.Clean {
			threshold := bound
			if b.Retracts {
				k, err := evalAt(j.ev, b.Key, self.width, b.KeyCol, own)
				if err != nil {
					return err
				}
				threshold = minDatum(threshold, k)
			}
			if !threshold.IsNull() {
				if err := s.clean(self.table, threshold); err != nil {
					return err
				}
			}
		}
		if b.Inverse == nil {
			continue
		}
		inv, err := evalAt(j.ev, b.Inverse, self.width, b.KeyCol, bound)
		if err != nil {
			return err
		}
		col := b.KeyCol
		if i == 1 {
			col += j.sides[0].width
		}
		if err := j.sendWatermark(out, Watermark{Col: col, Val: minDatum(own, inv)}); err != nil {
			return err
		}
	}
	return nil
}
