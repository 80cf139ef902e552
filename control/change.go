package control

import (
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
)

// Kinds of Change.
const (
	changeNone       = ""
	changeStartTable = "start_table"
	changeStartJob   = "start_job"
	changeStopJob    = "stop_job"
	changeReassign   = "reassign"
	changePause      = "pause"
	changeResume     = "resume"
	changeDrop       = "drop"
	// changeRelocate never reaches the workers: the leader commits its
	// step with a plain barrier, then recovers (Controller.Relocate).
	changeRelocate = "relocate"
)

// Change is what a barrier changes in the streaming graph, as the
// controller sends it to every node: each node builds its own part (the
// actors placed on it and its ends of the queues between nodes) from it
// and the catalog, the same way.
type Change struct {
	Kind string `json:"kind,omitempty"`
	Job  uint32 `json:"job,omitempty"`
	// Def is the relation whose job starts, as the catalog records it (a
	// view being created: as it will record it).
	Def *meta.Table `json:"def,omitempty"`
	// Owner maps each vnode of the job's parallel fragments to an actor
	// slot; Nodes each slot to its node.
	Owner []int    `json:"owner,omitempty"`
	Nodes []string `json:"nodes,omitempty"`
	// Backfill: a new job reads its inputs' current contents first.
	Backfill bool `json:"backfill,omitempty"`
	// Expect is a reassignment's precondition: the job's vnode owners
	// before it (another rescale that moved them since fails it).
	Expect []int `json:"expect,omitempty"`
	// Replace and Cache tune a reassignment (dataflow.ReassignOptions).
	Replace bool   `json:"replace,omitempty"`
	Cache   string `json:"cache,omitempty"`
	// Restore, on a job's restart, is the durable checkpoint whose state
	// each node restores first of what it holds of the job (0: none).
	Restore uint64 `json:"restore,omitempty"`
	// Drop lists the tables whose state every node deletes (a dropped
	// relation's, once the epoch that stopped its job is committed).
	Drop []uint32 `json:"drop,omitempty"`
	// Relocate are the steps of a relocation (changeRelocate): jobs'
	// placements with their first actor on another node.
	Relocate []*meta.RescaleStep `json:"relocate,omitempty"`
	// CatalogIndex is, for a job's or table's start, the leader's
	// applied Raft index when it sent the change: a node builds jobs once
	// its catalog is as recent (a job's definition names relations
	// created a moment before).
	CatalogIndex uint64 `json:"catalog_index,omitempty"`
}

// Builder turns relations' catalog records into what the runtime runs
// where that takes planning; the planner provides it.
type Builder interface {
	// TableRef describes a table fed by DML, a source or a table with a
	// connector to the runtime.
	TableRef(t *meta.Table) (*dataflow.TableRef, error)
	// ViewGraph returns the job graph of a materialized view.
	ViewGraph(t *meta.Table) (*dataflow.GraphSpec, error)
}

// cacheModes name dataflow's cache modes in Change.Cache.
var cacheModes = map[string]dataflow.CacheMode{
	CacheHandover: dataflow.CacheHandover,
	CacheEager:    dataflow.CacheEager,
	CacheLazy:     dataflow.CacheLazy,
}
