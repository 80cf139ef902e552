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
	// Then, if set, projects the expanded rows, fused into this operator:
	// the expanded rows, as wide as the input and more, are then built in
	// a buffer reused for every chunk, and only the projected ones kept.
	Then *ProjectSpec
}

// Build implements Spec.
func (s *ProjectSetSpec) Build(env *Env) (Operator, error) {
	p := &projectSet{spec: s, ev: env.Eval, x: exec.SetExpander{Funcs: s.Funcs, Ordinality: s.Ordinality}, sent: watermarkSwitch{}}
	if s.Then != nil {
		then, err := s.Then.Build(env)
		if err != nil {
			return nil, err
		}
		p.then = then.(*project)
	}
	return p, nil
}

// lazyState implements lazySpec: a set-returning projection keeps no
// state.
func (*ProjectSetSpec) lazyState() bool { return true }

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
	if s.Then != nil {
		out += " then " + s.Then.Explain()
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
	// then is the fused projection (ProjectSetSpec.Then); expanded rows
	// for it gather in scratch, their values in buf, both reused.
	then    *project
	scratch Chunk
	buf     []types.Datum
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
		var emitErr error
		_, err := p.x.Expand(p.ev.Ctx, row, func(out []types.Datum, n int64) (bool, error) {
			if p.then != nil {
				emitErr = p.gather(op, out, n, emit)
			} else {
				r := o.row(len(out) + 1)
				copy(r, out)
				r[len(out)] = types.NewInt(n)
				emitErr = o.add(op, r, emit)
			}
			return true, emitErr
		})
		if emitErr != nil {
			return emitErr
		}
		// A data error ends the row's expansion where it occurred, for
		// its insertion and its retraction alike.
		if err != nil && !p.ev.tolerate(err) {
			return err
		}
	}
	if p.then != nil {
		return p.project(emit)
	}
	return o.flush(emit)
}

// gather adds an expanded row (out, then its number n) to the rows for the
// fused projection, projecting them once a chunk is full.
func (p *projectSet) gather(op Op, out []types.Datum, n int64, emit Emit) error {
	start := len(p.buf)
	p.buf = append(append(p.buf, out...), types.NewInt(n))
	p.scratch.Append(op, p.buf[start:len(p.buf):len(p.buf)])
	if p.scratch.Len() >= MaxChunkRows {
		return p.project(emit)
	}
	return nil
}

// project runs the fused projection over the gathered rows, which it does
// not keep, and empties the buffers for reuse.
func (p *projectSet) project(emit Emit) error {
	if p.scratch.Len() == 0 {
		return nil
	}
	err := p.then.Process(0, &p.scratch, emit)
	p.scratch.Ops, p.scratch.Rows, p.buf = p.scratch.Ops[:0], p.scratch.Rows[:0], p.buf[:0]
	return err
}

// Barrier implements Operator.
func (p *projectSet) Barrier(*Barrier, Emit) error { return nil }

// Watermark implements watermarker: input columns keep theirs, and the
// window starts of HOP get one (expr.HopLowestStart).
func (p *projectSet) Watermark(_ int, w Watermark, emit Emit, out WatermarkEmit) error {
	if p.then != nil {
		// The fused projection derives the output's watermarks.
		projected := out
		out = func(w Watermark) error { return p.then.Watermark(0, w, emit, projected) }
	}
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
