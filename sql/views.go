package sql

import (
	"context"
	"strconv"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/sql/parser"
)

// parallelism returns a job's actor count per fragment: n if set, else
// the node's configured default, else the cluster's cores.
func (e *Engine) parallelism(n int) int {
	if n > 0 {
		return n
	}
	if e.opts.Parallelism > 0 {
		return e.opts.Parallelism
	}
	return control.DefaultParallelism(control.ActiveNodes(e.Meta.Catalog()))
}

// place returns the nodes of a new job's actor slots at parallelism n (0:
// the default), spread over the cluster by cores.
func (e *Engine) place(n int) []string {
	return control.Place(control.ActiveNodes(e.Meta.Catalog()), e.parallelism(n))
}

// streamingParallelism returns the session's streaming_parallelism: the
// actor count per fragment of new jobs (0: the node's default).
func (s *Session) streamingParallelism() (int, error) {
	v, _ := s.vars.get("streaming_parallelism")
	if v == "0" || v == "default" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > rowkey.VNodes {
		return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "streaming_parallelism must be an integer from 0 to %d", rowkey.VNodes)
	}
	return n, nil
}

// createMaterializedView plans the view, starts its job with a backfill of
// the current contents of its inputs (writers are not blocked), waits for
// the backfill, then records the view in the catalog.
func (s *Session) createMaterializedView(ctx context.Context, x *parser.CreateView) (pgwire.Rows, error) {
	e := s.e
	defer e.stream.LockJobs()()
	schema, err := s.createIn(e.Meta.Catalog(), x.Name)
	if err != nil {
		return nil, err
	}
	if _, ok := e.Meta.Catalog().Table(schema, x.Name.Name); ok {
		if x.IfNotExists {
			return done("CREATE MATERIALIZED VIEW"), nil
		}
		return nil, pgerror.New(pgerror.CodeDuplicateTable, "relation %q already exists", x.Name.Name)
	}
	par, err := s.streamingParallelism()
	if err != nil {
		return nil, err
	}
	for k, v := range x.With {
		if k != "parallelism" {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "materialized view option %q is not supported", k)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > rowkey.VNodes {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "parallelism must be an integer from 1 to %d", rowkey.VNodes)
		}
		par = n
	}
	// The view's names resolve on the session's search_path, now and
	// whenever its job is planned again.
	path := e.Meta.Catalog().ExistingSchemas(s.searchPath())
	viewID, stateTables, plan, node, err := e.planNewJob(ctx, func(id uint32, alloc func() uint32) (*planner.StreamPlan, planner.Node, error) {
		return planner.PlanView(e.Meta.Catalog(), x.Query.SQL, path, id, x.EmitOnWindowClose, alloc)
	})
	if err != nil {
		return nil, err
	}
	if visible := visibleCount(plan.Columns); len(x.Columns) > 0 && len(x.Columns) != visible {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "materialized view %q names %d columns but its query returns %d", x.Name.Name, len(x.Columns), visible)
	}
	t := &meta.Table{ID: viewID, Schema: schema, Name: x.Name.Name, Kind: meta.KindMaterializedView, SearchPath: path,
		ViewSQL: x.Query.SQL, PK: plan.PK, AppendOnly: plan.AppendOnly, RowBlocks: plan.RowBlocks, StateTables: stateTables,
		Parallelism: par, DependsOn: planner.Dependencies(node), Functions: plan.Functions, Placement: e.place(par),
		WatermarkColumns: planner.WatermarkColumnIndexes(node), EmitOnWindowClose: x.EmitOnWindowClose}
	if loc := s.vars.zone(); loc != nil {
		t.Zone = loc.String()
	}
	for i, c := range plan.Columns {
		name := c.Name
		if i < len(x.Columns) {
			name = x.Columns[i]
		}
		t.Columns = append(t.Columns, meta.Column{Name: name, Type: c.T, Hidden: c.Hidden})
	}
	if err := e.launch(ctx, t); err != nil {
		return nil, err
	}
	return done("CREATE MATERIALIZED VIEW"), nil
}

// planNewJob plans a new job with plan, given the job's id and the
// allocator of its state tables: a dry run counts the state tables, then
// the ids are allocated at once.
func (e *Engine) planNewJob(ctx context.Context, plan func(id uint32, alloc func() uint32) (*planner.StreamPlan, planner.Node, error)) (id uint32, stateTables []uint32, p *planner.StreamPlan, node planner.Node, err error) {
	var count uint32
	if _, _, err := plan(1, func() uint32 { count++; return count }); err != nil {
		return 0, nil, nil, nil, err
	}
	if id, err = e.Meta.AllocIDs(ctx, int(count)+1); err != nil {
		return 0, nil, nil, nil, err
	}
	next := id
	p, node, err = plan(id, func() uint32 {
		next++
		stateTables = append(stateTables, next)
		return next
	})
	return id, stateTables, p, node, err
}

// launch starts the job of t, a planned object, with a backfill of the
// current contents of its inputs (writers are not blocked), waits for
// the backfill, then records t in the catalog; a failure stops the job.
func (e *Engine) launch(ctx context.Context, t *meta.Table) error {
	stop := func() { _ = e.stopJob(context.Background(), t.ID, append([]uint32{t.ID}, t.StateTables...)) }
	if _, err := e.ctrl.StartJob(ctx, t, control.JobAssignment(t), t.Placement, true); err != nil {
		stop()
		return err
	}
	// The backfill's last rows belong to an epoch that may not be
	// committed yet: the object is readable once it is.
	if err := e.Flush(ctx); err != nil {
		stop()
		return err
	}
	if t.Kind.Logged() {
		t.Since = e.ReadEpoch()
	}
	if _, err := e.Meta.CreateTable(ctx, t, false); err != nil {
		stop()
		return err
	}
	return nil
}

// dropped stops the jobs of dropped relations; every node then deletes
// their state.
func (e *Engine) dropped(ctx context.Context, ts []*meta.Table) error {
	for _, t := range ts {
		if t.Kind != meta.KindTable && t.Kind != meta.KindSource && !t.Kind.Planned() {
			continue
		}
		ids := append([]uint32{t.ID}, t.StateTables...)
		if t.Watermark != nil {
			ids = append(ids, t.Watermark.StateTable)
		}
		if err := e.stopJob(ctx, t.ID, ids); err != nil {
			return err
		}
	}
	return nil
}

// stopJob stops job and, once that is committed, has every node delete
// its state in tables.
func (e *Engine) stopJob(ctx context.Context, job uint32, tables []uint32) error {
	epoch, err := e.ctrl.StopJob(ctx, job)
	if err == nil {
		err = e.stream.WaitCommitted(ctx, epoch)
	}
	if err == nil {
		_, err = e.ctrl.Drop(ctx, tables)
	}
	return err
}

// explainView renders the streaming plan of CREATE MATERIALIZED VIEW.
func (s *Session) explainView(x *parser.CreateView) (pgwire.Rows, error) {
	var n uint32
	plan, _, err := planner.PlanView(s.e.Meta.Catalog(), x.Query.SQL, s.e.Meta.Catalog().ExistingSchemas(s.searchPath()), 0, x.EmitOnWindowClose, func() uint32 { n++; return n })
	if err != nil {
		return nil, err
	}
	var vals [][]string
	for _, line := range plan.Graph.Explain() {
		vals = append(vals, []string{line})
	}
	return &memRows{rows: textRows(vals...), tag: "EXPLAIN"}, nil
}

func visibleCount(cols []planner.Column) int {
	n := 0
	for _, c := range cols {
		if !c.Hidden {
			n++
		}
	}
	return n
}
