package dataflow

import (
	"github.com/streamdb/streamdb/expr"
)

// Build implements Spec.
func (s *FilterSpec) Build(env *Env) (Operator, error) {
	return &filter{test: expr.CompileTest(s.Cond), ev: env.Eval}, nil
}

// lazyState implements lazySpec: a filter keeps no state.
func (*FilterSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *FilterSpec) Explain() string { return "Filter " + s.Cond.String() }

// filter keeps the rows whose condition is true. An update pair with one
// half filtered out becomes a plain delete or insert of the other half (as
// does any update half without its partner in the chunk).
type filter struct {
	test expr.Test
	ev   *Evaluator
	keep []bool
}

// Process implements Operator.
func (f *filter) Process(_ int, c *Chunk, emit Emit) error {
	f.keep = f.keep[:0]
	all := true
	for _, row := range c.Rows {
		k, err := f.ev.Holds(f.test, row)
		if err != nil {
			return err
		}
		all = all && k
		f.keep = append(f.keep, k)
	}
	if all {
		return emit(c)
	}
	out := &Chunk{}
	for i := 0; i < len(c.Rows); i++ {
		if isPair(c, i) {
			switch kd, ki := f.keep[i], f.keep[i+1]; {
			case kd && ki:
				out.Append(UpdateDelete, c.Rows[i])
				out.Append(UpdateInsert, c.Rows[i+1])
			case kd:
				out.Append(Delete, c.Rows[i])
			case ki:
				out.Append(Insert, c.Rows[i+1])
			}
			i++
			continue
		}
		if f.keep[i] {
			out.Append(opOf(c.Ops[i].IsInsert()), c.Rows[i])
		}
	}
	if out.Len() == 0 {
		return nil
	}
	return emit(out)
}

// isPair reports whether rows i and i+1 of c are an update pair.
func isPair(c *Chunk, i int) bool {
	return c.Ops[i] == UpdateDelete && i+1 < len(c.Ops) && c.Ops[i+1] == UpdateInsert
}

// Barrier implements Operator.
func (f *filter) Barrier(*Barrier, Emit) error { return nil }

// Watermark implements watermarker: a filter keeps columns as they are.
func (f *filter) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error { return out(w) }
