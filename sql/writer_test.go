package sql

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// TestWriterLocks checks the table writers' waits: a transaction waits
// for a writer another holds, a wait that closes a cycle fails at once
// with 40P01 (also along a chain of three), and a wait ends with its
// context.
func TestWriterLocks(t *testing.T) {
	e := &Engine{}
	ctx := context.Background()
	w := []*tableWriter{e.tableWriter(1), e.tableWriter(2), e.tableWriter(3)}
	for _, tc := range []struct {
		name string
		// holds[i] is the writer transaction i holds; waits[i] the one
		// it then waits for in the background (-1: none).
		holds, waits []int
		// last is the writer the last transaction asks for.
		last     int
		deadlock bool
	}{
		{name: "free", holds: []int{0}, waits: []int{-1}, last: 1},
		{name: "two", holds: []int{0, 1}, waits: []int{1, -1}, last: 0, deadlock: true},
		{name: "three", holds: []int{0, 1, 2}, waits: []int{1, 2, -1}, last: 0, deadlock: true},
		{name: "chain without cycle", holds: []int{0, 1, 2}, waits: []int{1, -1, -1}, last: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			txs := make([]*txn, len(tc.holds))
			for i, h := range tc.holds {
				txs[i] = e.newTxn(int32(i + 1))
				if err := e.acquire(ctx, "t", w[h], txs[i]); err != nil {
					t.Fatal(err)
				}
			}
			bg, cancel := context.WithCancel(ctx)
			defer cancel()
			waited := make(chan error, len(tc.waits))
			for i, wt := range tc.waits {
				if wt < 0 {
					continue
				}
				go func() { waited <- e.acquire(bg, "t", w[wt], txs[i]) }()
				for {
					e.lockMu.Lock()
					waiting := txs[i].waiting != nil
					e.lockMu.Unlock()
					if waiting {
						break
					}
					time.Sleep(time.Millisecond)
				}
			}
			last := txs[len(txs)-1]
			lctx, lcancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer lcancel()
			err := e.acquire(lctx, "t", w[tc.last], last)
			var pe *pgerror.Error
			switch {
			case tc.deadlock && (!errors.As(err, &pe) || pe.Code != pgerror.CodeDeadlockDetected):
				t.Fatalf("got %v, want a deadlock", err)
			case !tc.deadlock && tc.holds[0] == tc.last && !errors.Is(err, context.DeadlineExceeded):
				t.Fatalf("got %v, want a wait until the deadline", err)
			case !tc.deadlock && tc.holds[0] != tc.last && err != nil:
				t.Fatalf("got %v, want the writer", err)
			}
			if err == nil {
				e.release(w[tc.last])
			}
			cancel()
			for i, wt := range tc.waits {
				if wt >= 0 {
					if err := <-waited; !errors.Is(err, context.Canceled) {
						t.Errorf("transaction %d's wait: %v, want canceled", i, err)
					}
				}
			}
			for _, h := range tc.holds {
				e.release(w[h])
			}
		})
	}
}
