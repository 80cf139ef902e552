package dataflow

import (
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// ProjectSetSpec expands each row by set-returning functions (unnest,
// generate_series over row values, HOP windows): output rows are the
// input row, one value per function (NULL once it ran out), the row's
// number from 1 if Ordinality, and always that number again as the last
// column, which with the input's stream key identifies an output row.
type ProjectSetSpec struct {
	Funcs      []*expr.SetFunc
	Ordinality bool
	// InputWidth is the number of input columns.
	InputWidth int
}

// Build implements Spec.
func (s *ProjectSetSpec) Build(env *Env) (Operator, error) {
	return &projectSet{spec: s, ev: env.Eval, x: exec.SetExpander{Funcs: s.Funcs, Ordinality: s.Ordinality}, sent: watermarkSwitch{}}, nil
}

// Explain implements Spec.
func (s *ProjectSetSpec) Explain() string {
	out := "ProjectSet "
	for i, f := range s.Funcs {
		if i > 0 {
			out += ", "
		}
		out += f.String()
	}
	if s.Ordinality {
		out += " WITH ORDINALITY"
	}
	return out
}

// projectSet expands rows. Functions are deterministic, so a retraction
// expands to exactly the rows its insertion did; an update pair becomes
// the deletes of the old row's expansion and the inserts of the new one's.
type projectSet struct {
	spec *ProjectSetSpec
	sent watermarkSwitch
	ev   *Evaluator
	x    exec.SetExpander
	out  chunkOut
}

// Process implements Operator.
func (p *projectSet) Process(_ int, c *Chunk, emit Emit) error {
	o := &p.out
	for i, row := range c.Rows {
		op := c.Ops[i]
		switch op {
		case UpdateDelete:
			op = Delete
		case UpdateInsert:
			op = Insert
		}
		_, err := p.x.Expand(p.ev.Ctx, row, func(out []types.Datum, n int64) (bool, error) {
			r := o.row(len(out) + 1)
			copy(r, out)
			r[len(out)] = types.NewInt(n)
			return true, o.add(op, r, emit)
		})
		if err != nil {
			if !p.ev.tolerate(err) {
				return err
			}
			// A data error ends the row's expansion where it
			// occurred, for its insertion and its retraction alike.
		}
	}
	return o.flush(emit)
}

// Barrier implements Operator.
func (p *projectSet) Barrier(*Barrier, Emit) error { return nil }

// Watermark implements watermarker: input columns keep theirs, and the
// window starts of HOP get one (expr.HopLowestStart).
func (p *projectSet) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error {
	if err := out(w); err != nil {
		return err
	}
	for i, f := range p.spec.Funcs {
		if c, ok := expr.HopStartsColumn(f); ok && c == w.Col {
			v, err := expr.HopLowestStart(f, w.Val)
			if err != nil {
				return err
			}
			if ow := (Watermark{Col: p.spec.InputWidth + i, Val: v}); p.sent.advance(ow) {
				if err := out(ow); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
