package dataflow

import (
	"context"
	"errors"
	"testing"

	"github.com/streamdb/streamdb/storage"
)

// TestWaitWritten checks how a write's wait ends around recoveries: a
// write whose epoch was committed before a recovery succeeds; one whose
// epoch the recovery rolled back fails with ErrRecovered, even when a
// later epoch of the same number commits.
func TestWaitWritten(t *testing.T) {
	st, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := NewBarrierManager(NewStore(st), 0, Hooks{Sealed: func(uint64) {}, Request: func() {}})
	ctx := context.Background()

	since := m.Resets()
	m.SetCommitted(5)
	m.reset(5, 6)
	if err := m.WaitWritten(ctx, 5, since); err != nil {
		t.Errorf("a write committed before the recovery: %v", err)
	}

	since = m.Resets()
	m.reset(6, 8) // epochs 7 and 8 rolled back
	m.SetCommitted(9)
	if err := m.WaitWritten(ctx, 7, since); !errors.Is(err, ErrRecovered) {
		t.Errorf("a write of a rolled-back epoch: %v, want ErrRecovered", err)
	}

	since = m.Resets()
	m.SetCommitted(12)
	if err := m.WaitWritten(ctx, 10, since); err != nil {
		t.Errorf("a write committed without a recovery: %v", err)
	}
}
