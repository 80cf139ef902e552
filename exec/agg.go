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
