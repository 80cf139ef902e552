package sql

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// TestWriterOwnership checks the waits for table writers: a transaction
// block owns the writers it took until it ends; a lone statement or
// another block waits for it (until its context ends); a wait that would
// close a cycle of blocks fails at once with 40P01 (also along a chain of
// three); a chain without a cycle waits.
func TestWriterOwnership(t *testing.T) {
	e := &Engine{}
	ctx := context.Background()
	w := []*tableWriter{e.tableWriter(1), e.tableWriter(2), e.tableWriter(3)}
	for _, tc := range []struct {
		name string
		// owns[i] is the writer block i owns; waits[i] the one it then
		// waits for in the background (-1: none).
		owns, waits []int
		// last asks for writer want: as a block, or as a lone statement.
		want      int
		lastBlock bool
		deadlock  bool
	}{
		{name: "free", owns: []int{0}, waits: []int{-1}, want: 1, lastBlock: true},
		{name: "two", owns: []int{0, 1}, waits: []int{1, -1}, want: 0, lastBlock: true, deadlock: true},
		{name: "three", owns: []int{0, 1, 2}, waits: []int{1, 2, -1}, want: 0, lastBlock: true, deadlock: true},
		{name: "chain without cycle", owns: []int{0, 1, 2}, waits: []int{1, -1, -1}, want: 0, lastBlock: true},
		{name: "lone statement waits", owns: []int{0}, waits: []int{-1}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			blocks := make([]*txn, len(tc.owns))
			for i, o := range tc.owns {
				blocks[i] = e.newBlock(int32(i + 1))
				if err := e.lock(ctx, "t", w[o], blocks[i]); err != nil {
					t.Fatal(err)
				}
				w[o].mu.Unlock() // between statements a block only owns
			}
			bg, cancel := context.WithCancel(ctx)
			defer cancel()
			waited := make(chan error, len(tc.waits))
			for i, wt := range tc.waits {
				if wt < 0 {
					continue
				}
				go func() {
					err := e.lock(bg, "t", w[wt], blocks[i])
					if err == nil {
						w[wt].mu.Unlock()
					}
					waited <- err
				}()
				for {
					e.lockMu.Lock()
					waiting := blocks[i].waiting != nil
					e.lockMu.Unlock()
					if waiting {
						break
					}
					time.Sleep(time.Millisecond)
				}
			}
			last := blocks[len(blocks)-1]
			if !tc.lastBlock {
				last = e.newTxn(99)
			}
			lctx, lcancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer lcancel()
			err := e.lock(lctx, "t", w[tc.want], last)
			owned := tc.owns[len(tc.owns)-1] == tc.want && tc.lastBlock
			var pe *pgerror.Error
			switch {
			case tc.deadlock && (!errors.As(err, &pe) || pe.Code != pgerror.CodeDeadlockDetected):
				t.Fatalf("got %v, want a deadlock", err)
			case !tc.deadlock && !owned && slices.Contains(tc.owns, tc.want) && !errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("got %v, want a wait until the deadline", err)
			case !tc.deadlock && (owned || !slices.Contains(tc.owns, tc.want)) && err != nil:
				t.Fatalf("got %v, want the writer", err)
			}
			if err == nil {
				w[tc.want].mu.Unlock()
			}
			cancel()
			for i, wt := range tc.waits {
				if wt >= 0 {
					if err := <-waited; !errors.Is(err, context.Canceled) {
						t.Errorf("block %d's wait: %v, want canceled", i, err)
					}
				}
			}
			for _, b := range blocks {
				b.sets = []*writeSet{{tw: w[0]}, {tw: w[1]}, {tw: w[2]}}
				b.discard()
			}
			for i, tw := range w {
				if tw.owner != nil {
					t.Errorf("writer %d still owned after the blocks ended", i)
				}
			}
		})
	}
}
