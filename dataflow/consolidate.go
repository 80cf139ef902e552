package dataflow

import (
	"fmt"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// ConsolidateSpec merges the equal rows of each input chunk into one row
// with its multiplicity appended as a last bigint column (local
// pre-aggregation, Flink's and RisingWave's "local agg"): a chunk's inserts
// and deletes of one row net out, and the row goes on once, as an insert
// or a delete of as many copies as its weight says. Its output feeds an aggregation
// that reads the weight (HashAggSpec.Weighted) and nothing else: the
// merged rows are not identified by a stream key.
//
// Rows are equal when their memcomparable key encodings are (the
// aggregation's group-key equality), so the planner consolidates only
// columns the aggregation groups by, and the arguments of min and max,
// which Extremes reduce.
type ConsolidateSpec struct {
	// Pane, if set, rounds the time column Pane.Col down to the start of
	// its HOP pane first (expr.HopPaneStart): the rows of one pane fall
	// in the same windows, so a HOP expansion after this one expands a
	// pane's count instead of each of its rows.
	Pane *PaneSpec
	// Extremes are columns that do not take part in rows' equality: the
	// merged row keeps their max (or min) instead, as a max or min over
	// its copies would read it. They need append-only input.
	Extremes []ExtremeSpec
}

// ExtremeSpec is a column a ConsolidateSpec reduces to its max (or min).
type ExtremeSpec struct {
	Col int
	Max bool
}

// PaneSpec names the time column of a ConsolidateSpec and its pane width
// in microseconds (expr.HopPaneWidth).
type PaneSpec struct {
	Col   int
	Width int64
}

// Build implements Spec.
func (s *ConsolidateSpec) Build(*Env) (Operator, error) {
	c := &consolidate{spec: s, index: map[string]int{}, sent: watermarkSwitch{}}
	for _, e := range s.Extremes {
		for len(c.extreme) <= e.Col {
			c.extreme = append(c.extreme, false)
		}
		c.extreme[e.Col] = true
	}
	return c, nil
}

// lazyState implements lazySpec: consolidation keeps no state.
func (*ConsolidateSpec) lazyState() bool { return true }

// Explain implements Spec.
func (s *ConsolidateSpec) Explain() string {
	out := "Consolidate"
	if s.Pane != nil {
		out += fmt.Sprintf(" pane($%d, %dus)", s.Pane.Col, s.Pane.Width)
	}
	for _, e := range s.Extremes {
		if e.Max {
			out += fmt.Sprintf(" max($%d)", e.Col)
		} else {
			out += fmt.Sprintf(" min($%d)", e.Col)
		}
	}
	return out
}

// consolidate merges the rows of a chunk: index maps a row's key encoding
// to its place in rows and weights, all reused from chunk to chunk;
// extreme marks the Extremes' columns.
type consolidate struct {
	spec    *ConsolidateSpec
	extreme []bool
	index   map[string]int
	rows    [][]types.Datum
	weights []int64
	key     []byte
	out     chunkOut
	sent    watermarkSwitch
}

// Process implements Operator.
func (c *consolidate) Process(_ int, in *Chunk, emit Emit) error {
	pane := c.spec.Pane
	for i, row := range in.Rows {
		var t types.Datum
		if pane != nil {
			t = expr.HopPaneStart(row[pane.Col], pane.Width)
		}
		c.key = c.key[:0]
		for j, v := range row {
			switch {
			case j < len(c.extreme) && c.extreme[j]:
				continue
			case pane != nil && j == pane.Col:
				v = t
			}
			c.key = types.AppendKey(c.key, v, false)
		}
		w := int64(1)
		if !in.Ops[i].IsInsert() {
			if len(c.spec.Extremes) > 0 {
				return errAppendOnly
			}
			w = -1
		}
		if at, ok := c.index[string(c.key)]; ok {
			c.weights[at] += w
			r := c.rows[at]
			for _, e := range c.spec.Extremes {
				if replacesExtreme(e.Max, r[e.Col], row[e.Col]) {
					r[e.Col] = row[e.Col]
				}
			}
			continue
		}
		c.index[string(c.key)] = len(c.rows)
		r := c.out.row(len(row) + 1)
		copy(r, row)
		if pane != nil {
			r[pane.Col] = t
		}
		c.rows = append(c.rows, r)
		c.weights = append(c.weights, w)
	}
	for i, r := range c.rows {
		w, op := c.weights[i], Insert
		switch {
		case w == 0:
			continue
		case w < 0:
			w, op = -w, Delete
		}
		r[len(r)-1] = types.NewInt(w)
		if err := c.out.add(op, r, emit); err != nil {
			return err
		}
	}
	clear(c.index)
	clear(c.rows)
	c.rows, c.weights = c.rows[:0], c.weights[:0]
	return c.out.flush(emit)
}

// Barrier implements Operator: every chunk is flushed as it is processed.
func (c *consolidate) Barrier(*Barrier, Emit) error { return nil }

// Watermark implements watermarker: columns keep their watermarks, the
// pane column's rounded down to its pane.
func (c *consolidate) Watermark(_ int, w Watermark, _ Emit, out WatermarkEmit) error {
	if p := c.spec.Pane; p != nil && w.Col == p.Col {
		w.Val = expr.HopPaneStart(w.Val, p.Width)
	}
	if !c.sent.advance(w) {
		return nil
	}
	return out(w)
}
