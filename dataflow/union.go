package dataflow

import "strconv"

// Build implements Spec.
func (s *UnionSpec) Build(*Env) (Operator, error) {
	return &union{wm: newWatermarkMin(s.Inputs)}, nil
}

// lazyState implements lazySpec: a union keeps no state.
func (*UnionSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *UnionSpec) Explain() string { return "Union inputs=" + strconv.Itoa(s.Inputs) }

// union passes the chunks of every input through; a column's watermark is
// the lowest of its inputs'.
type union struct{ wm *watermarkMin }

// Process implements Operator.
func (*union) Process(_ int, c *Chunk, emit Emit) error { return emit(c) }

// Barrier implements Operator.
func (*union) Barrier(*Barrier, Emit) error { return nil }

// Watermark implements watermarker.
func (u *union) Watermark(input int, w Watermark, _ Emit, out WatermarkEmit) error {
	if merged, ok := u.wm.add(input, w); ok {
		return out(merged)
	}
	return nil
}
