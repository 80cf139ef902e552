package node

import (
	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dashboard"
	"github.com/streamdb/streamdb/meta"
)

// dashSource gives the dashboard the node's view of its cluster: the
// nodes as streamdb_catalog.nodes shows them, jobs and vnode owners from
// the catalog, fragments, edges, rescales and figures from the streaming
// runtime.
type dashSource struct {
	*control.Streaming
	n *Node
}

// Nodes implements dashboard.Source.
func (s dashSource) Nodes() []dashboard.Node {
	var out []dashboard.Node
	for _, ns := range s.n.engine.Nodes() {
		out = append(out, dashboard.Node{ID: ns.ID, PgAddr: ns.PgAddr, ClusterAddr: ns.ClusterAddr, Role: ns.Role, State: ns.State,
			Cores: ns.Cores, Actors: ns.Actors, VNodes: ns.VNodes, LastHeartbeat: ns.LastHeartbeat, Version: ns.Version})
	}
	return out
}

// Jobs implements dashboard.Source: the catalog's relations that run a
// job, with their actor count.
func (s dashSource) Jobs() []dashboard.Job {
	var out []dashboard.Job
	for _, t := range s.n.meta.Catalog().Tables() {
		if t.Kind == meta.KindTable || t.Kind == meta.KindSource || t.Kind.Planned() {
			out = append(out, dashboard.Job{ID: t.ID, Name: t.Name, Kind: t.Kind.String(), Parallelism: meta.Slots(control.JobAssignment(t))})
		}
	}
	return out
}

// VNodeOwners implements dashboard.Source.
func (s dashSource) VNodeOwners(job uint32) ([]int, []string, bool) {
	cat := s.n.meta.Catalog()
	t, ok := cat.TableByID(job)
	if !ok {
		return nil, nil, false
	}
	owner, nodes := control.VNodeOwners(cat, t)
	return owner, nodes, true
}
