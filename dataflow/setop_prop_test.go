package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// withoutID is a test spec that builds its operator from spec and feeds it
// its input rows without their first column, the oracle's row id: a set
// operation's rows have no key of their own.
type withoutID struct{ spec Spec }

func (w withoutID) Build(env *Env) (Operator, error) {
	op, err := w.spec.Build(env)
	return &dropID{Operator: op}, err
}

func (w withoutID) Explain() string { return w.spec.Explain() }

// dropID is the operator of withoutID.
type dropID struct {
	Operator
	c Chunk
}

func (d *dropID) Process(input int, c *Chunk, emit Emit) error {
	d.c = Chunk{}
	for i, row := range c.Rows {
		d.c.Append(c.Ops[i], row[1:])
	}
	return d.Operator.Process(input, &d.c, emit)
}

// TestSetOpOracle checks EXCEPT and INTERSECT, with and without ALL, over
// random changes of both inputs (duplicates and NULLs included) against
// exec.SetOp over the live rows, the copies of a row numbered for ALL.
func TestSetOpOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom([]exec.SetOpKind{exec.Except, exec.Intersect}).Draw(rt, "kind")
		all := rapid.Bool().Draw(rt, "all")
		spec := &SetOpSpec{Kind: kind, All: all, InputTypes: []types.T{types.TInt4, types.TText}, StateTable: freshTable()}
		strip := func(rows [][]types.Datum) [][]types.Datum {
			out := make([][]types.Datum, len(rows))
			for i, r := range rows {
				out[i] = r[1:]
			}
			return out
		}
		o := &oracle{
			keys: [][]int{{0}, {0}},
			row: func(t *rapid.T, _ int, id int64) []types.Datum {
				return []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, "1", "2"), drawValue(t, types.TText, "a")}
			},
			want: func(live [][][]types.Datum) []string {
				rows := batch(rt, &exec.SetOp{Kind: kind, All: all, L: exec.Rows(strip(live[0])), R: exec.Rows(strip(live[1]))})
				if all {
					copies := map[string]int64{}
					for i, r := range rows {
						k, _ := rowkey.AppendCols(nil, r, []int{0, 1})
						copies[string(k)]++
						rows[i] = append(r[:len(r):len(r)], types.NewInt(copies[string(k)]))
					}
				}
				return sortedRows(rows)
			},
		}
		o.check(rt, engine, withoutID{spec})
	})
}
