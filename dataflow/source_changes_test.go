package dataflow

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// changeFeed is a ChangeReader over a list of changes of (key, value)
// rows, the offset counting the changes taken; it has nothing buffered
// past avail.
type changeFeed struct {
	changes []changeRow
	next    int
	avail   int
	opened  context.Context
	mu      sync.Mutex
	durable []int64
}

type changeRow struct {
	key, val int64
	del      bool
}

func (f *changeFeed) NextChanges(rows [][]types.Datum, deletes []bool) int {
	n := 0
	for ; n < len(rows) && f.next < f.avail; n++ {
		c := f.changes[f.next]
		rows[n][0], rows[n][1], deletes[n] = types.NewInt(c.key), types.NewInt(c.val), c.del
		f.next++
	}
	return n
}
func (f *changeFeed) Next(rows [][]types.Datum) int {
	return f.NextChanges(rows, make([]bool, len(rows)))
}
func (f *changeFeed) Offset() int64            { return int64(f.next) }
func (f *changeFeed) SetOffset(o int64)        { f.next = int(o) }
func (f *changeFeed) Done() bool               { return false }
func (f *changeFeed) Pace() time.Duration      { return 0 }
func (f *changeFeed) Open(ctx context.Context) { f.opened = ctx }
func (f *changeFeed) Committed(o int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.durable = append(f.durable, o)
}

// TestKeyedSource reads changes (inserts and deletes by key) from a
// change reader that has nothing buffered at first: the source polls,
// emits the changes with their ops and no row id, stores the offset at a
// checkpoint, reports it durable once the epoch commits, and stops the
// reader when closed.
func TestKeyedSource(t *testing.T) {
	feed := &changeFeed{changes: []changeRow{{1, 10, false}, {2, 20, false}, {1, 0, true}}}
	spec := &SourceSpec{Name: "feed", Splits: 1, Width: 2, StateTable: 7, Keyed: true,
		NewSplits: func([]int) []SplitReader { return []SplitReader{feed} }}
	env := newEnv(t)
	committed := make(chan uint64, 1)
	env.WaitCommitted = func(ctx context.Context, epoch uint64) error {
		if got := <-committed; got != epoch {
			t.Errorf("waited for epoch %d, committed %d", epoch, got)
		}
		return nil
	}
	op := buildSource(t, spec, env, []int{0})
	var out collector
	if wait, err := op.generate(out.emit); err != nil || wait != changePoll {
		t.Fatalf("nothing buffered: generate = %v, %v; want a poll after %v", wait, err, changePoll)
	}
	feed.avail = 3
	if wait, err := op.generate(out.emit); err != nil || wait != 0 {
		t.Fatalf("generate = %v, %v", wait, err)
	}
	if got, want := out.take(), []string{"+ 1 10", "+ 2 20", "- 1 0"}; !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
	if err := op.Barrier(&Barrier{Epoch: 1, Checkpoint: true}, out.emit); err != nil {
		t.Fatal(err)
	}
	committed <- 1
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		feed.mu.Lock()
		durable := slices.Clone(feed.durable)
		feed.mu.Unlock()
		if len(durable) > 0 || time.Now().After(deadline) {
			if !slices.Equal(durable, []int64{3}) {
				t.Fatalf("durable offsets %v, want [3]", durable)
			}
			break
		}
	}
	if err := env.Store.Seal(1, nil, true); err != nil {
		t.Fatal(err)
	}
	if off, ok, err := splitOffset(env.Store.Engine(), offsetKey(7, 0, 1, testVNodes), 1); err != nil || !ok || off != 3 {
		t.Fatalf("stored offset %d, %v, %v", off, ok, err)
	}
	op.close()
	if feed.opened.Err() == nil {
		t.Fatal("the reader's context is still live after close")
	}
}

// TestChangeOp checks the ops of a change reader's changes: a delete
// whose every column is Unchanged is a truncate.
func TestChangeOp(t *testing.T) {
	u, one := types.Unchanged, types.NewInt(1)
	for _, tc := range []struct {
		row     []types.Datum
		deleted bool
		want    Op
	}{
		{[]types.Datum{one, u}, false, Insert},
		{[]types.Datum{u, u}, false, Insert},
		{[]types.Datum{one, u}, true, Delete},
		{[]types.Datum{one, types.Null}, true, Delete},
		{[]types.Datum{u, u}, true, Truncate},
	} {
		if got := changeOp(tc.row, tc.deleted); got != tc.want {
			t.Errorf("changeOp(%v, %v) = %v, want %v", tc.row, tc.deleted, got, tc.want)
		}
	}
}
