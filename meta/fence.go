package meta

import (
	"fmt"

	"github.com/streamdb/streamdb/pgerror"
)

// Fence names a recovery of the cluster's streaming jobs: the Raft term of
// the leader that ran it and its number among that leader's recoveries.
// The FSM records the latest (BeginRecovery) and commits an epoch only for
// it (CommitEpoch): a commit of an older recovery's epoch, which the nodes
// have rolled back since, must not land after the recovery read the
// committed epoch. Such a commit may be late (a deposed leader's, which
// Raft forwards to the new one once the network heals, or one that was
// in flight when its generation failed).
type Fence struct {
	Term uint64 `json:"term"`
	Gen  uint64 `json:"gen"`
}

// String names the recovery f uniquely in the cluster.
func (f Fence) String() string { return fmt.Sprintf("%d.%d", f.Term, f.Gen) }

// Before reports whether f is older than g.
func (f Fence) Before(g Fence) bool {
	return f.Term < g.Term || (f.Term == g.Term && f.Gen < g.Gen)
}

// ErrStaleRecovery refuses a commit or a recovery of a recovery the cluster
// has moved past.
var ErrStaleRecovery = pgerror.New(pgerror.CodeSerializationFailure, "a newer recovery of the streaming jobs took over")

type beginRecoveryCmd struct {
	Fence Fence `json:"fence"`
}

// beginRecovery records f as the latest recovery, proposed in a log entry
// of term: only the leader of f's term may start it, and only after every
// recovery before it.
func (f *fsm) beginRecovery(p *beginRecoveryCmd, term uint64) error {
	if p.Fence.Term != term || !f.fence.Before(p.Fence) {
		return fmt.Errorf("meta: recovery %s refused (recovery %s is recorded, the entry is of term %d): %w", p.Fence, f.fence, term, ErrStaleRecovery)
	}
	f.fence = p.Fence
	return nil
}

// checkCommit refuses an epoch commit of another recovery than the
// latest, or proposed in a term other than its recovery's. (A commit
// without a fence, of a log written before fences, passes while none is
// recorded.)
func (f *fsm) checkCommit(p *commitEpochCmd, term uint64) error {
	if p.Fence != f.fence || p.Fence.Term != term && p.Fence != (Fence{}) {
		return fmt.Errorf("meta: commit of epoch %d by recovery %s refused (recovery %s is recorded, the entry is of term %d): %w", p.Epoch, p.Fence, f.fence, term, ErrStaleRecovery)
	}
	return nil
}
