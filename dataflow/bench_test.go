package dataflow

import (
	"strconv"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// BenchmarkHashAgg measures grouped count and sum over new and existing
// groups, one checkpoint per 16 chunks.
func BenchmarkHashAgg(b *testing.B) {
	for _, groups := range []int{100, 1 << 20} {
		b.Run("groups="+strconv.Itoa(groups), func(b *testing.B) {
			ts := []types.T{types.TInt8, types.TInt8}
			spec := &HashAggSpec{GroupKey: []int{0}, InputTypes: ts, StateTable: 1,
				Aggs: []*expr.AggFunc{newAgg(b, "count", false), newAgg(b, "sum", false, colRef(1, types.TInt8))}}
			op, err := spec.Build(newEnv(b))
			if err != nil {
				b.Fatal(err)
			}
			benchChunks(b, op, func(i int) []types.Datum {
				return []types.Datum{types.NewInt(int64(i*7919) % int64(groups)), types.NewInt(int64(i))}
			})
		})
	}
}

// BenchmarkHashJoin measures an inner join of two inputs on a key with
// about two rows per key and side.
func BenchmarkHashJoin(b *testing.B) {
	op, err := joinSpec(exec.Inner, nil).Build(newEnv(b))
	if err != nil {
		b.Fatal(err)
	}
	benchChunks(b, op, func(i int) []types.Datum {
		return []types.Datum{types.NewInt(int64(i)), types.NewInt(int64(i / 4)), types.NewString("v")}
	})
}

// benchChunks feeds b.N rows made by row to input 0 (and, for two-input
// operators, alternately 1) in full chunks, with a checkpoint every 16
// chunks, and reports rows per second.
func benchChunks(b *testing.B, op Operator, row func(i int) []types.Datum) {
	b.ReportAllocs()
	emit := func(*Chunk) error { return nil }
	epoch := uint64(0)
	_, twoInputs := op.(*hashJoin)
	for i, n := 0, 0; i < b.N; n++ {
		c := &Chunk{}
		for ; c.Len() < MaxChunkRows && i < b.N; i++ {
			c.Append(Insert, row(i))
		}
		input := 0
		if twoInputs {
			input = n % 2
		}
		if err := op.Process(input, c, emit); err != nil {
			b.Fatal(err)
		}
		if n%16 == 15 {
			epoch++
			if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
				b.Fatal(err)
			}
		}
	}
}
