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
	ts := []types.T{types.TInt8, types.TText, types.TText}
	for _, tc := range []struct {
		name  string
		steps []testStep
	}{
		{"insert of a new key", []testStep{in("+ 1 a z", "+ 2 b z").emits("+ 1 a z", "+ 2 b z")}},
		{"insert of a stored key updates", []testStep{
			in("+ 1 a z").emits("+ 1 a z"), barrier(), in("+ 1 b z").emits("U- 1 a z", "U+ 1 b z"),
		}},
		{"insert of the stored row is dropped", []testStep{
			in("+ 1 a z", "+ 1 a z").emits("+ 1 a z"),
		}},
		{"delete by key deletes the stored row", []testStep{
			in("+ 1 a z").emits("+ 1 a z"), barrier(), in("- 1 NULL NULL").emits("- 1 a z"),
		}},
		{"delete of an absent key is dropped", []testStep{
			in("- 1 NULL NULL", "+ 2 b z", "- 2 x z", "- 2 x z").emits("+ 2 b z", "- 2 b z"),
		}},
		{"update pairs count as delete and insert", []testStep{
			in("+ 1 a z", "U- 1 a z", "U+ 3 c z").emits("+ 1 a z", "- 1 a z", "+ 3 c z"),
		}},
		{"an unchanged column keeps the stored value", []testStep{
			in("+ 1 a x").emits("+ 1 a x"), barrier(),
			in("+ 1 UNCHANGED y", "+ 1 UNCHANGED UNCHANGED").emits("U- 1 a x", "U+ 1 a y"), barrier(),
			in("+ 1 b UNCHANGED").emits("U- 1 a y", "U+ 1 b y"),
		}},
		{"an unchanged column of an absent key is NULL", []testStep{
			in("+ 1 UNCHANGED x").emits("+ 1 NULL x"),
		}},
		{"a truncate deletes every row, stored and cached, as of its place", []testStep{
			in("+ 1 a x", "+ 2 b x").emits("+ 1 a x", "+ 2 b x"), barrier(),
			in("+ 3 c x", "- 2 NULL NULL").emits("+ 3 c x", "- 2 b x"),
			in("T UNCHANGED UNCHANGED UNCHANGED", "+ 4 d x", "+ 1 e UNCHANGED").emits("- 1 a x", "- 3 c x", "+ 4 d x", "+ 1 e NULL"),
			barrier(),
			in("T UNCHANGED UNCHANGED UNCHANGED", "- 4 NULL NULL", "+ 5 f x").emits("- 1 e NULL", "- 4 d x", "+ 5 f x"),
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

// TestUpsertOracle applies random upserts, deletes by key and truncates, with
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
				if err := env.Store.Seal(epoch, nil, true); err != nil {
					rt.Fatal(err)
				}
				if rapid.Bool().Draw(rt, fmt.Sprint("rebuild", step)) {
					op = build()
				}
			case 1:
				c := &Chunk{}
				c.Append(Truncate, []types.Datum{types.Unchanged, types.Unchanged})
				clear(model)
				if err := op.Process(0, c, v.apply); err != nil {
					rt.Fatal(err)
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
		if err := env.Store.Seal(epoch, nil, true); err != nil {
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
