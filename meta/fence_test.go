package meta

import (
	"errors"
	"testing"

	"github.com/hashicorp/raft"
)

// applyInTerm runs one command through the FSM as an entry of term.
func applyInTerm(t *testing.T, f *fsm, term uint64, o op, payload any) error {
	t.Helper()
	data, err := encodeCommand(o, payload, "")
	if err != nil {
		t.Fatal(err)
	}
	return f.Apply(&raft.Log{Data: data, Term: term}).(result).err
}

// TestRecoveryFencesCommits plays the histories that lost committed state
// before commits were fenced: a deposed leader's commit that Raft forwards
// to its successor once a partition heals, and a commit in flight when its
// generation failed, landing after the next recovery read the committed
// epoch. Each step is an entry of a term; the committed epoch must only
// move for the latest recovery's commits, proposed in its own term.
func TestRecoveryFencesCommits(t *testing.T) {
	type step struct {
		term      uint64
		recover   *Fence // begin this recovery, else commit epoch with fence
		fence     Fence
		epoch     uint64
		refused   bool
		committed uint64
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a deposed leader's commit forwarded to its successor", []step{
			{term: 2, recover: &Fence{2, 3}},
			{term: 2, fence: Fence{2, 3}, epoch: 281, committed: 281},
			{term: 3, recover: &Fence{3, 1}, committed: 281},
			// n1 proposed 282 in term 2; the new leader appends it in term 3.
			{term: 3, fence: Fence{2, 3}, epoch: 282, refused: true, committed: 281},
			{term: 3, fence: Fence{3, 1}, epoch: 282, committed: 282},
		}},
		{"a commit of the failed generation after the next recovery", []step{
			{term: 4, recover: &Fence{4, 1}},
			{term: 4, fence: Fence{4, 1}, epoch: 10, committed: 10},
			{term: 4, recover: &Fence{4, 2}, committed: 10},
			{term: 4, fence: Fence{4, 1}, epoch: 11, refused: true, committed: 10},
			{term: 4, fence: Fence{4, 2}, epoch: 11, committed: 11},
		}},
		{"recoveries only move forward, each in its own term", []step{
			{term: 5, recover: &Fence{5, 2}},
			{term: 5, recover: &Fence{5, 1}, refused: true},
			{term: 5, recover: &Fence{5, 2}, refused: true},
			{term: 6, recover: &Fence{5, 3}, refused: true},
			{term: 6, recover: &Fence{6, 3}},
			{term: 6, fence: Fence{6, 3}, epoch: 7, committed: 7},
		}},
		{"a log from before fences", []step{
			{term: 1, fence: Fence{}, epoch: 4, committed: 4},
			{term: 1, recover: &Fence{1, 1}, committed: 4},
			{term: 1, fence: Fence{}, epoch: 5, refused: true, committed: 4},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFSM(quiet)
			for i, s := range tc.steps {
				var err error
				if s.recover != nil {
					err = applyInTerm(t, f, s.term, opBeginRecovery, beginRecoveryCmd{Fence: *s.recover})
				} else {
					err = applyInTerm(t, f, s.term, opCommitEpoch, commitEpochCmd{Fence: s.fence, Epoch: s.epoch})
				}
				if refused := errors.Is(err, ErrStaleRecovery); refused != s.refused || err != nil && !refused {
					t.Fatalf("step %d: %v, want refused %v", i, err, s.refused)
				}
				if got := f.committed.Load(); got != s.committed {
					t.Fatalf("step %d: committed epoch %d, want %d", i, got, s.committed)
				}
			}
		})
	}
}

// TestSnapshotKeepsFence checks that a restored FSM refuses what the
// snapshotted one would: the recorded recovery survives snapshots.
func TestSnapshotKeepsFence(t *testing.T) {
	f := newFSM(quiet)
	if err := applyInTerm(t, f, 3, opBeginRecovery, beginRecoveryCmd{Fence: Fence{3, 7}}); err != nil {
		t.Fatal(err)
	}
	g := restored(t, f)
	if err := applyInTerm(t, g, 3, opCommitEpoch, commitEpochCmd{Fence: Fence{3, 6}, Epoch: 9}); !errors.Is(err, ErrStaleRecovery) {
		t.Fatalf("a commit of an older recovery after restore: %v", err)
	}
	if err := applyInTerm(t, g, 3, opCommitEpoch, commitEpochCmd{Fence: Fence{3, 7}, Epoch: 9}); err != nil || g.committed.Load() != 9 {
		t.Fatalf("a commit of the recorded recovery after restore: %v, committed %d", err, g.committed.Load())
	}
}
