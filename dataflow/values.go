package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// ValuesSpec emits constant rows once, when its job is created: the source
// of a view over a VALUES list or a SELECT without FROM. It heads the
// chain of a singleton fragment without inputs, which the barrier manager
// feeds barriers directly. Its stream is append-only.
type ValuesSpec struct{ Rows [][]types.Datum }

// Build implements Spec.
func (s *ValuesSpec) Build(*Env) (Operator, error) { return &values{rows: s.Rows}, nil }

// Explain implements Spec.
func (s *ValuesSpec) Explain() string { return fmt.Sprintf("Values %d rows", len(s.Rows)) }

// values emits its rows before the first barrier it sees (the barrier that
// adds the job), so they belong to the job's first epoch; the job counts as
// created once that epoch is committed. A job restarted from its committed
// state has them already and starts done.
type values struct {
	rows [][]types.Datum
	done bool
	// finished is called once the rows are emitted.
	finished func()
}

// Process implements Operator: a values fragment has no input rows.
func (v *values) Process(_ int, c *Chunk, emit Emit) error { return emit(c) }

// Barrier implements Operator.
func (v *values) Barrier(_ *Barrier, emit Emit) error {
	if v.done {
		return nil
	}
	v.done = true
	for start := 0; start < len(v.rows); start += MaxChunkRows {
		c := &Chunk{}
		for _, row := range v.rows[start:min(start+MaxChunkRows, len(v.rows))] {
			c.Append(Insert, row)
		}
		if err := emit(c); err != nil {
			return err
		}
	}
	v.finished()
	return nil
}
