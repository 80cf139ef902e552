package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// JoinKind is the kind of a join (mirrors the planner's).
type JoinKind uint8

// Join kinds.
const (
	Inner JoinKind = iota
	Left
	Right
	Full
	// Semi and Anti keep the left rows that have (Semi) or have not (Anti)
	// a matching right row, once each, with the left's columns only. Only
	// streaming joins (dataflow.HashJoinSpec) run them: the planner makes
	// them of EXISTS and IN subqueries in materialized views.
	Semi
	Anti
)

func (k JoinKind) String() string {
	return [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti"}[k]
}

// Join joins Left and Right. When LeftKeys/RightKeys are set the right side
// is hashed on them (equi-join); On, if set, is checked on the concatenated
// row. The right input is materialized once per Run.
type Join struct {
	Kind                JoinKind
	Left, Right         Op
	LeftKeys, RightKeys []expr.Expr
	On                  expr.Expr
	LeftWidth           int
	RightWidth          int
}

type buildRow struct {
	row     []types.Datum
	matched bool
}

// Run implements Op.
func (j *Join) Run(c *expr.Ctx, emit Emit) error {
	var build []*buildRow
	buckets := map[string][]*buildRow{}
	var key []byte
	err := j.Right.Run(c, func(row []types.Datum) (bool, error) {
		br := &buildRow{row: append([]types.Datum(nil), row...)}
		build = append(build, br)
		if j.RightKeys != nil {
			var ok bool
			var err error
			if key, ok, err = joinKey(c, key[:0], j.RightKeys, br.row); err != nil {
				return false, err
			}
			if ok {
				buckets[string(key)] = append(buckets[string(key)], br)
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	out := make([]types.Datum, j.LeftWidth+j.RightWidth)
	stopped := false
	var k canceler
	err = j.Left.Run(c, func(lrow []types.Datum) (bool, error) {
		if err := k.check(c); err != nil {
			return false, err
		}
		candidates := build
		if j.LeftKeys != nil {
			var ok bool
			var err error
			if key, ok, err = joinKey(c, key[:0], j.LeftKeys, lrow); err != nil {
				return false, err
			}
			candidates = nil
			if ok {
				candidates = buckets[string(key)]
			}
		}
		copy(out, lrow)
		matched := false
		for _, br := range candidates {
			copy(out[j.LeftWidth:], br.row)
			if j.On != nil {
				v, err := j.On.Eval(c, out)
				if err != nil {
					return false, err
				}
				if v.IsNull() || !v.Bool() {
					continue
				}
			}
			matched = true
			br.matched = true
			if more, err := emit(out); err != nil || !more {
				stopped = !more
				return more, err
			}
		}
		if !matched && (j.Kind == Left || j.Kind == Full) {
			clear(out[j.LeftWidth:])
			if more, err := emit(out); err != nil || !more {
				stopped = !more
				return more, err
			}
		}
		return true, nil
	})
	if err != nil || stopped || (j.Kind != Right && j.Kind != Full) {
		return err
	}
	clear(out[:j.LeftWidth])
	for _, br := range build {
		if br.matched {
			continue
		}
		copy(out[j.LeftWidth:], br.row)
		if more, err := emit(out); err != nil || !more {
			return err
		}
	}
	return nil
}

// joinKey encodes the key columns; ok is false when one is NULL (never equal).
func joinKey(c *expr.Ctx, dst []byte, keys []expr.Expr, row []types.Datum) ([]byte, bool, error) {
	for _, k := range keys {
		v, err := k.Eval(c, row)
		if err != nil {
			return dst, false, err
		}
		if v.IsNull() {
			return dst, false, nil
		}
		dst = types.AppendKey(dst, v, false)
	}
	return dst, true, nil
}
