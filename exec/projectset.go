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
	x := SetExpander{Funcs: p.Funcs, Ordinality: p.Ordinality}
	var k canceler
	return p.Input.Run(c, func(row []types.Datum) (bool, error) {
		return x.Expand(c, row, func(out []types.Datum, _ int64) (bool, error) {
			if err := k.check(c); err != nil {
				return false, err
			}
			return emit(out)
		})
	})
}

// SetExpander expands one row at a time as ProjectSet does; the streaming
// ProjectSet uses it too. Its buffers are reused between rows.
type SetExpander struct {
	Funcs      []*expr.SetFunc
	Ordinality bool
	iters      []expr.SetIter
	out        []types.Datum
}

// Expand calls emit with each output row of row and its number n (from
// 1); the row is reused after emit returns. It stops early when emit says
// so (more is false).
func (x *SetExpander) Expand(c *expr.Ctx, row []types.Datum, emit func(out []types.Datum, n int64) (more bool, err error)) (bool, error) {
	if x.iters == nil {
		x.iters = make([]expr.SetIter, len(x.Funcs))
	}
	for i, f := range x.Funcs {
		it, err := f.Start(c, row)
		if err != nil {
			return false, err
		}
		x.iters[i] = it
	}
	out := append(x.out[:0], row...)
	width := len(row)
	out = append(out, make([]types.Datum, len(x.Funcs))...)
	if x.Ordinality {
		out = append(out, types.Null)
	}
	x.out = out
	for n := int64(1); ; n++ {
		yielded := false
		for i, it := range x.iters {
			if it == nil {
				out[width+i] = types.Null
				continue
			}
			v, ok, err := it()
			if err != nil {
				return false, err
			}
			if !ok {
				x.iters[i], v = nil, types.Null
			}
			out[width+i], yielded = v, yielded || ok
		}
		if !yielded {
			return true, nil
		}
		if x.Ordinality {
			out[len(out)-1] = types.NewInt(n)
		}
		if more, err := emit(out, n); err != nil || !more {
			return more, err
		}
	}
}
