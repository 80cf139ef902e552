package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// HashAgg groups rows by Group and computes Aggs per group. Without group
// expressions it emits exactly one row, even for empty input.
type HashAgg struct {
	Input Op
	Group []expr.Expr
	Aggs  []*expr.AggFunc
	// EmptySets are the numbers of the grouping sets without columns, the
	// last Group expression being an Expand's set number: each has a row
	// (the other group values NULL), even for empty input.
	EmptySets []int
}

type aggGroup struct {
	key    []types.Datum
	states []expr.AggState
}

// Run implements Op.
func (a *HashAgg) Run(c *expr.Ctx, emit Emit) error {
	groups := map[string]*aggGroup{}
	var order []*aggGroup
	var key []byte
	gvals := make([]types.Datum, len(a.Group))
	argBufs := make([][]types.Datum, len(a.Aggs))
	for i, ag := range a.Aggs {
		argBufs[i] = make([]types.Datum, len(ag.Args))
	}
	newGroup := func() *aggGroup {
		g := &aggGroup{key: append([]types.Datum(nil), gvals...), states: make([]expr.AggState, len(a.Aggs))}
		for i, ag := range a.Aggs {
			g.states[i] = ag.NewState()
		}
		order = append(order, g)
		return g
	}
	if len(a.Group) == 0 {
		groups[""] = newGroup()
	}
	for _, set := range a.EmptySets {
		clear(gvals)
		gvals[len(gvals)-1] = types.NewInt(int64(set))
		key = key[:0]
		for _, v := range gvals {
			key = types.AppendKey(key, v, false)
		}
		groups[string(key)] = newGroup()
	}
	err := a.Input.Run(c, func(row []types.Datum) (bool, error) {
		key = key[:0]
		for i, g := range a.Group {
			v, err := g.Eval(c, row)
			if err != nil {
				return false, err
			}
			gvals[i] = v
			key = types.AppendKey(key, v, false)
		}
		g, ok := groups[string(key)]
		if !ok {
			g = newGroup()
			groups[string(key)] = g
		}
		for i, ag := range a.Aggs {
			if ok, err := ag.Accepts(c, row); err != nil || !ok {
				if err != nil {
					return false, err
				}
				continue
			}
			args := argBufs[i]
			for j, e := range ag.Args {
				v, err := e.Eval(c, row)
				if err != nil {
					return false, err
				}
				args[j] = v
			}
			if err := g.states[i].Add(args); err != nil {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	out := make([]types.Datum, len(a.Group)+len(a.Aggs))
	for _, g := range order {
		copy(out, g.key)
		for i, s := range g.states {
			v, err := s.Result()
			if err != nil {
				return err
			}
			out[len(a.Group)+i] = v
		}
		if more, err := emit(out); err != nil || !more {
			return err
		}
	}
	return nil
}

// Expand emits each input row once per grouping set: for set number i,
// the row with its columns Nulled[i] set to NULL, followed by i.
type Expand struct {
	Input  Op
	Nulled [][]int
}

// Run implements Op.
func (e *Expand) Run(c *expr.Ctx, emit Emit) error {
	var out []types.Datum
	return e.Input.Run(c, func(row []types.Datum) (bool, error) {
		for i, nulled := range e.Nulled {
			out = append(append(out[:0], row...), types.NewInt(int64(i)))
			for _, col := range nulled {
				out[col] = types.Null
			}
			if more, err := emit(out); err != nil || !more {
				return more, err
			}
		}
		return true, nil
	})
}
