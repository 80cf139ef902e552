package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/nexmarkbench"
	"github.com/streamdb/streamdb/tests/testkit"
)

// nexmarkData is the generator's settings of the Nexmark correctness test:
// a few thousand rows per table, the same in every run.
var nexmarkData = nexmarkbench.SourceOptions{Events: 30_000, Splits: 2, Seed: 7}

// TestNexmarkQueries runs every Nexmark query as a materialized view over
// sources (at parallelism 1 or 2), then as a batch query over tables of
// the same names fed with the same events, and requires the same rows.
// Then it copies the tables into PostgreSQL and requires PostgreSQL's
// answer to every query it can run.
func TestNexmarkQueries(t *testing.T) {
	n := testkit.StartNode(t)
	conn := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("ALTER SYSTEM SET barrier_interval_ms = 100")
	for _, q := range nexmarkbench.Queries {
		for _, stmt := range q.Setup {
			exec(stmt)
		}
	}
	views := map[string][]string{}
	for i, q := range nexmarkbench.Queries {
		for _, table := range q.Tables {
			exec(nexmarkbench.DDL("SOURCE", table, nexmarkData))
		}
		exec(q.CreateViewWith(1 + i%2))
		waitLoaded(t, conn, q.Tables)
		views[q.Name] = rowsOf(t, conn, viewCheck(q, q.ViewName()))
		exec("DROP MATERIALIZED VIEW " + q.ViewName())
		for _, table := range q.Tables {
			exec("DROP SOURCE " + table)
		}
	}
	var tables []string
	for _, table := range nexmarkbench.Tables {
		exec(nexmarkbench.DDL("TABLE", table.Name, nexmarkData))
		tables = append(tables, table.Name)
	}
	waitLoaded(t, conn, tables)
	batch := map[string][]string{}
	for _, q := range nexmarkbench.Queries {
		batch[q.Name] = rowsOf(t, conn, viewCheck(q, "("+q.SQL+") AS q"))
		t.Run(q.Name+"/view", func(t *testing.T) {
			t.Logf("%d rows", len(batch[q.Name]))
			if len(batch[q.Name]) == 0 {
				t.Fatalf("the batch query has no rows over the tables")
			}
			sameRows(t, "view", views[q.Name], "batch query", batch[q.Name])
		})
	}

	pg := connectPostgres(t, testkit.StartPostgres(t))
	for _, table := range tables {
		copyTable(t, conn, pg, table)
	}
	for _, q := range nexmarkbench.Queries {
		if !q.Postgres {
			continue
		}
		t.Run(q.Name+"/postgres", func(t *testing.T) {
			sameRows(t, "streamdb", batch[q.Name], "PostgreSQL", rowsOf(t, pg, q.SQL))
		})
	}
}

// viewCheck is the query whose rows over rel, q's view or its query,
// must be the same for the view and the batch query: all of them, or the
// invariant of a query whose answer depends on processing time.
func viewCheck(q nexmarkbench.Query, rel string) string {
	if q.Invariant != "" {
		return "SELECT " + q.Invariant + " FROM " + rel
	}
	return "SELECT * FROM " + rel
}

// waitLoaded waits until the sources or tables with a connector named
// have produced all their rows, and their last offsets are committed.
func waitLoaded(t *testing.T, conn *pgx.Conn, names []string) {
	t.Helper()
	q := fmt.Sprintf("SELECT count(*) > 0 AND bool_and(done) FROM streamdb_catalog.source_splits WHERE source IN ('%s')", strings.Join(names, "', '"))
	// The deadline only bounds a hang: 30,000 events take a second or two.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var done bool
		if err := conn.QueryRow(context.Background(), q).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v still loading after a minute", names)
		}
	}
}

// sameRows requires two sorted lists of rows to be equal as multisets; on
// a difference it shows a few rows only one side has.
func sameRows(t *testing.T, gotName string, got []string, wantName string, want []string) {
	t.Helper()
	var onlyGot, onlyWant []string
	i, k := 0, 0
	for i < len(got) || k < len(want) {
		switch {
		case k == len(want) || i < len(got) && got[i] < want[k]:
			onlyGot = append(onlyGot, got[i])
			i++
		case i == len(got) || want[k] < got[i]:
			onlyWant = append(onlyWant, want[k])
			k++
		default:
			i++
			k++
		}
	}
	if len(onlyGot) == 0 && len(onlyWant) == 0 {
		return
	}
	show := func(rows []string) string { return strings.Join(rows[:min(len(rows), 5)], "\n  ") }
	t.Errorf("%s has %d rows, %s %d; %d only in the %s:\n  %s\n%d only in the %s:\n  %s",
		gotName, len(got), wantName, len(want), len(onlyGot), gotName, show(onlyGot), len(onlyWant), wantName, show(onlyWant))
}

// connectPostgres connects to PostgreSQL with the simple protocol, so that
// rows are read as text as from streamdb.
func connectPostgres(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// copyTable creates the Nexmark table name in PostgreSQL and copies
// streamdb's rows of it there.
func copyTable(t *testing.T, from, to *pgx.Conn, name string) {
	t.Helper()
	ctx := context.Background()
	if _, err := to.Exec(ctx, nexmarkbench.PlainDDL(name)); err != nil {
		t.Fatal(err)
	}
	rows, err := from.Query(ctx, "SELECT * FROM "+name, pgx.QueryExecModeExec)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	var values [][]any
	for rows.Next() {
		v, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		values = append(values, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	n, err := to.CopyFrom(ctx, pgx.Identifier{name}, cols, pgx.CopyFromRows(values))
	if err != nil || n != int64(len(values)) {
		t.Fatalf("copy %s: %d of %d rows: %v", name, n, len(values), err)
	}
}
