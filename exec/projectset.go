package exec

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// ProjectSet appends the values of set-returning functions to each input
// row: per input row it emits as many rows as the longest function yields,
// a function that ran out giving NULL; with Ordinality the row's number
// (from 1) follows. An input row for which no function yields a value
// emits nothing.
type ProjectSet struct {
	Input      Op
	Funcs      []*expr.SetFunc
	Ordinality bool
}

// Run implements Op.
func (p *ProjectSet) Run(c *expr.Ctx, emit Emit) error {
	var out []types.Datum
	iters := make([]expr.SetIter, len(p.Funcs))
	var k canceler
	return p.Input.Run(c, func(row []types.Datum) (bool, error) {
		for i, f := range p.Funcs {
			it, err := f.Start(c, row)
			if err != nil {
				return false, err
			}
			iters[i] = it
		}
		out = append(out[:0], row...)
		width := len(row)
		out = append(out, make([]types.Datum, len(p.Funcs))...)
		if p.Ordinality {
			out = append(out, types.Null)
		}
		for n := int64(1); ; n++ {
			if err := k.check(c); err != nil {
				return false, err
			}
			yielded := false
			for i, it := range iters {
				if it == nil {
					out[width+i] = types.Null
					continue
				}
				v, ok, err := it()
				if err != nil {
					return false, err
				}
				if !ok {
					iters[i], v = nil, types.Null
				}
				out[width+i], yielded = v, yielded || ok
			}
			if !yielded {
				return true, nil
			}
			if p.Ordinality {
				out[len(out)-1] = types.NewInt(n)
			}
			if more, err := emit(out); err != nil || !more {
				return more, err
			}
		}
	})
}
