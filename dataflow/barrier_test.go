package dataflow

import (
	"context"
	"errors"
	"testing"
	"time"

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
	m := NewBarrierManager(NewStore(st), 0, func(uint64) {}, func() {})
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

// TestFailureThenRecovery checks that an actor's failure asks for a barrier
// at once (the coordinator recovers when it fails), and that a write after
// the failure waits for the recovery's Resume and goes to the restarted
// job, instead of failing with the failed actor's error.
func TestFailureThenRecovery(t *testing.T) {
	st, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	requests := 0
	m := NewBarrierManager(NewStore(st), 0, func(uint64) {}, func() { requests++ })
	ctx := context.Background()
	m.addSource(sourceKey{job: 1}, make(chan Message, 1), 1)

	m.Fail(errors.New("actor 7: boom"))
	if requests != 1 {
		t.Errorf("%d barriers asked for after the failure, want 1", requests)
	}
	if err := m.WaitCommitted(ctx, 1); err == nil {
		t.Error("a wait for a commit outlived the failure")
	}
	sent := make(chan error, 1)
	go func() {
		_, err := m.Send(ctx, 1, &Chunk{}, nil)
		sent <- err
	}()
	restarted := make(chan Message, 1)
	for _, step := range []func(){
		func() { m.reset(0, 3) },
		func() { m.addSource(sourceKey{job: 1}, restarted, 1) },
	} {
		step()
		select {
		case err := <-sent:
			t.Fatalf("the write ended before the recovery resumed: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	m.setPaused(false) // the recovery's Resume
	if err := <-sent; err != nil {
		t.Fatalf("the write after the recovery: %v", err)
	}
	if len(restarted) != 1 {
		t.Error("the write did not reach the restarted job")
	}
}
