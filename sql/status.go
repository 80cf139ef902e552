package sql

import (
	"github.com/streamdb/streamdb/control"
	"time"

	"github.com/streamdb/streamdb/connector"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/latency"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
)

var _ planner.Status = (*Engine)(nil)

// SourceSplits implements planner.Status: the offset of every split of
// every source and table with a connector, read from the state at the
// newest committed epoch. A split is done when it has no rows beyond its
// committed offset.
func (e *Engine) SourceSplits() ([]planner.SplitProgress, error) {
	epoch := e.ReadEpoch()
	var out []planner.SplitProgress
	for _, t := range e.Meta.Catalog().Tables() {
		if t.Kind != meta.KindSource && t.Connector() == "" {
			continue
		}
		src, err := connector.Open(connectorColumns(t), t.Options, time.Time{}, 1)
		if err != nil {
			return nil, err
		}
		for i := range src.Splits {
			sp := src.NewSplit(i)
			off, ok, err := dataflow.SplitOffset(e.reader, t.StateTables[0], i, epoch)
			if err != nil {
				return nil, err
			}
			if ok {
				sp.SetOffset(off)
			}
			out = append(out, planner.SplitProgress{Source: t.Name, Split: i, Offset: sp.Offset(), Done: sp.Done()})
		}
	}
	return out, nil
}

// StateTables implements planner.Status: it counts the keys of each
// relation's state tables at the newest committed epoch, a scan of each.
func (e *Engine) StateTables() ([]planner.StateTableEntries, error) {
	epoch := e.ReadEpoch()
	var out []planner.StateTableEntries
	for _, t := range e.Meta.Catalog().Tables() {
		for _, id := range t.StateTables {
			n := int64(0)
			err := e.reader.Scan(storage.AppendKey(nil, id, 0, nil), storage.AppendKey(nil, id+1, 0, nil), epoch,
				func(_, _ []byte) error { n++; return nil })
			if err != nil {
				return nil, err
			}
			out = append(out, planner.StateTableEntries{Relation: t.Name, Table: id, Entries: n})
		}
	}
	return out, nil
}

// RemoteReads implements planner.Status: what the node's reader received
// from other nodes.
func (e *Engine) RemoteReads() planner.RemoteReads {
	return planner.RemoteReads(e.ctrl.Reader().Stats())
}

// BarrierLatency implements planner.Status.
func (e *Engine) BarrierLatency() latency.Summary { return e.mgr.BarrierLatency() }

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
