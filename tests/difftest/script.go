package difftest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// viewDef is a view: a materialized view on streamdb, a plain view on
// PostgreSQL (which computes its query over the tables on every read).
type viewDef struct {
	name string
	q    *Query
}

// streamdbDDL and postgresDDL create the view on each server.
func (v *viewDef) streamdbDDL() string {
	return "CREATE MATERIALIZED VIEW " + v.name + " AS " + v.q.SQL()
}

func (v *viewDef) postgresDDL() string { return "CREATE VIEW " + v.name + " AS " + v.q.SQL() }

// step is what a script does after filling its tables: a DML statement
// or a view's creation.
type step struct {
	dml  *DML
	view *viewDef
}

// script is the state a check runs on: tables with their rows, then steps.
type script struct {
	tables []*Table
	steps  []step
}

// check is one comparison: a query's answer; a DML statement's outcome
// and its table afterwards; or a view's rows after its creation, the
// steps after it and a FLUSH.
type check struct {
	query *Query
	dml   *DML
	view  *viewDef
	after []step
}

// flushFailed is the detail of a difference where FLUSH failed: a view's
// job failed.
const flushFailed = "FLUSH failed"

// errDiverged says that a script's setup already went differently on the
// two servers, so its check compares nothing.
var errDiverged = errors.New("the setup went differently on the two servers")

// errUnsupported says that streamdb refused a view with 0A000
// feature_not_supported.
var errUnsupported = errors.New("streamdb does not support the view")

// both runs sql on both servers.
func (ru *Runner) both(ctx context.Context, sql string) (pg, sdb Outcome) {
	return ru.pg.exec(ctx, sql), ru.sdb.exec(ctx, sql)
}

// reset drops what earlier scripts created, and the tables s creates, on
// both servers.
func (ru *Runner) reset(ctx context.Context, s *script) {
	for _, name := range slices.Concat(ru.created, tableNames(s.tables)) {
		ru.pg.exec(ctx, "DROP TABLE IF EXISTS "+name+" CASCADE")
		ru.sdb.exec(ctx, "DROP TABLE IF EXISTS "+name+" CASCADE")
	}
	for _, name := range ru.createdViews {
		ru.pg.exec(ctx, "DROP VIEW IF EXISTS "+name+" CASCADE")
		ru.sdb.exec(ctx, "DROP MATERIALIZED VIEW IF EXISTS "+name+" CASCADE")
	}
	ru.created, ru.createdViews = nil, nil
}

// healthCheck is what streamdb must be able to do, whatever came before.
var healthCheck = []string{
	"DROP TABLE IF EXISTS difftest_health",
	"CREATE TABLE difftest_health (a int4)",
	"INSERT INTO difftest_health VALUES (1)",
	"DROP TABLE difftest_health",
}

// ensureHealthy checks that streamdb still runs DML into a new table, and
// restarts it when it does not (a failed streaming job may refuse every
// later write of the node).
func (ru *Runner) ensureHealthy(ctx context.Context) error {
	for _, sql := range healthCheck {
		if o := ru.sdb.exec(ctx, sql); o.code() != "rows" {
			ru.cfg.Logf("streamdb fails %q (%s): restarting it", sql, o.String())
			ru.Stats.Restarts++
			return ru.restart(ctx)
		}
	}
	return nil
}

// replay resets both servers and sets s up on them. It returns
// errDiverged when a statement went differently on the two.
func (ru *Runner) replay(ctx context.Context, s *script) error {
	clear(ru.probed)
	if err := ru.ensureHealthy(ctx); err != nil {
		return err
	}
	ru.reset(ctx, s)
	for _, t := range s.tables {
		ru.created = append(ru.created, t.Name)
		if pg, sdb := ru.both(ctx, t.DDL()); pg.Err != nil || sdb.code() != "rows" {
			return fmt.Errorf("%w: %s: %s / %s", errDiverged, t.DDL(), pg.String(), sdb.String())
		}
		if len(t.Rows) > 0 {
			if pg, sdb := ru.both(ctx, t.insertSQL(t.Rows)); pg.Err != nil || sdb.code() != "rows" {
				return fmt.Errorf("%w: %s: %s / %s", errDiverged, t.insertSQL(t.Rows), pg.String(), sdb.String())
			}
		}
	}
	for _, st := range s.steps {
		if err := ru.step(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// step runs one step on both servers.
func (ru *Runner) step(ctx context.Context, st step) error {
	if st.dml != nil {
		if pg, sdb := ru.both(ctx, st.dml.SQL()); compare(pg, sdb, false, false) != nil {
			return fmt.Errorf("%w: %s: %s / %s", errDiverged, st.dml.SQL(), pg.String(), sdb.String())
		}
		return nil
	}
	pg, sdb, _ := ru.createView(ctx, st.view)
	if pg.Err != nil || sdb.Err != nil {
		ru.dropView(ctx, st.view.name, true, true)
		return fmt.Errorf("%w: %s: %s / %s", errDiverged, st.view.streamdbDDL(), pg.String(), sdb.String())
	}
	return nil
}

// createView creates v on both servers: a materialized view on streamdb,
// a view on PostgreSQL. It returns errUnsupported when streamdb refused
// with 0A000 feature_not_supported.
func (ru *Runner) createView(ctx context.Context, v *viewDef) (pg, sdb Outcome, err error) {
	pg = ru.pg.exec(ctx, v.postgresDDL())
	sdb = ru.sdb.exec(ctx, v.streamdbDDL())
	ru.createdViews = append(ru.createdViews, v.name)
	if sdb.Err != nil && sdb.Err.Code == "0A000" && !runtimeError(sdb.Err) {
		err = errUnsupported
	}
	return pg, sdb, err
}

// dropView drops view name from PostgreSQL and streamdb, as asked.
func (ru *Runner) dropView(ctx context.Context, name string, pg, sdb bool) {
	if pg {
		ru.pg.exec(ctx, "DROP VIEW IF EXISTS "+name+" CASCADE")
	}
	if sdb {
		ru.sdb.exec(ctx, "DROP MATERIALIZED VIEW IF EXISTS "+name+" CASCADE")
	}
}

// run runs c on the current state; for a view, it creates the view, runs
// the steps after it and flushes.
func (ru *Runner) run(ctx context.Context, c check) (*diff, error) {
	if c.query == nil {
		clear(ru.probed) // the tables change
	}
	switch {
	case c.query != nil:
		pg, sdb := ru.both(ctx, c.query.SQL())
		return ru.judge(pg, sdb, c.query.totalOrder(), false), nil
	case c.dml != nil:
		// PostgreSQL runs it in a transaction, rolled back if the outcomes
		// differ: when streamdb failed, both tables are then as before it,
		// for explain to evaluate subexpressions over.
		ru.pg.exec(ctx, "BEGIN")
		pg, sdb := ru.both(ctx, c.dml.SQL())
		if d := compare(pg, sdb, false, false); d != nil || pg.Err != nil {
			ru.pg.exec(ctx, "ROLLBACK")
			return d, nil
		}
		ru.pg.exec(ctx, "COMMIT")
		pg, sdb = ru.both(ctx, "SELECT * FROM "+c.dml.Table.Name)
		return ru.judge(pg, sdb, false, false), nil
	}
	pg, sdb, err := ru.createView(ctx, c.view)
	switch {
	case err != nil:
		ru.dropView(ctx, c.view.name, true, false)
		return nil, err
	case pg.Err != nil:
		ru.dropView(ctx, c.view.name, false, true)
		return nil, errDiverged // PostgreSQL refused the view: the generator's fault
	case sdb.Err != nil:
		// streamdb refused a view whose query PostgreSQL may answer.
		defer ru.dropView(ctx, c.view.name, true, false)
		return ru.judge(ru.pg.exec(ctx, "SELECT * FROM "+c.view.name), sdb, false, true), nil
	}
	for _, st := range c.after {
		if err := ru.step(ctx, st); err != nil {
			return nil, err
		}
	}
	if o := ru.sdb.exec(ctx, "FLUSH"); o.code() != "rows" {
		return &diff{kind: KindCrash, sdb: o, detail: flushFailed}, nil
	}
	pg, sdb = ru.both(ctx, "SELECT * FROM "+c.view.name)
	return ru.judge(pg, sdb, false, true), nil
}

// judge compares two outcomes (see compare), keeping PostgreSQL's for the
// figures. A statement PostgreSQL refuses with 0A000 (it plans a FULL
// JOIN only on an equality) compares nothing.
func (ru *Runner) judge(pg, sdb Outcome, ordered, view bool) *diff {
	ru.lastPG = pg
	if pg.Err != nil && pg.Err.Code == "0A000" && !runtimeError(pg.Err) {
		ru.Stats.PostgresRefused++
		return nil
	}
	return compare(pg, sdb, ordered, view)
}

// stmt is the statement c compares, as a reproduction shows it.
func (c check) stmt() string {
	switch {
	case c.query != nil:
		return c.query.SQL()
	case c.dml != nil:
		return c.dml.SQL() + ";\nSELECT * FROM " + c.dml.Table.Name
	}
	s := c.view.streamdbDDL() + ";\n"
	for _, st := range c.after {
		s += st.sql() + ";\n"
	}
	return s + "FLUSH;\nSELECT * FROM " + c.view.name
}

// shape is the check's statement with names and values abstracted.
func (c check) shape() string {
	switch {
	case c.query != nil:
		return "query: " + c.query.Shape()
	case c.dml != nil:
		return "dml: " + c.dml.shape()
	}
	return "view: " + c.view.q.Shape()
}

// features are what the check's statement uses.
func (c check) features() []string {
	switch {
	case c.query != nil:
		return c.query.features()
	case c.dml != nil:
		return c.dml.features()
	}
	return c.view.q.features()
}

// mode names the kind of check.
func (c check) mode() string {
	switch {
	case c.query != nil:
		return "query"
	case c.dml != nil:
		return "dml"
	}
	return "view"
}

// sql is the step as a reproduction shows it: a view as streamdb's DDL
// (PostgreSQL's says CREATE VIEW).
func (st step) sql() string {
	if st.dml != nil {
		return st.dml.SQL()
	}
	return st.view.streamdbDDL()
}

// setup is the script as statements, without the tables the check and
// the steps do not mention.
func (s *script) setup(c check) []string {
	var text []string
	for _, st := range s.steps {
		text = append(text, st.sql())
	}
	text = append(text, c.stmt())
	var out []string
	for _, t := range s.tables {
		re := regexp.MustCompile(`\b` + t.Name + `\b`)
		if !slices.ContainsFunc(text, re.MatchString) {
			continue
		}
		out = append(out, t.DDL())
		if len(t.Rows) > 0 {
			out = append(out, t.insertSQL(t.Rows))
		}
	}
	for _, st := range s.steps {
		out = append(out, st.sql())
	}
	return out
}
