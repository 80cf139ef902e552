package planner

import (
	"fmt"
	"strings"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/latency"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// streamdbCatalogSchema holds streamdb's own system relations: figures of
// the running node that PostgreSQL's catalogs have no place for.
const streamdbCatalogSchema = meta.StreamdbCatalogSchema

// streamdbCatalogOID is streamdb_catalog's namespace OID.
const streamdbCatalogOID = 13100

// Status gives the streamdb_catalog relations the running node's figures,
// which the catalog snapshot does not hold. The SQL engine implements it.
type Status interface {
	// SourceSplits returns the position of every split of every source
	// and table with a connector as of the newest committed epoch.
	SourceSplits() ([]control.SplitProgress, error)
	// BarrierLatency summarizes, over the node's life, the time from each
	// barrier's injection until its epoch was committed.
	BarrierLatency() latency.Summary
	// StateTables returns the entries of every operator state table of
	// every relation as of the newest committed epoch.
	StateTables() ([]control.StateTableEntries, error)
	// RescaleJobs returns the latest rescale of each job (ALTER ... SET
	// PARALLELISM) since the node started, running or finished.
	RescaleJobs() []control.RescaleProgress
	// Fragments returns the actors of every running job's fragments.
	Fragments() []control.FragmentActor
	// Nodes returns the cluster's nodes as this node sees them.
	Nodes() []NodeStatus
	// RemoteReads counts what this node's reads received from other
	// nodes' stores since it started.
	RemoteReads() control.ReadStats
	// Durable returns the last durable checkpoint in shared storage (nil:
	// the node has no shared storage).
	Durable() *control.DurableStatus
	// Activity returns the node's client sessions (pg_stat_activity).
	Activity() []Activity
	// Settings returns the session's settings (pg_settings).
	Settings() []Setting
	// Cursors returns the session's open cursors (pg_cursors).
	Cursors() []Cursor
	// TableBytes returns the bytes this node's store holds of the
	// storage table id (a relation's rows or an operator's state).
	TableBytes(id uint32) (uint64, error)
}

// Setting is one run-time parameter of the session, as pg_settings shows
// it.
type Setting struct {
	Name, Value, Description string
	// Boot is its built-in default, Reset the value RESET restores (the
	// one the client connected with).
	Boot, Reset string
}

// NodeStatus is a node of the cluster as the node asked sees it.
type NodeStatus struct {
	ID, PgAddr, ClusterAddr string
	// Role is leader, voter, non-voter or joining; State up or down.
	Role, State string
	Cores       int
	// Actors and VNodes count the actors it runs and the key groups they
	// own, over every job.
	Actors, VNodes int
	LastHeartbeat  time.Time
	Version        string
}

// streamdbCatalogTables are the relations of streamdb_catalog.
var streamdbCatalogTables = map[string]*sysTable{
	"source_splits": {
		cols: sysCols("source text", "split int4", "offset int8", "done bool"),
		status: func(s Status) ([][]types.Datum, error) {
			splits, err := s.SourceSplits()
			if err != nil {
				return nil, err
			}
			rows := make([][]types.Datum, len(splits))
			for i, sp := range splits {
				rows[i] = []types.Datum{dStr(sp.Source), dInt(int64(sp.Split)), dInt(sp.Offset), dBool(sp.Done)}
			}
			return rows, nil
		},
	},
	"state_tables": {
		cols: sysCols("relation text", "state_table int8", "entries int8"),
		status: func(s Status) ([][]types.Datum, error) {
			tables, err := s.StateTables()
			if err != nil {
				return nil, err
			}
			rows := make([][]types.Datum, len(tables))
			for i, t := range tables {
				rows[i] = []types.Datum{dStr(t.Relation), dInt(int64(t.Table)), dInt(t.Entries)}
			}
			return rows, nil
		},
	},
	"rescale_jobs": {
		cols: sysCols("job_id int8", "name text", "strategy text", "phase text", "from_parallelism int4", "to_parallelism int4",
			"vnodes_moved int4", "vnodes_total int4", "steps_done int4", "steps_total int4", "bytes_moved int8", "cache_bytes_moved int8", "elapsed_ms int8", "error text",
			"moves text", "move_ms int8", "mb_per_s float8"),
		status: func(s Status) ([][]types.Datum, error) {
			jobs := s.RescaleJobs()
			rows := make([][]types.Datum, len(jobs))
			for i, j := range jobs {
				errText := types.Null
				if j.Error != "" {
					errText = dStr(j.Error)
				}
				rows[i] = []types.Datum{dInt(int64(j.Job)), dStr(j.Name), dStr(j.Strategy), dStr(j.Phase), dInt(int64(j.From)), dInt(int64(j.To)),
					dInt(int64(j.VNodesMoved)), dInt(int64(j.VNodesTotal)), dInt(int64(j.StepsDone)), dInt(int64(j.StepsTotal)),
					dInt(j.BytesMoved), dInt(j.CacheBytesMoved), dInt(j.Elapsed.Milliseconds()), errText,
					dStr(movesText(j.Moves)), dInt(j.MoveTime.Milliseconds()), moveRate(j)}
			}
			return rows, nil
		},
	},
	"fragments": {
		cols: sysCols("job_id int8", "name text", "fragment_id int4", "parallelism int4", "actor int4", "vnodes int4", "node text"),
		status: func(s Status) ([][]types.Datum, error) {
			actors := s.Fragments()
			rows := make([][]types.Datum, len(actors))
			for i, a := range actors {
				rows[i] = []types.Datum{dInt(int64(a.Job)), dStr(a.Name), dInt(int64(a.Fragment)), dInt(int64(a.Parallelism)), dInt(int64(a.Actor)), dInt(int64(a.VNodes)), dStr(a.Node)}
			}
			return rows, nil
		},
	},
	"nodes": {
		cols: sysCols("id text", "pg_addr text", "cluster_addr text", "role text", "state text", "cores int4", "actors int4", "vnodes int4",
			"last_heartbeat timestamptz", "version text"),
		status: func(s Status) ([][]types.Datum, error) {
			nodes := s.Nodes()
			rows := make([][]types.Datum, len(nodes))
			for i, n := range nodes {
				hb := types.Null
				if !n.LastHeartbeat.IsZero() {
					hb = types.NewTimestampTZ(types.TimestampFromTime(n.LastHeartbeat))
				}
				rows[i] = []types.Datum{dStr(n.ID), dStr(n.PgAddr), dStr(n.ClusterAddr), dStr(n.Role), dStr(n.State), dInt(int64(n.Cores)),
					dInt(int64(n.Actors)), dInt(int64(n.VNodes)), hb, dStr(n.Version)}
			}
			return rows, nil
		},
	},
	"remote_reads": {
		cols: sysCols("scans int8", "frames int8", "bytes int8"),
		status: func(s Status) ([][]types.Datum, error) {
			r := s.RemoteReads()
			return [][]types.Datum{{dInt(r.Scans), dInt(r.Frames), dInt(r.Bytes)}}, nil
		},
	},
	"durable_checkpoint": {
		cols: sysCols("epoch int8", "base_epoch int8", "files int4", "base_bytes int8", "delta_bytes int8", "recorded_at timestamptz", "restoring_after_loss_of text"),
		status: func(s Status) ([][]types.Datum, error) {
			d := s.Durable()
			if d == nil {
				return nil, nil
			}
			at, restoring := types.Null, types.Null
			if d.Epoch > 0 {
				at = types.NewTimestampTZ(types.TimestampFromTime(d.At))
			}
			if d.Restoring != "" {
				restoring = dStr(d.Restoring)
			}
			return [][]types.Datum{{dInt(int64(d.Epoch)), dInt(int64(d.BaseEpoch)), dInt(int64(d.Files)), dInt(d.BaseBytes), dInt(d.DeltaBytes), at, restoring}}, nil
		},
	},
	"barrier_latency": {
		cols: sysCols("barriers int8", "p50_ms float8", "p99_ms float8", "max_ms float8"),
		status: func(s Status) ([][]types.Datum, error) {
			l := s.BarrierLatency()
			return [][]types.Datum{{dInt(l.Count), dMillis(l.P50), dMillis(l.P99), dMillis(l.Max)}}, nil
		},
	},
}

// dMillis is a duration in (fractional) milliseconds.
func dMillis(d time.Duration) types.Datum {
	return types.NewFloat(float64(d) / float64(time.Millisecond))
}

// statusRows computes the rows of a relation of the running node's state
// (streamdb_catalog's, pg_stat_activity); it needs
// the node's Status, which only statements run by a session have.
func (b *Binder) statusRows(t *sysTable, name string) ([][]types.Datum, error) {
	if b.status == nil {
		schema := pgCatalogSchema
		if streamdbCatalogTables[name] == t {
			schema = streamdbCatalogSchema
		}
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "%s.%s reports the running node's state and cannot be used in a view", schema, name).
			WithHint("Query it directly (SELECT ... FROM %s.%s).", schema, name)
	}
	b.readsStatus = true
	return t.status(b.status)
}

// SetStatus lets the binder read the streamdb_catalog relations from s.
func (b *Binder) SetStatus(s Status) { b.status = s }

// ReadsStatus reports whether the bound statement reads streamdb_catalog
// relations: their rows are computed when binding, so it must be bound
// again for each execution.
func (b *Binder) ReadsStatus() bool { return b.readsStatus }

// ReadsReplicated reports whether the bound statement reads a relation or
// the catalog (pg_catalog, information_schema): state that a node cut off
// from the Raft majority may have stale, unlike the streamdb_catalog
// figures of the node itself.
func (b *Binder) ReadsReplicated() bool { return b.readsReplicated }

// movesText renders what a rescale moved between nodes: "n1->n2 12
// vnodes 3.1 MB" per pair of nodes, comma-separated ("" on one node).
func movesText(moves []control.MoveProgress) string {
	parts := make([]string, len(moves))
	for i, m := range moves {
		parts[i] = fmt.Sprintf("%s->%s %d vnodes %.1f MB", m.From, m.To, m.VNodes, float64(m.Bytes)/1e6)
	}
	return strings.Join(parts, ", ")
}

// moveRate is the rate a rescale moved state between nodes at, in MB/s
// of the time spent moving it (NULL if it moved none).
func moveRate(p control.RescaleProgress) types.Datum {
	var bytes int64
	for _, m := range p.Moves {
		bytes += m.Bytes
	}
	if bytes == 0 || p.MoveTime <= 0 {
		return types.Null
	}
	return types.NewFloat(float64(bytes) / 1e6 / p.MoveTime.Seconds())
}
