package meta

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/pgerror"
)

// Sync makes this node's reads linearizable: a statement that starts after
// a catalog change or an epoch commit was acknowledged anywhere in the
// cluster sees it. On the leader that holds already (its FSM applied every
// entry it acknowledged, and its lease, shorter than the followers'
// election timeout, ends before another leader can be elected) once an
// entry of its own term is applied. A follower asks the leader for its
// applied index (the read index of the Raft thesis, 6.4) and waits until it
// has applied as far. Concurrent callers share one request, sent after
// they all called.
//
// With no leader answering within syncTimeout, Sync returns ErrNoQuorum
// at once: reads may go on from this node's catalog and its last committed
// epoch (possibly stale), writes and DDL are refused.
func (m *Meta) Sync(ctx context.Context) error {
	if m.raft.State() == raft.Leader {
		if err := m.Barrier(ctx); err != nil {
			return cmp.Or(ctx.Err(), ErrNoQuorum)
		}
		return nil
	}
	index, ok := m.readIndex.get(ctx, m.fetchReadIndex)
	if !ok {
		return cmp.Or(ctx.Err(), ErrNoQuorum)
	}
	return m.WaitApplied(ctx, index)
}

// ErrNoQuorum is Sync's error when no leader answers: this node is cut off
// from a majority of the voters (or they are down).
var ErrNoQuorum error = pgerror.New(pgerror.CodeCannotConnectNow, "this node cannot reach a majority of the cluster's voters: writes and DDL are refused until it can").
	WithHint("Reads here may be stale. Connect to a node that reaches the Raft leader (SHOW NODES there), or restore the network between the nodes.")

// syncTimeout bounds a follower's wait for the leader's read index: long
// enough for an election (heartbeatTimeout), short enough that reads go on
// while there is no quorum.
const syncTimeout = time.Second

// Barrier waits, on the leader, until an entry of its term is applied:
// then every entry an earlier leader committed is applied here too (its
// committed epoch, for one). It is done once per term; it fails when this
// node does not lead or the entry does not commit within syncTimeout.
func (m *Meta) Barrier(ctx context.Context) error {
	term := m.raft.CurrentTerm()
	if m.readyTerm.Load() == term {
		return nil
	}
	timeout := syncTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	if err := m.raft.Barrier(timeout).Error(); err != nil {
		return fmt.Errorf("meta: no entry of term %d applied: %w", term, err)
	}
	m.readyTerm.Store(term)
	return nil
}

// readIndexRequest and readIndexResponse ask the leader for its applied
// index.
type readIndexRequest struct{}

type readIndexResponse struct {
	Index uint64 `json:"index"`
}

// serveReadIndex answers a follower's read index request on the leader.
func (m *Meta) serveReadIndex(ctx context.Context, _ *readIndexRequest) (*readIndexResponse, error) {
	if m.raft.State() != raft.Leader {
		return nil, errNotLeaderStatus()
	}
	if err := m.Barrier(ctx); err != nil {
		return nil, errNotLeaderStatus()
	}
	return &readIndexResponse{Index: m.AppliedIndex()}, nil
}

// fetchReadIndex asks the leader for its read index, following
// leadership as it moves; ok is false when no leader answered within
// syncTimeout.
func (m *Meta) fetchReadIndex() (uint64, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), syncTimeout)
	defer cancel()
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if leader := m.LeaderAddr(); leader != "" {
			resp, err := cluster.Call[readIndexResponse](ctx, m.client, leader, methodReadIndex, &readIndexRequest{})
			if err == nil {
				return resp.Index, true
			}
		}
		if sleepCtx(ctx, wait) != nil {
			return 0, false
		}
	}
}

// readIndexBatch shares read index requests between concurrent callers: a
// caller joins the next round, which starts after the running one ends, so
// that every round's request is sent after its callers called.
type readIndexBatch struct {
	mu      sync.Mutex
	next    *readIndexRound
	running bool
}

type readIndexRound struct {
	done  chan struct{}
	index uint64
	ok    bool
}

// get returns the read index of a round sent after the call, or ok false
// when there is none (see fetchReadIndex) or ctx ended first.
func (b *readIndexBatch) get(ctx context.Context, fetch func() (uint64, bool)) (uint64, bool) {
	b.mu.Lock()
	if b.next == nil {
		b.next = &readIndexRound{done: make(chan struct{})}
	}
	r := b.next
	if !b.running {
		b.running = true
		go b.run(fetch)
	}
	b.mu.Unlock()
	select {
	case <-r.done:
		return r.index, r.ok
	case <-ctx.Done():
		return 0, false
	}
}

// run sends rounds while callers wait for one.
func (b *readIndexBatch) run(fetch func() (uint64, bool)) {
	for {
		b.mu.Lock()
		r := b.next
		b.next = nil
		if r == nil {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		r.index, r.ok = fetch()
		close(r.done)
	}
}
