package planner

import (
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/sql/parser"
)

// PlanView binds a materialized view's query sqlText against cat (its
// unqualified names in the schemas of searchPath) and plans
// it as the job of view viewID, emitting on window close if eowc; alloc
// hands out state table ids, in the order the plan needs them.
func PlanView(cat *meta.Catalog, sqlText string, searchPath []string, viewID uint32, eowc bool, alloc func() uint32) (*StreamPlan, Node, error) {
	return planQuery(cat, sqlText, searchPath, func(node Node) (*StreamPlan, error) {
		return PlanStream(node, viewID, rowkey.VNodes, eowc, alloc)
	})
}

// PlanLog binds the query sqlText of a subscription or a sink as PlanView
// does and plans it as the job that writes its changes into the log table
// logID for retention (PlanChangelog).
func PlanLog(cat *meta.Catalog, sqlText string, searchPath []string, logID uint32, retention time.Duration, alloc func() uint32) (*StreamPlan, Node, error) {
	return planQuery(cat, sqlText, searchPath, func(node Node) (*StreamPlan, error) {
		return PlanChangelog(node, logID, rowkey.VNodes, retention, alloc)
	})
}

// planQuery binds the job query sqlText and plans it with plan.
func planQuery(cat *meta.Catalog, sqlText string, searchPath []string, plan func(Node) (*StreamPlan, error)) (*StreamPlan, Node, error) {
	stmts, err := parser.Parse(sqlText)
	if err != nil {
		return nil, nil, err
	}
	if len(stmts) != 1 || stmts[0].AST == nil {
		return nil, nil, pgerror.New(pgerror.CodeSyntaxError, "a materialized view needs one SELECT query")
	}
	b := NewBinder(cat, nil)
	b.SetSearchPath(searchPath)
	node, err := b.BindQuery(stmts[0].AST)
	if err != nil {
		return nil, nil, err
	}
	node = OrderDisconnectedJoins(node)
	if err := CheckStorable(node.Columns()); err != nil {
		return nil, nil, err
	}
	p, err := plan(node)
	if p != nil {
		p.Functions = b.Functions()
	}
	return p, node, err
}

// TableRef describes table, source or materialized view t to the runtime:
// its rows' types and key, and the watermark filter its WATERMARK FOR
// clause declares.
func TableRef(t *meta.Table) (*dataflow.TableRef, error) {
	ref := &dataflow.TableRef{ID: t.ID, Name: t.Name, PK: t.PK, AppendOnly: t.AppendOnly, RowBlocks: t.RowBlocks, Source: t.Kind == meta.KindSource}
	for _, c := range t.Columns {
		ref.Types = append(ref.Types, c.Type)
	}
	var err error
	ref.Watermark, err = WatermarkFilter(t)
	return ref, err
}

// Jobs builds the runtime's jobs from the catalog's records for the
// controller, which cannot plan.
type Jobs struct {
	catalog func() *meta.Catalog
}

var _ control.Builder = Jobs{}

// NewJobs returns the builder of jobs whose queries bind against the
// catalog that catalog returns at the time.
func NewJobs(catalog func() *meta.Catalog) Jobs { return Jobs{catalog: catalog} }

// TableRef implements control.Builder.
func (j Jobs) TableRef(t *meta.Table) (*dataflow.TableRef, error) { return TableRef(t) }

// ViewGraph implements control.Builder: the plan of the view,
// subscription or sink, with the state tables it was created with.
func (j Jobs) ViewGraph(t *meta.Table) (*dataflow.GraphSpec, error) {
	i := 0
	alloc := func() uint32 {
		id := t.StateTables[i]
		i++
		return id
	}
	var plan *StreamPlan
	var err error
	if t.Kind.Logged() {
		plan, _, err = PlanLog(j.catalog(), t.ViewSQL, t.SearchPath, t.ID, t.Retention, alloc)
	} else {
		plan, _, err = PlanView(j.catalog(), t.ViewSQL, t.SearchPath, t.ID, t.EmitOnWindowClose, alloc)
	}
	if err != nil {
		return nil, err
	}
	plan.Graph.Zone = t.Zone
	return plan.Graph, nil
}
