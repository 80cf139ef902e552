package sql

import (
	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/latency"
	"github.com/streamdb/streamdb/planner"
)

// SourceSplits implements planner.Status: the offset of every split of
// every source and table with a connector at the newest committed epoch.
func (e *Engine) SourceSplits() ([]control.SplitProgress, error) {
	return e.reader.SourceSplits(e.ReadEpoch())
}

// StateTables implements planner.Status: it counts the keys of each
// relation's state tables at the newest committed epoch, a scan of each.
func (e *Engine) StateTables() ([]control.StateTableEntries, error) {
	return e.reader.StateTables(e.ReadEpoch())
}

// RemoteReads implements planner.Status: what the node's reader received
// from other nodes.
func (e *Engine) RemoteReads() control.ReadStats { return e.reader.Stats() }

// Durable implements planner.Status.
func (e *Engine) Durable() *control.DurableStatus { return e.stream.Durable() }

// BarrierLatency implements planner.Status.
func (e *Engine) BarrierLatency() latency.Summary { return e.stream.BarrierLatency() }

// RescaleJobs implements planner.Status: the latest rescale of each job
// since the node started.
func (e *Engine) RescaleJobs() []control.RescaleProgress { return e.stream.RescaleJobs() }

// Fragments implements planner.Status: the actors of every running job.
func (e *Engine) Fragments() []control.FragmentActor { return e.stream.Fragments() }

// Nodes implements planner.Status: the cluster's nodes as this node sees
// them, with the actor slots and key groups of the jobs placed on each.
func (e *Engine) Nodes() []planner.NodeStatus {
	var out []planner.NodeStatus
	loads := control.NodeLoads(e.Meta.Catalog())
	for _, m := range e.Meta.Members() {
		load := loads[m.ID]
		ns := planner.NodeStatus{ID: m.ID, PgAddr: m.PgAddr, ClusterAddr: m.ClusterAddr, Role: m.Role, State: "down",
			Cores: m.Cores, Actors: load.Actors, VNodes: load.VNodes, LastHeartbeat: m.LastHeartbeat, Version: m.Version}
		if m.Up {
			ns.State = "up"
		}
		out = append(out, ns)
	}
	return out
}

// TableBytes implements planner.Status.
func (e *Engine) TableBytes(id uint32) (uint64, error) { return e.reader.TableBytes(id) }
