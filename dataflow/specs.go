package dataflow

import (
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// The operator specs of streaming plans. Column numbers refer to the
// operator's input row (for joins: the left input's columns, then the
// right's). Every stream has a stream key: columns that identify a row
// among the live rows, so that a Delete or UpdateDelete names exactly one
// earlier Insert. State tables are identified by catalog-allocated ids;
// their keys start with the vnode of the operator's distribution key.

// FilterSpec keeps rows for which Cond is true.
type FilterSpec struct{ Cond expr.Expr }

// ProjectSpec computes Exprs over each row. Update pairs stay pairs (an
// UpdateDelete/UpdateInsert pair whose projections are equal is dropped).
type ProjectSpec struct{ Exprs []expr.Expr }

// HashAggSpec groups by GroupKey and maintains Aggs under inserts and
// retractions. Output rows: the group key columns, then one column per
// aggregate. A group appears (Insert) with its first row and disappears
// (Delete) when its row count drops to zero, except for the global
// aggregation (no group key), which always has exactly one row, as a
// PostgreSQL query over an empty table does. Changed groups are emitted at
// each barrier as UpdateDelete/UpdateInsert pairs.
type HashAggSpec struct {
	GroupKey []int
	// Aggs' argument expressions are evaluated over the input row.
	Aggs       []*expr.AggFunc
	InputTypes []types.T
	// StateTable holds one row per group: its row count and each
	// aggregate's running state.
	StateTable uint32
	// MultisetTable holds, per group, the values of aggregates that a
	// retraction cannot undo without them (min, max, string_agg, and
	// DISTINCT arguments), as (group, agg index, value) -> count. Unused
	// (0) when the input is append-only and no DISTINCT is present.
	MultisetTable uint32
	// AppendOnly input: no retractions arrive.
	AppendOnly bool
	// WindowKey is set when GroupKey[0] is a column whose watermarks close
	// groups (a window start): a watermark deletes the state of the groups
	// below it, whose output rows stay; rows arriving later for them are
	// ignored. The watermark passes on as output column 0's.
	WindowKey bool
	// EmitOnWindowClose (with WindowKey) emits each group's row once, as
	// an insert, when a watermark closes it, and nothing before.
	EmitOnWindowClose bool
	// EmptySets are the numbers of the grouping sets without columns,
	// the last GroupKey column being an Expand's set number: the group of
	// each (its other key columns NULL) always has a row, as the global
	// aggregation's does, kept by the actor that owns its vnode.
	EmptySets []int
	// Weighted: input column Weight holds each row's multiplicity (a
	// ConsolidateSpec's output), and the row counts as that many copies.
	// Only counts, and min and max over append-only input, take weighted
	// input.
	Weighted bool
	Weight   int
	// Rising marks the aggregates (by index in Aggs) that are a max whose
	// argument only rises within a group: a retraction comes just before
	// the insert of its update, of a value not below it, in the same group
	// (a count of append-only rows, updated). Such a max keeps its value
	// alone and ignores retractions, instead of every value seen.
	Rising []bool
}

// HashJoinSpec joins its two inputs (input 0 left, input 1 right) on
// LeftKey = RightKey (NULL keys never match), with an optional residual
// Cond over the concatenated row. Output: left columns then right columns,
// NULL-padded for outer joins; a padded row is retracted when its first
// match appears and re-emitted when its last match goes.
type HashJoinSpec struct {
	// Kind exec.Semi or exec.Anti emits left rows only: a left row while
	// it has a matching right row (Semi), or while it has none (Anti, and
	// always for a NULL in its join key).
	Kind                          exec.JoinKind
	LeftKey, RightKey             []int
	Cond                          expr.Expr
	LeftTypes, RightTypes         []types.T
	LeftStreamKey, RightStreamKey []int
	// LeftTable and RightTable hold each side's rows keyed by (join key,
	// stream key), with the row's match count (degree) for outer sides
	// (the left side of a semi or anti join is one).
	LeftTable, RightTable uint32
	// WindowKey is set when both sides' first join key columns carry
	// watermarks: the lower of the two closes join keys below it, whose
	// rows can match no later row; their state is deleted and rows arriving
	// later for them are ignored. The output key columns get it as their
	// watermark (the right one only for an inner join).
	WindowKey bool
	// Interval holds, per side (left, right), what the condition's
	// inequalities between the sides' time columns tell of it (an interval
	// join); nil if nothing.
	Interval [2]*IntervalBound
	// LeftUnread and RightUnread are columns of each side that neither the
	// condition nor any operator above reads: the side's state stores
	// NULL in their place.
	LeftUnread, RightUnread []int
	// RightPresence appends to each output row a bool column that is TRUE
	// where the right side is a row and NULL where it is padding. A full
	// join's key needs it: a left-padded and a right-padded row can agree
	// on every other key column (all NULL).
	RightPresence bool
}

// SortKey is one ordering column of a Top-N.
type SortKey = exec.SortKey

// TopNSpec keeps, per group of GroupKey (none: one global group), the rows
// ranked Offset+1 .. Offset+Limit by Order (ties broken by StreamKey), and
// emits changes to that set. Limit < 0 means no limit. WithTies ranks the
// way rank() does: a row's rank is 1 + the number of rows strictly before
// it by Order, so rows tied with a kept row are kept too. Number appends
// to each row its number in its group (an int8): its row_number(), or its
// rank() WithTies; a change that shifts the numbers of kept rows re-emits
// them as updates.
type TopNSpec struct {
	GroupKey      []int
	Order         []SortKey
	Limit, Offset int64
	WithTies      bool
	Number        bool
	InputTypes    []types.T
	StreamKey     []int
	// StateTable holds each group's rows keyed by (group, order key, stream key).
	StateTable uint32
}

// UnionSpec merges its inputs (all of the same row type) unchanged. The
// planner makes stream keys unique across inputs beforehand.
type UnionSpec struct{ Inputs int }

// MaterializeSpec writes its input into a table keyed by PK (the rows of a
// table or a materialized view, readable by SELECT) and passes the input
// through for downstream jobs.
type MaterializeSpec struct {
	TableID uint32
	PK      []int
	Types   []types.T
	// RowBlocks stores the rows, inserts only, in row blocks
	// (meta.Table.RowBlocks).
	RowBlocks bool
	// Upsert: the input is changes by primary key (a keyed source's), not
	// exact changes; the operator reads the stored row of each key and
	// emits the table's exact changes (see upsert).
	Upsert bool
}

// stateTables implement stateful: the tables each operator writes.
func (s *HashAggSpec) stateTables() []uint32  { return []uint32{s.StateTable, s.MultisetTable} }
func (s *HashJoinSpec) stateTables() []uint32 { return []uint32{s.LeftTable, s.RightTable} }
func (s *TemporalJoinSpec) stateTables() []uint32 {
	return []uint32{s.RightTable, s.MemoTable, s.HoldTable}
}
func (s *TopNSpec) stateTables() []uint32           { return []uint32{s.StateTable} }
func (s *SetOpSpec) stateTables() []uint32          { return []uint32{s.StateTable} }
func (s *MaterializeSpec) stateTables() []uint32    { return []uint32{s.TableID} }
func (s *TemporalFilterSpec) stateTables() []uint32 { return []uint32{s.StateTable} }
func (s *WatermarkFilterSpec) stateTables() []uint32 {
	return []uint32{s.StateTable}
}
func (s *EowcSortSpec) stateTables() []uint32  { return []uint32{s.StateTable} }
func (s *SourceSpec) stateTables() []uint32    { return []uint32{s.StateTable} }
func (s *ChangelogSpec) stateTables() []uint32 { return []uint32{s.TableID} }
