package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Apply is a lateral join: Right runs once per Left row, which it reads
// as its innermost outer row (expr.OuterRef level 1). Kind is Inner or
// Left (a Left row without a match is NULL-padded); On, if set, is checked
// on the concatenated row.
type Apply struct {
	Kind                  JoinKind
	Left, Right           Op
	On                    expr.Expr
	LeftWidth, RightWidth int
}

// Run implements Op.
func (a *Apply) Run(c *expr.Ctx, emit Emit) error {
	out := make([]types.Datum, a.LeftWidth+a.RightWidth)
	return a.Left.Run(c, func(lrow []types.Datum) (bool, error) {
		copy(out, lrow)
		matched, more := false, true
		c.Outer = append(c.Outer, lrow)
		err := a.Right.Run(c, func(rrow []types.Datum) (bool, error) {
			copy(out[a.LeftWidth:], rrow)
			if a.On != nil {
				v, err := a.On.Eval(c, out)
				if err != nil || v.IsNull() || !v.Bool() {
					return err == nil, err
				}
			}
			matched = true
			var err error
			more, err = emit(out)
			return more, err
		})
		c.Outer = c.Outer[:len(c.Outer)-1]
		if err != nil || !more || matched || a.Kind != Left {
			return more, err
		}
		clear(out[a.LeftWidth:])
		return emit(out)
	})
}
