package dataflow

import (
	"context"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestBackfillIncludesAddEpoch checks that a new job sees the rows its
// upstream wrote in the epoch its Add barrier ends: they were sent before
// the job subscribed, and are committed only after that barrier.
func TestBackfillIncludesAddEpoch(t *testing.T) {
	env := newEnv(t)
	ts := []types.T{types.TInt8}
	up, err := (&MaterializeSpec{TableID: 9, PK: []int{0}, Types: ts}).Build(env)
	if err != nil {
		t.Fatal(err)
	}
	// Epoch 1 (committed before the job exists) and epoch 2 (ended by the
	// Add barrier) each write rows upstream.
	write := func(epoch uint64, rows ...string) {
		if err := up.Process(0, parseChunk(t, ts, rows...), func(*Chunk) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if err := up.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, nil); err != nil {
			t.Fatal(err)
		}
	}
	write(1, "+ 1", "+ 5")
	if err := env.Store.Seal(1, nil, true); err != nil {
		t.Fatal(err)
	}
	write(2, "+ 3", "+ 7")
	bf := &backfill{ctx: context.Background(), table: &TableRef{ID: 9, PK: []int{0}, Types: ts}, engine: env.Store.Engine(),
		wait: func(_ context.Context, epoch uint64) error { return env.Store.Seal(epoch, nil, true) },
		owns: func([]types.Datum) bool { return true }, more: func() {}, batch: DefaultBackfillBatch,
		pin: func(epoch uint64) (func(), error) { return env.Store.Engine().PinFor(epoch, backfillHold) }}
	v := newView()
	emit := v.apply
	if err := bf.Barrier(&Barrier{Epoch: 2, Checkpoint: true}, emit); err != nil {
		t.Fatal(err)
	}
	// A change of epoch 3 arrives (the job is subscribed now).
	if err := bf.Process(0, parseChunk(t, ts, "+ 4"), emit); err != nil {
		t.Fatal(err)
	}
	if err := bf.Barrier(&Barrier{Epoch: 3, Checkpoint: true}, emit); err != nil {
		t.Fatal(err)
	}
	if got, want := v.sorted(), []string{"1", "3", "4", "5", "7"}; !slices.Equal(got, want) || !bf.done {
		t.Fatalf("backfill emitted %q (done %v), want %q", got, bf.done, want)
	}
}
