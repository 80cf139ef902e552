package meta

import (
	"cmp"
	"maps"
	"slices"

	"github.com/streamdb/streamdb/pgerror"
)

// Node is a member of the cluster as the catalog records it (DESIGN.md
// §7b, §9): every node runs the same roles; the first few are voters of
// the Raft group, the rest non-voters.
type Node struct {
	ID string `json:"id"`
	// ClusterAddr is where other nodes reach it: gRPC and Raft share it.
	ClusterAddr string `json:"cluster_addr"`
	// PgAddr is where PostgreSQL clients connect.
	PgAddr string `json:"pg_addr"`
	Cores  int    `json:"cores"`
	// Voter marks a voting member of the Raft group.
	Voter bool `json:"voter"`
	// Version is the node's streamdb release when it last (re)joined.
	Version string `json:"version"`
}

// DefaultVoters is how many nodes are Raft voters unless the cluster was
// started with another count: three tolerate one failure.
const DefaultVoters = 3

// ClusterID returns the id the cluster was created with ("" before the
// first node initialized it).
func (c *Catalog) ClusterID() string { return c.clusterID }

// Origin returns the id of the node that created the cluster: jobs
// recorded without a placement (created before placement was recorded)
// run there.
func (c *Catalog) Origin() string { return c.origin }

// Voters returns how many nodes are to be Raft voters.
func (c *Catalog) Voters() int { return cmp.Or(c.voters, DefaultVoters) }

// Nodes returns the cluster's nodes sorted by id.
func (c *Catalog) Nodes() []*Node {
	out := slices.Collect(maps.Values(c.nodes))
	slices.SortFunc(out, func(a, b *Node) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Node returns the node with the given id.
func (c *Catalog) Node(id string) (*Node, bool) {
	n, ok := c.nodes[id]
	return n, ok
}

// initCluster records the cluster's id, voter count and first node, once.
func (c *Catalog) initCluster(id string, voters int, origin string) (*Catalog, error) {
	if c.clusterID != "" {
		if c.clusterID == id {
			return c, nil
		}
		return nil, pgerror.New(pgerror.CodeInternal, "cluster already initialized as %s", c.clusterID)
	}
	nc := c.clone()
	nc.clusterID, nc.voters, nc.origin = id, voters, origin
	return nc.seal(), nil
}

// putNode adds a node or updates its record (a restart on another
// address, a promotion to voter).
func (c *Catalog) putNode(n *Node) *Catalog {
	nc := c.clone()
	nc.nodes = maps.Clone(c.nodes)
	if nc.nodes == nil {
		nc.nodes = map[string]*Node{}
	}
	nc.nodes[n.ID] = n
	return nc.seal()
}

// removeNode forgets a node.
func (c *Catalog) removeNode(id string) (*Catalog, error) {
	if _, ok := c.nodes[id]; !ok {
		return nil, pgerror.New(pgerror.CodeUndefinedObject, "node %q does not exist", id)
	}
	nc := c.clone()
	nc.nodes = maps.Clone(c.nodes)
	delete(nc.nodes, id)
	// Rescales the node ran end with it: the jobs stay with the owners
	// of their last committed steps, and other nodes may rescale them.
	for _, t := range c.ordered {
		if t.Rescale != nil && t.Rescale.Runner == id {
			nt := *t
			nt.Rescale = nil
			nc.put(&nt)
		}
	}
	return nc.seal(), nil
}
