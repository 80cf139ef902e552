package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// ExpandSpec emits each row once per grouping set, with the same change:
// for set number i, the row with its columns Nulled[i] set to NULL,
// followed by i (bigint), which with the input's stream key identifies an
// output row. An update pair stays a pair in each set.
type ExpandSpec struct {
	Nulled [][]int
}

// Build implements Spec.
func (s *ExpandSpec) Build(*Env) (Operator, error) { return &expand{spec: s}, nil }

// lazyState implements lazySpec: an expansion keeps no state.
func (*ExpandSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *ExpandSpec) Explain() string { return fmt.Sprintf("Expand nulled=%v", s.Nulled) }

// expand implements ExpandSpec, building its rows in its output's arena.
type expand struct {
	spec *ExpandSpec
	out  chunkOut
}

// Process implements Operator.
func (x *expand) Process(_ int, c *Chunk, emit Emit) error {
	o := &x.out
	for i := 0; i < len(c.Rows); i++ {
		pair := isPair(c, i)
		for set := range x.spec.Nulled {
			row := x.row(c.Rows[i], set)
			var err error
			if pair {
				err = o.update(row, x.row(c.Rows[i+1], set), emit)
			} else {
				err = o.add(c.Ops[i], row, emit)
			}
			if err != nil {
				return err
			}
		}
		if pair {
			i++
		}
	}
	return o.flush(emit)
}

// row returns in's copy for grouping set number set.
func (x *expand) row(in []types.Datum, set int) []types.Datum {
	row := x.out.row(len(in) + 1)
	copy(row, in)
	for _, c := range x.spec.Nulled[set] {
		row[c] = types.Null
	}
	row[len(in)] = types.NewInt(int64(set))
	return row
}

// Barrier implements Operator.
func (x *expand) Barrier(*Barrier, Emit) error { return nil }
