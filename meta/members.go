package meta

import (
	"context"
	"sync"
	"time"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/pgerror"
)

// Liveness timing: every node pings every other once per pingInterval; a
// node not heard from for downAfter is down.
const (
	pingInterval = time.Second
	downAfter    = 3 * pingInterval
)

// liveness records when each other node was last heard from.
type liveness struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func newLiveness() *liveness { return &liveness{last: map[string]time.Time{}} }

func (l *liveness) heard(id string) {
	l.mu.Lock()
	l.last[id] = time.Now()
	l.mu.Unlock()
}

func (l *liveness) lastHeard(id string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last[id]
}

// run pings the catalog's other nodes until ctx ends.
func (l *liveness) run(ctx context.Context, m *Meta) {
	t := time.NewTicker(pingInterval)
	defer t.Stop()
	for {
		for _, n := range m.Catalog().Nodes() {
			if n.ID == string(m.id) {
				continue
			}
			go func() {
				if m.ping(ctx, n) {
					l.heard(n.ID)
				}
			}()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ping reports whether node n answers, as itself, within pingInterval.
func (m *Meta) ping(ctx context.Context, n *Node) bool {
	ctx, cancel := context.WithTimeout(ctx, pingInterval)
	defer cancel()
	r, err := cluster.Call[pingResponse](ctx, m.client, n.ClusterAddr, methodPing, &pingRequest{From: string(m.id)})
	return err == nil && r.ID == n.ID
}

// Answers reports whether node id answers now (within a second), asking
// it: unlike Members, it knows of a node just started or just died.
func (m *Meta) Answers(ctx context.Context, id string) bool {
	n, ok := m.Catalog().Node(id)
	return ok && m.ping(ctx, n)
}

// Member is a node with what this node knows of it now.
type Member struct {
	Node
	// Role is leader, voter or non-voter (in the Raft group), or
	// "joining" while the catalog lists it and Raft not yet.
	Role string
	// Up: answered within the last few seconds (this node is always up);
	// LastHeartbeat is when it last answered this node.
	Up            bool
	LastHeartbeat time.Time
}

// Members returns the cluster's nodes by id with their roles and liveness
// as this node sees them.
func (m *Meta) Members() []Member {
	servers, _ := m.servers()
	_, leader := m.raft.LeaderWithID()
	var out []Member
	for _, n := range m.Catalog().Nodes() {
		mb := Member{Node: *n, Role: "joining"}
		for _, s := range servers {
			if string(s.ID) != n.ID {
				continue
			}
			switch {
			case s.ID == leader:
				mb.Role = "leader"
			case s.Suffrage == raft.Voter:
				mb.Role = "voter"
			default:
				mb.Role = "non-voter"
			}
		}
		if n.ID == string(m.id) {
			mb.Up, mb.LastHeartbeat = true, time.Now()
		} else if m.live != nil {
			mb.LastHeartbeat = m.live.lastHeard(n.ID)
			mb.Up = time.Since(mb.LastHeartbeat) < downAfter
		}
		out = append(out, mb)
	}
	return out
}

// NodeID returns this node's id.
func (m *Meta) NodeID() string { return string(m.id) }

// RemoveNode removes a node from the cluster: from the catalog and the
// Raft group. A voter's place goes to a non-voter, if there is one. The
// caller checks that the node owns nothing.
func (m *Meta) RemoveNode(ctx context.Context, id string) error {
	_, err := m.onLeader(ctx, func(ctx context.Context) (any, error) {
		return nil, m.removeNodeLocal(ctx, id, opRemoveNode, removeNodeCmd{ID: id})
	}, func(ctx context.Context, leader string) (any, error) {
		return cluster.Call[removeNodeResponse](ctx, m.client, leader, methodRemove, &removeNodeRequest{ID: id})
	})
	return err
}

// removeNodeLocal removes node id on the leader, applying the catalog
// command o (opRemoveNode or opForceRemove) before the Raft group changes.
func (m *Meta) removeNodeLocal(ctx context.Context, id string, o op, payload any) error {
	if m.raft.State() != raft.Leader {
		return errNotLeaderStatus()
	}
	cat := m.Catalog()
	n, ok := cat.Node(id)
	if !ok {
		return pgerror.New(pgerror.CodeUndefinedObject, "node %q does not exist", id).WithHint("SHOW NODES lists the cluster's nodes.")
	}
	if len(cat.Nodes()) == 1 {
		return pgerror.New(pgerror.CodeObjectInUse, "node %q is the cluster's only node", id)
	}
	if _, err := m.apply(ctx, o, payload); err != nil {
		return err
	}
	if err := m.raft.RemoveServer(raft.ServerID(id), 0, startTimeout).Error(); err != nil {
		return pgerror.New(pgerror.CodeInternal, "remove node %s from the Raft group: %v", id, err)
	}
	if !n.Voter || id == string(m.id) {
		// The leader removing itself steps down; the next one promotes.
		return nil
	}
	return m.promoteVoters(ctx)
}

// promoteVoters makes non-voters voters, lowest id first, while the
// cluster has fewer voters than it wants.
func (m *Meta) promoteVoters(ctx context.Context) error {
	cat := m.Catalog()
	voters := 0
	for _, n := range cat.Nodes() {
		if n.Voter {
			voters++
		}
	}
	for _, n := range cat.Nodes() {
		if voters >= cat.Voters() {
			return nil
		}
		if n.Voter {
			continue
		}
		p := *n
		p.Voter = true
		if _, err := m.apply(ctx, opPutNode, putNodeCmd{Node: &p}); err != nil {
			return err
		}
		if err := m.addServer(p); err != nil {
			return err
		}
		voters++
	}
	return nil
}

// IsLeader reports whether this node leads the Raft group now.
func (m *Meta) IsLeader() bool { return m.raft.State() == raft.Leader }

// LeaderAddr returns the cluster address of the Raft leader, "" when none
// is known.
func (m *Meta) LeaderAddr() string {
	addr, _ := m.raft.LeaderWithID()
	return string(addr)
}

// Client returns the client this node calls other nodes with.
func (m *Meta) Client() *cluster.Client { return m.client }

// NodeAddr returns the cluster address of node id.
func (m *Meta) NodeAddr(id string) (string, error) {
	n, ok := m.Catalog().Node(id)
	if !ok {
		return "", pgerror.New(pgerror.CodeUndefinedObject, "node %q is not a member of the cluster", id)
	}
	return n.ClusterAddr, nil
}

// Term returns the Raft term this node knows: a leader's term fences what
// it asks of other nodes against a former leader's.
func (m *Meta) Term() uint64 { return m.raft.CurrentTerm() }
