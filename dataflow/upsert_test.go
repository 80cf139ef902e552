package dataflow

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

func TestUpsert(t *testing.T) {
	ts := []types.T{types.TInt8, types.TText}
	for _, tc := range []struct {
		name  string
		steps []testStep
	}{
		{"insert of a new key", []testStep{in("+ 1 a", "+ 2 b").emits("+ 1 a", "+ 2 b")}},
		{"insert of a stored key updates", []testStep{
			in("+ 1 a").emits("+ 1 a"), barrier(), in("+ 1 b").emits("U- 1 a", "U+ 1 b"),
		}},
		{"insert of the stored row is dropped", []testStep{
			in("+ 1 a", "+ 1 a").emits("+ 1 a"),
		}},
		{"delete by key deletes the stored row", []testStep{
			in("+ 1 a").emits("+ 1 a"), barrier(), in("- 1 NULL").emits("- 1 a"),
		}},
		{"delete of an absent key is dropped", []testStep{
			in("- 1 NULL", "+ 2 b", "- 2 x", "- 2 x").emits("+ 2 b", "- 2 b"),
		}},
		{"update pairs count as delete and insert", []testStep{
			in("+ 1 a", "U- 1 a", "U+ 3 c").emits("+ 1 a", "- 1 a", "+ 3 c"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			op, err := (&MaterializeSpec{TableID: freshTable(), PK: []int{0}, Types: ts, Upsert: true}).Build(env)
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{ts}, tc.steps)
		})
	}
}

// TestUpsertOracle applies random upserts and deletes by key, with
// checkpoints and rebuilds of the operator (a recovery) between them, and
// checks that the emitted changes are consistent and that both the view
// they build and the stored table equal a map from key to last row.
func TestUpsertOracle(t *testing.T) {
	ts := []types.T{types.TInt4, types.TInt4}
	rapid.Check(t, func(rt *rapid.T) {
		env := newEnv(t)
		spec := &MaterializeSpec{TableID: freshTable(), PK: []int{0}, Types: ts, Upsert: true}
		build := func() Operator {
			op, err := spec.Build(envOver(env.Store))
			if err != nil {
				rt.Fatal(err)
			}
			return op
		}
		op := build()
		model := map[int64]int64{}
		v := newView()
		epoch := uint64(0)
		for step := range rapid.IntRange(1, 60).Draw(rt, "steps") {
			switch rapid.IntRange(0, 9).Draw(rt, fmt.Sprint("kind", step)) {
			case 0:
				epoch++
				if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, v.apply); err != nil {
					rt.Fatal(err)
				}
				if err := env.Store.Seal(epoch, nil); err != nil {
					rt.Fatal(err)
				}
				if rapid.Bool().Draw(rt, fmt.Sprint("rebuild", step)) {
					op = build()
				}
			default:
				key := rapid.Int64Range(0, 5).Draw(rt, fmt.Sprint("key", step))
				c := &Chunk{}
				if rapid.IntRange(0, 2).Draw(rt, fmt.Sprint("delete", step)) == 0 {
					c.Append(Delete, []types.Datum{types.NewInt(key), types.Null})
					delete(model, key)
				} else {
					val := rapid.Int64Range(0, 2).Draw(rt, fmt.Sprint("val", step))
					c.Append(Insert, []types.Datum{types.NewInt(key), types.NewInt(val)})
					model[key] = val
				}
				if err := op.Process(0, c, v.apply); err != nil {
					rt.Fatal(err)
				}
			}
		}
		var want []string
		for k, val := range model {
			want = append(want, fmt.Sprintf("%d %d", k, val))
		}
		sort.Strings(want)
		if got := v.sorted(); !slices.Equal(got, want) {
			rt.Fatalf("view of the changes %v, want %v", got, want)
		}
		epoch++
		if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, v.apply); err != nil {
			rt.Fatal(err)
		}
		if err := env.Store.Seal(epoch, nil); err != nil {
			rt.Fatal(err)
		}
		ctx := exec.WithEnv(context.Background(), &exec.Env{Engine: env.Store.Engine(), Epoch: math.MaxUint64})
		rows, err := exec.Collect(expr.NewCtx(ctx, nil), &exec.TableScan{TableID: spec.TableID, Types: ts})
		if err != nil {
			rt.Fatal(err)
		}
		if got := sortedRows(rows); !slices.Equal(got, want) {
			rt.Fatalf("stored table %v, want %v", got, want)
		}
	})
}
