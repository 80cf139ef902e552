package dataflow

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Build implements Spec.
func (s *ProjectSpec) Build(env *Env) (Operator, error) {
	return &project{slots: projectSlots(s.Exprs), ev: env.Eval, wm: newWatermarkDerivation(s.Exprs)}, nil
}

// lazyState implements lazySpec: a projection keeps no state.
func (*ProjectSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *ProjectSpec) Explain() string {
	return "Project " + exprList(s.Exprs)
}

// exprList renders expressions as [e1, e2, ...].
func exprList(es []expr.Expr) string {
	b := []byte{'['}
	for i, e := range es {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, e.String()...)
	}
	return string(append(b, ']'))
}

// project computes its expressions over each row. An update pair whose
// projections are identical is dropped.
type project struct {
	slots []projectSlot
	ev    *Evaluator
	cmp   rowComparer
	out   chunkOut
	wm    watermarkDerivation
}

// Watermark implements watermarker: each output that is a non-decreasing
// function of the watermark's column gets a watermark (expr.Monotone).
func (p *project) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error {
	return p.wm.derive(p.ev, w, out)
}

// Process implements Operator.
func (p *project) Process(_ int, c *Chunk, emit Emit) error {
	o := &p.out
	for i := 0; i < len(c.Rows); i++ {
		row, err := p.eval(o, c.Rows[i])
		if err != nil {
			return err
		}
		if isPair(c, i) {
			i++
			next, err := p.eval(o, c.Rows[i])
			if err != nil {
				return err
			}
			if p.cmp.identical(row, next) {
				continue
			}
			if err := o.add(UpdateDelete, row, emit); err != nil {
				return err
			}
			row = next
		}
		if err := o.add(c.Ops[i], row, emit); err != nil {
			return err
		}
	}
	return o.flush(emit)
}

// projectSlot is how a projection fills one output column: most are a
// copy of an input column or a constant (the NULL of a column no operator
// above reads), which need no call through the expression's interface.
type projectSlot struct {
	col int         // the input column copied; -1: none
	val types.Datum // the constant, if eval is nil and col is -1
	// eval is the expression to evaluate, nil for a copy or a constant.
	eval expr.Expr
}

// projectSlots returns the slots of exprs.
func projectSlots(exprs []expr.Expr) []projectSlot {
	slots := make([]projectSlot, len(exprs))
	for j, e := range exprs {
		switch x := e.(type) {
		case *expr.ColRef:
			slots[j] = projectSlot{col: x.Idx}
		case *expr.Const:
			slots[j] = projectSlot{col: -1, val: x.V}
		default:
			slots[j] = projectSlot{col: -1, eval: e}
		}
	}
	return slots
}

func (p *project) eval(o *chunkOut, in []types.Datum) ([]types.Datum, error) {
	row := o.row(len(p.slots))
	for j := range p.slots {
		s := &p.slots[j]
		switch {
		case s.col >= 0:
			row[j] = in[s.col]
		case s.eval == nil:
			if !s.val.IsNull() { // a new row is all NULL
				row[j] = s.val
			}
		default:
			v, err := p.ev.Eval(s.eval, in)
			if err != nil {
				return nil, err
			}
			row[j] = v
		}
	}
	return row, nil
}

// Barrier implements Operator.
func (p *project) Barrier(*Barrier, Emit) error { return nil }
