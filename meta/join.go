package meta

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/raft"
	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/pgerror"
)

// MaxClockSkew is the largest difference between a joining node's clock
// and the leader's that is accepted: barrier times (now(), temporal
// filters, watermarks) come from the leader's clock, and a node far off
// would see time jump when it takes over.
const MaxClockSkew = 500 * time.Millisecond

// joinRequest asks the leader to add a node to the cluster.
type joinRequest struct {
	Node Node `json:"node"`
	// ClusterID is the cluster the node's data directory belongs to, ""
	// for a new node.
	ClusterID string    `json:"cluster_id,omitempty"`
	Now       time.Time `json:"now"`
}

// joinResponse is what the node joined.
type joinResponse struct {
	ClusterID string `json:"cluster_id"`
	Voter     bool   `json:"voter"`
	Leader    string `json:"leader"`
}

// joinCluster asks the members at Config.Join to add this node, trying
// each until one answers (a member forwards to the leader), and stores
// the cluster's id. A node with state rejoins as itself: its record is
// updated (a new address); if no member answers it goes on with what it
// has, and Raft reconnects once the others are up.
func (m *Meta) joinCluster(existing bool, stored string) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	req := &joinRequest{Node: *m.self(false), ClusterID: stored}
	var errs []error
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		for _, addr := range m.cfg.Join {
			req.Now = time.Now()
			resp, err := cluster.Call[joinResponse](ctx, m.client, addr, methodJoin, req)
			if err == nil {
				if stored != "" && resp.ClusterID != stored {
					return fmt.Errorf("meta: this data directory belongs to cluster %s, but %s is a member of cluster %s: join with a fresh --data-dir, or point --join at the cluster this one came from", stored, addr, resp.ClusterID)
				}
				role := "non-voter"
				if resp.Voter {
					role = "voter"
				}
				m.cfg.Logger.Info("joined cluster", "cluster", resp.ClusterID, "via", addr, "leader", resp.Leader, "node", m.id, "role", role)
				if stored == "" {
					return writeClusterID(m.cfg.Dir, resp.ClusterID)
				}
				return nil
			}
			if refused(err) {
				// The cluster refused: retrying will not help.
				return fmt.Errorf("meta: joining through %s: %w", addr, err)
			}
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
		}
		if sleepCtx(ctx, wait) != nil {
			break
		}
	}
	err := fmt.Errorf("meta: no member of the cluster at %s answered within %s (%w): start one of them first, or check --join and the network", strings.Join(m.cfg.Join, ", "), startTimeout, errors.Join(lastOf(errs, len(m.cfg.Join))...))
	if existing {
		m.cfg.Logger.Warn("could not reach the cluster to rejoin; going on with the stored membership", "err", err)
		return nil
	}
	return err
}

// refused reports whether the cluster answered a join with a refusal, as
// opposed to not answering.
func refused(err error) bool {
	var pe *pgerror.Error
	return errors.As(err, &pe) && pe.Code != codeNotLeader
}

// lastOf returns the last n errors.
func lastOf(errs []error, n int) []error {
	return errs[max(0, len(errs)-n):]
}

// handleJoin adds a node on the leader (forwarding there from a
// follower): it checks the node's cluster, id and clock, records it in
// the catalog, then adds it to the Raft group as a voter while there are
// fewer than the cluster's voter count, else as a non-voter.
func (m *Meta) handleJoin(ctx context.Context, req *joinRequest) (*joinResponse, error) {
	v, err := m.onLeader(ctx, func(ctx context.Context) (any, error) {
		return m.join(ctx, req)
	}, func(ctx context.Context, leader string) (any, error) {
		return cluster.Call[joinResponse](ctx, m.client, leader, methodJoin, req)
	})
	if err != nil {
		return nil, err
	}
	return v.(*joinResponse), nil
}

func (m *Meta) join(ctx context.Context, req *joinRequest) (*joinResponse, error) {
	cat := m.Catalog()
	n := req.Node
	if skew := time.Since(req.Now).Abs(); skew > MaxClockSkew {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "the clock of node %s differs from the leader's by %s (at most %s is allowed)", n.ID, skew.Round(time.Millisecond), MaxClockSkew).
			WithHint("Synchronize the machines' clocks (NTP), then start the node again.")
	}
	if req.ClusterID != "" && req.ClusterID != cat.ClusterID() {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "node %s has the data of cluster %s, and this is cluster %s", n.ID, req.ClusterID, cat.ClusterID()).
			WithHint("Start it with a fresh --data-dir to join this cluster.")
	}
	old, known := cat.Node(n.ID)
	if known && req.ClusterID == "" && old.ClusterAddr != n.ClusterAddr {
		return nil, pgerror.New(pgerror.CodeDuplicateObject, "node id %q is already used by the node at %s", n.ID, old.ClusterAddr).
			WithHint("Start the new node with another --node-id, or remove %s first (ALTER SYSTEM REMOVE NODE '%s').", n.ID, n.ID)
	}
	servers, err := m.servers()
	if err != nil {
		return nil, err
	}
	n.Voter = known && old.Voter
	if !known {
		voters := 0
		for _, s := range servers {
			if s.Suffrage == raft.Voter {
				voters++
			}
		}
		n.Voter = voters < cat.Voters()
	}
	if _, err := m.apply(ctx, opPutNode, putNodeCmd{Node: &n}); err != nil {
		return nil, err
	}
	if err := m.addServer(n); err != nil {
		return nil, err
	}
	return &joinResponse{ClusterID: cat.ClusterID(), Voter: n.Voter, Leader: string(m.id)}, nil
}

// servers returns the Raft group's configuration.
func (m *Meta) servers() ([]raft.Server, error) {
	f := m.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, fmt.Errorf("meta: read raft configuration: %w", err)
	}
	return f.Configuration().Servers, nil
}

// addServer adds n to the Raft group (or updates its address) with its
// suffrage.
func (m *Meta) addServer(n Node) error {
	add := m.raft.AddNonvoter
	if n.Voter {
		add = m.raft.AddVoter
	}
	if err := add(raft.ServerID(n.ID), raft.ServerAddress(n.ClusterAddr), 0, startTimeout).Error(); err != nil {
		return fmt.Errorf("meta: add node %s to the Raft group: %w", n.ID, err)
	}
	return nil
}

// clusterIDFile holds, in the data directory, the id of the cluster the
// node belongs to.
const clusterIDFile = "cluster_id"

func readClusterID(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, clusterIDFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("meta: read the cluster id: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func writeClusterID(dir, id string) error {
	if err := os.WriteFile(filepath.Join(dir, clusterIDFile), []byte(id+"\n"), 0o644); err != nil {
		return fmt.Errorf("meta: store the cluster id: %w", err)
	}
	return nil
}

// newClusterID returns a random cluster id.
func newClusterID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
