package dataflow

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

func TestMaterialize(t *testing.T) {
	env := newEnv(t)
	env.VNodeCount = rowkey.VNodes
	ts := []types.T{types.TText, types.TInt8, types.TNumeric}
	spec := &MaterializeSpec{TableID: 42, PK: []int{1, 0}, Types: ts}
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	scan := func(epoch uint64) []string {
		ctx := exec.WithEnv(context.Background(), &exec.Env{Engine: env.Store.Engine(), Epoch: epoch})
		rows, err := exec.Collect(expr.NewCtx(ctx, nil), &exec.TableScan{TableID: 42, Types: ts})
		if err != nil {
			t.Fatal(err)
		}
		return sortedRows(rows)
	}
	seal := func(epoch uint64) {
		if err := env.Store.Seal(epoch, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	input := []string{"+ a 1 1.50", "+ b 2 NULL", "+ c 3 3", "- b 2 NULL", "U- c 3 3", "U+ c 3 4", "U- a 1 1.50", "U+ z 1 1"}
	runSteps(t, op, [][]types.T{ts}, []testStep{
		in(input...).emits(input...),
		{barrier: true}, // not a checkpoint: nothing staged
	})
	seal(1)
	if got := scan(math.MaxUint64); len(got) != 0 {
		t.Fatalf("rows visible before a checkpoint: %v", got)
	}
	if err := op.Barrier(&Barrier{Epoch: 2, Checkpoint: true}, nil); err != nil {
		t.Fatal(err)
	}
	seal(2)
	want := []string{"c 3 4", "z 1 1"}
	if got := scan(2); !slices.Equal(got, want) {
		t.Fatalf("table rows %v, want %v", got, want)
	}
	// The row keys are exactly the batch layout's.
	for _, r := range [][]types.Datum{{types.NewString("c"), types.NewInt(3), types.Null}} {
		if _, ok, err := env.Store.Engine().Get(rowkey.Table(nil, 42, spec.PK, r), 2); err != nil || !ok {
			t.Fatalf("row %s not under exec.RowKey: %v", rowString(r), err)
		}
	}

	// A delete writes a tombstone at its epoch; older epochs keep the row.
	if err := op.Process(0, parseChunk(t, ts, "- c 3 4"), func(*Chunk) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := op.Barrier(&Barrier{Epoch: 3, Checkpoint: true}, nil); err != nil {
		t.Fatal(err)
	}
	seal(3)
	if got := scan(3); !slices.Equal(got, []string{"z 1 1"}) {
		t.Fatalf("rows after delete %v", got)
	}
	if got := scan(2); !slices.Equal(got, want) {
		t.Fatalf("rows at epoch 2 after delete %v", got)
	}
}
