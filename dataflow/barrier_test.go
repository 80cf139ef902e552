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
	m := NewBarrierManager(NewStore(st), 0, Hooks{Sealed: func(uint64, bool) {}, Request: func() {}})
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

// TestFailureThenRecovery checks that an actor's failure is reported to
// the coordinator once (it recovers the cluster), that a write waiting
// through the failure learns after the reset that it was not applied
// (ErrRecovered, which the statement retries) rather than getting the
// failed actor's error, and that a write sent after the reset waits for
// the recovery's Resume and goes to the restarted job.
func TestFailureThenRecovery(t *testing.T) {
	st, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	failures := 0
	m := NewBarrierManager(NewStore(st), 0, Hooks{Sealed: func(uint64, bool) {}, Request: func() {}, Failed: func(error) { failures++ }})
	ctx := context.Background()
	m.addSource(sourceKey{job: 1}, make(chan Message, 1), 1)

	m.Fail(errors.New("actor 7: boom"))
	m.Fail(errors.New("actor 8: boom too"))
	if failures != 1 {
		t.Errorf("%d failures reported, want 1", failures)
	}
	send := func() chan error {
		sent := make(chan error, 1)
		go func() {
			_, err := m.Send(ctx, 1, &Chunk{}, nil)
			sent <- err
		}()
		return sent
	}
	quiet := func(sent chan error, when string) {
		t.Helper()
		select {
		case err := <-sent:
			t.Fatalf("the write ended %s: %v", when, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	during := send()
	quiet(during, "before the recovery's reset")
	m.reset(0, 3)
	if err := <-during; !errors.Is(err, ErrRecovered) {
		t.Fatalf("the write waiting through the failure: %v, want ErrRecovered", err)
	}
	after := send()
	quiet(after, "before the restarted job's source")
	restarted := make(chan Message, 1)
	m.addSource(sourceKey{job: 1}, restarted, 1)
	quiet(after, "before the recovery resumed")
	m.setPaused(false) // the recovery's Resume
	if err := <-after; err != nil {
		t.Fatalf("the write after the recovery: %v", err)
	}
	if len(restarted) != 1 {
		t.Error("the write did not reach the restarted job")
	}
}
