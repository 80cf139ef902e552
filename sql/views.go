package sql

import (
	"context"
	"strconv"
	"time"

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
	par, err := s.streamingParallelism()
	if err != nil {
		return nil, err
	}
	for k, v := range x.With {
		if k != "parallelism" {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "materialized view option %q is not supported", k)
		}
		if par, err = parseParallelism(v); err != nil {
			return nil, err
		}
	}
	j := &plannedJob{kind: meta.KindMaterializedView, name: x.Name, ifNotExists: x.IfNotExists, sql: x.Query.SQL,
		columns: x.Columns, eowc: x.EmitOnWindowClose, parallelism: par}
	if err := s.createPlanned(ctx, j); err != nil {
		return nil, err
	}
	return done("CREATE MATERIALIZED VIEW"), nil
}

// parseParallelism parses the parallelism option of a job.
func parseParallelism(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > rowkey.VNodes {
		return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "parallelism must be an integer from 1 to %d", rowkey.VNodes)
	}
	return n, nil
}

// plannedJob is a new object whose job is planned from a query: a
// materialized view, a subscription or a sink.
type plannedJob struct {
	kind        meta.ObjectKind
	name        parser.ObjectName
	ifNotExists bool
	// sql is the query; columns the names given to its columns, if any.
	sql     string
	columns []string
	eowc    bool
	// parallelism is the job's actors per fragment (0: the default).
	parallelism int
	// retention is a subscription's.
	retention time.Duration
	// check, if set, completes and checks the catalog record before the
	// job starts (a sink's connector options).
	check func(t *meta.Table) error
}

// createPlanned plans j's query, starts its job with a backfill of the
// current contents of its inputs (writers are not blocked), waits for the
// backfill, then records the object in the catalog.
func (s *Session) createPlanned(ctx context.Context, j *plannedJob) error {
	e := s.e
	defer e.stream.LockJobs()()
	create := s.createIn
	if j.name.Name == "" {
		create = s.creationSchema // SUBSCRIBE's temporary subscription
	}
	schema, err := create(e.Meta.Catalog(), j.name)
	if err != nil {
		return err
	}
	// Its creator, and owner, must be allowed to read what it reads.
	if _, err := s.bindText(e.Meta.Catalog(), j.sql, s.currentRole()); err != nil {
		return err
	}
	if _, ok := e.Meta.Catalog().Table(schema, j.name.Name); ok {
		if j.ifNotExists {
			return nil
		}
		return pgerror.New(pgerror.CodeDuplicateTable, "relation %q already exists", j.name.Name)
	}
	// The query's names resolve on the session's search_path, now and
	// whenever its job is planned again.
	path := e.Meta.Catalog().ExistingSchemas(s.searchPath())
	plan := func(id uint32, alloc func() uint32) (*planner.StreamPlan, planner.Node, error) {
		if j.kind.Logged() {
			return planner.PlanLog(e.Meta.Catalog(), j.sql, path, id, j.retention, alloc)
		}
		return planner.PlanView(e.Meta.Catalog(), j.sql, path, id, j.eowc, alloc)
	}
	// A dry run counts the state tables; then the ids are allocated at once.
	var count uint32
	if _, _, err := plan(1, func() uint32 { count++; return count }); err != nil {
		return err
	}
	first, err := e.Meta.AllocIDs(ctx, int(count)+1)
	if err != nil {
		return err
	}
	id := first
	var stateTables []uint32
	next := first
	p, node, err := plan(id, func() uint32 {
		next++
		stateTables = append(stateTables, next)
		return next
	})
	if err != nil {
		return err
	}
	if visible := visibleCount(p.Columns); len(j.columns) > 0 && len(j.columns) != visible {
		return pgerror.New(pgerror.CodeSyntaxError, "%s %q names %d columns but its query returns %d", j.kind, j.name.Name, len(j.columns), visible)
	}
	t := &meta.Table{ID: id, Schema: schema, Name: j.name.Name, Kind: j.kind, SearchPath: path, Owner: s.currentRole(),
		ViewSQL: j.sql, PK: p.PK, AppendOnly: p.AppendOnly, RowBlocks: p.RowBlocks && !j.kind.Logged(), StateTables: stateTables,
		Parallelism: j.parallelism, DependsOn: planner.Dependencies(node), Functions: p.Functions, Placement: e.place(j.parallelism),
		WatermarkColumns: planner.WatermarkColumnIndexes(node), EmitOnWindowClose: j.eowc, Retention: j.retention}
	if loc := s.vars.zone(); loc != nil {
		t.Zone = loc.String()
	}
	for i, c := range p.Columns {
		name := c.Name
		if i < len(j.columns) {
			name = j.columns[i]
		}
		t.Columns = append(t.Columns, meta.Column{Name: name, Type: c.T, Hidden: c.Hidden})
	}
	if j.check != nil {
		if err := j.check(t); err != nil {
			return err
		}
	}
	stop := func() { _ = e.stopJob(context.Background(), id, append([]uint32{id}, stateTables...)) }
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
	if j.kind == meta.KindSubscription {
		// Its log holds every change from here on.
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

// released drops what the connectors of dropped relations, whose jobs
// stopped, created in their external systems (control.ReleaseSource); a
// failure is a warning, not an error: the relations are gone.
func released(ctx context.Context, ts []*meta.Table) []*pgerror.Error {
	var warnings []*pgerror.Error
	for _, t := range ts {
		if err := control.ReleaseSource(ctx, t); err != nil {
			w := pgerror.New(codeWarning, "%s %s is dropped, but not what its connector created upstream: %v", t.Kind, t.Name, err).
				WithHint("Run those statements on the upstream server: a replication slot left behind keeps its WAL.")
			w.Severity = "WARNING"
			warnings = append(warnings, w)
		}
	}
	return warnings
}

// codeWarning is the SQLSTATE of a warning.
const codeWarning = "01000"

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
