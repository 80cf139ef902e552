package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/tests/testkit"
)

// cdcSettings turn on logical decoding in a test's upstream PostgreSQL.
var cdcSettings = []string{"wal_level=logical", "max_replication_slots=10", "max_wal_senders=10"}

// cdcQueries are the streamdb queries of TestPostgresCDC and the upstream
// queries that must return the same rows.
var cdcQueries = [][2]string{
	{"SELECT id, g, amount, note FROM orders ORDER BY id", "SELECT id, g, amount, note FROM orders ORDER BY id"},
	{"SELECT g, n, s FROM per_g ORDER BY g", "SELECT g, count(*), sum(amount) FROM orders GROUP BY g ORDER BY g"},
}

// TestPostgresCDC feeds a streamdb table from an upstream PostgreSQL table
// (snapshot, then logical replication) with a view of an aggregate over
// it, and checks that both equal their upstream counterparts after the
// snapshot, after random INSERT/UPDATE/DELETE traffic (key changes
// included), after a kill -9 of streamdb in the middle of the traffic and
// after a restart of the upstream server in the middle of the traffic;
// and that the slot was confirmed, but never beyond what streamdb
// committed.
func TestPostgresCDC(t *testing.T) {
	ctx := context.Background()
	up := testkit.StartPostgresServer(t, cdcSettings...)
	url := up.ConnString("postgres")
	upstream := func() *pgx.Conn {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(ctx) })
		return conn
	}
	conn := upstream()
	for _, stmt := range []string{
		"CREATE TABLE orders (id INT PRIMARY KEY, g INT NOT NULL, amount BIGINT, note TEXT, extra TEXT)",
		"INSERT INTO orders SELECT i, i % 7, i * 10, 'n' || i, 'x' FROM generate_series(1, 3000) i",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	dir, addr, p := startPrepared(t,
		"ALTER SYSTEM SET barrier_interval_ms = 100",
		fmt.Sprintf("CREATE TABLE orders (id INT PRIMARY KEY, g INT, amount BIGINT, note TEXT) WITH (connector = 'postgres-cdc', url = '%s', table = 'public.orders', slot = 'sd_orders')", url),
		"CREATE MATERIALIZED VIEW per_g AS SELECT g, count(*) AS n, sum(amount) AS s FROM orders GROUP BY g",
	)
	defer func() {
		if t.Failed() {
			t.Logf("streamdb's log:\n%s", p.output())
		}
		p.kill()
	}()
	waitCDCEqual(t, url, addr, "snapshot")
	rng := rand.New(rand.NewPCG(5, 6))
	cdcTraffic(t, conn, rng, 200)
	waitCDCEqual(t, url, addr, "traffic")

	// kill -9 of streamdb while the traffic runs.
	during(t, url, 7, func() {
		time.Sleep(300 * time.Millisecond)
		p.kill()
		p = startProcess(t, dir, addr)
	})
	waitCDCEqual(t, url, addr, "streamdb killed")

	// A restart of the upstream server while the traffic runs.
	during(t, url, 8, func() {
		time.Sleep(300 * time.Millisecond)
		if err := up.Restart(ctx); err != nil {
			t.Fatal(err)
		}
	})
	waitCDCEqual(t, url, addr, "upstream restarted")

	// The slot is confirmed after the commits (standby status updates
	// every second), never beyond streamdb's committed offset.
	conn = upstream()
	var confirmed pglogrepl.LSN
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var s string
		if err := conn.QueryRow(ctx, "SELECT coalesce(confirmed_flush_lsn::text, '0/0') FROM pg_replication_slots WHERE slot_name = 'sd_orders'").Scan(&s); err != nil {
			t.Fatal(err)
		}
		lsn, err := pglogrepl.ParseLSN(s)
		if err != nil {
			t.Fatal(err)
		}
		offset := pglogrepl.LSN(count(t, addr, `SELECT "offset" FROM streamdb_catalog.source_splits WHERE source = 'orders'`))
		if lsn > offset {
			t.Fatalf("slot confirmed up to %s, beyond streamdb's committed offset %s", lsn, offset)
		}
		if confirmed = lsn; lsn == offset || time.Now().After(deadline) {
			break
		}
	}
	if confirmed == 0 {
		t.Fatal("the slot was never confirmed")
	}
}

// during runs random traffic on the upstream server at url while event
// happens, then stops it.
func during(t *testing.T, url string, seed uint64, event func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(seed, seed))
		for ctx.Err() == nil {
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				// The server is restarting.
				time.Sleep(50 * time.Millisecond)
				continue
			}
			for ctx.Err() == nil && cdcTxn(ctx, conn, rng) == nil {
			}
			conn.Close(context.Background())
		}
	}()
	event()
	time.Sleep(500 * time.Millisecond)
	cancel()
	wg.Wait()
}

// cdcTraffic runs n random transactions on conn.
func cdcTraffic(t *testing.T, conn *pgx.Conn, rng *rand.Rand, n int) {
	t.Helper()
	for range n {
		if err := cdcTxn(context.Background(), conn, rng); err != nil {
			t.Fatal(err)
		}
	}
}

// cdcTxn runs one transaction of a few random inserts, updates (of the key
// too) and deletes on orders.
func cdcTxn(ctx context.Context, conn *pgx.Conn, rng *rand.Rand) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	for range 1 + rng.IntN(8) {
		id := 1 + rng.IntN(4000)
		var stmt string
		switch rng.IntN(5) {
		case 0, 1:
			stmt = fmt.Sprintf("INSERT INTO orders VALUES (%d, %d, %d, 'i%d', 'x') ON CONFLICT (id) DO UPDATE SET amount = excluded.amount", id, rng.IntN(7), rng.IntN(1000), id)
		case 2:
			stmt = fmt.Sprintf("UPDATE orders SET amount = amount + %d, g = %d, note = NULL WHERE id = %d", rng.IntN(100), rng.IntN(7), id)
		case 3:
			stmt = fmt.Sprintf("UPDATE orders SET id = %d WHERE id = %d AND NOT EXISTS (SELECT FROM orders WHERE id = %d)", 4000+rng.IntN(1000), id, 4000+id)
		default:
			stmt = fmt.Sprintf("DELETE FROM orders WHERE id BETWEEN %d AND %d", id, id+rng.IntN(3))
		}
		if _, err := tx.Exec(ctx, stmt); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "23505" {
				// A key change onto a key taken: end the transaction.
				return nil
			}
			return err
		}
	}
	return tx.Commit(ctx)
}

// waitCDCEqual waits until streamdb at addr returns the same rows for
// each of cdcQueries as the upstream server at url.
func waitCDCEqual(t *testing.T, url, addr, when string) {
	t.Helper()
	waitEqual(t, url, addr, when, cdcQueries)
}

// waitEqual waits until streamdb at addr returns the same rows for the
// first query of each pair as the upstream server at url for the second.
func waitEqual(t *testing.T, url, addr, when string, queries [][2]string) {
	t.Helper()
	ctx := context.Background()
	up, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close(ctx)
	sd := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	defer sd.Close(ctx)
	for _, q := range queries {
		want := textRows(t, up, q[1])
		var got []string
		// The deadline only bounds a hang.
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			if got = textRows(t, sd, q[0]); slices.Equal(got, want) || time.Now().After(deadline) {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %s returns %d rows, upstream %d; first differences:\n%s", when, q[0], len(got), len(want), firstDiffs(got, want))
		}
	}
}

// textRows runs query and renders its rows as text.
func textRows(t *testing.T, conn *pgx.Conn, query string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b strings.Builder
		for i, v := range rows.RawValues() {
			if i > 0 {
				b.WriteByte('|')
			}
			if v == nil {
				b.WriteString("NULL")
			}
			b.Write(v)
		}
		out = append(out, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDiffs lists the first rows only one of got and want has.
func firstDiffs(got, want []string) string {
	var out []string
	for _, r := range got {
		if !slices.Contains(want, r) && len(out) < 5 {
			out = append(out, "streamdb only: "+r)
		}
	}
	for _, r := range want {
		if !slices.Contains(got, r) && len(out) < 10 {
			out = append(out, "upstream only: "+r)
		}
	}
	return strings.Join(out, "\n")
}

// TestPostgresCDCErrors checks the errors of CREATE TABLE with a
// postgres-cdc connector whose upstream cannot feed it.
func TestPostgresCDCErrors(t *testing.T) {
	ctx := context.Background()
	logical := testkit.StartPostgresServer(t, cdcSettings...).ConnString("postgres")
	replica := testkit.StartPostgres(t)
	conn := connect(t, testkit.StartNode(t).Addr(), pgx.QueryExecModeSimpleProtocol)
	for _, tc := range []struct{ url, table, code, hint string }{
		{logical, "public.missing", "42P01", "Create it upstream first"},
		{replica, "public.missing", "55000", "Set wal_level = logical and restart PostgreSQL."},
		{"postgres://postgres@127.0.0.1:1/postgres", "public.t", "08001", "Check the url"},
	} {
		_, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE bad (id INT PRIMARY KEY) WITH (connector = 'postgres-cdc', url = '%s', table = '%s')", tc.url, tc.table))
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Hint, tc.hint) {
			t.Errorf("%s at %s: error %v, want SQLSTATE %s with hint %q", tc.table, tc.url, err, tc.code, tc.hint)
		}
	}
}

// TestPostgresCDCToastTruncateDrop feeds a streamdb table, with a view of
// an aggregate over it, from an upstream table with large values stored
// out of line (TOASTed): updates of other columns keep them; TRUNCATEs in
// a mix of transactions with inserts before and after them empty the
// table at their place; and DROP TABLE drops the replication slot and the
// publication streamdb made, and keeps those the user named.
func TestPostgresCDCToastTruncateDrop(t *testing.T) {
	ctx := context.Background()
	url, conn := startUpstream(t)
	// big is 3200 characters of md5 digests: incompressible enough to be
	// stored out of line.
	const big = "(SELECT string_agg(md5(i::text || '.' || j), '') FROM generate_series(1, 100) j)"
	execAll(t, conn, "CREATE TABLE docs (id INT PRIMARY KEY, n INT NOT NULL, body TEXT)",
		"CREATE TABLE kept (id INT PRIMARY KEY)",
		"CREATE PUBLICATION user_pub FOR TABLE kept",
		"INSERT INTO docs SELECT i, i, "+big+" FROM generate_series(1, 50) i")
	queries := [][2]string{
		{"SELECT id, n, body FROM docs ORDER BY id", "SELECT id, n, body FROM docs ORDER BY id"},
		{"SELECT n, s FROM docs_total", "SELECT count(*), coalesce(sum(n), 0) FROM docs"},
	}
	node := testkit.StartNode(t)
	sd := connect(t, node.Addr(), pgx.QueryExecModeSimpleProtocol)
	defer sd.Close(ctx)
	execAll(t, sd,
		fmt.Sprintf("CREATE TABLE docs (id INT PRIMARY KEY, n INT, body TEXT) WITH (connector = 'postgres-cdc', url = '%s', table = 'public.docs')", url),
		fmt.Sprintf("CREATE TABLE kept (id INT PRIMARY KEY) WITH (connector = 'postgres-cdc', url = '%s', table = 'public.kept', slot = 'user_slot', publication = 'user_pub')", url),
		"CREATE MATERIALIZED VIEW docs_total AS SELECT count(*) AS n, coalesce(sum(n), 0) AS s FROM docs")
	waitEqual(t, url, node.Addr(), "snapshot", queries)
	var external bool
	if err := conn.QueryRow(ctx, `SELECT bool_and(pg_column_size(body) > 2000) AND
		(SELECT reltoastrelid <> 0 FROM pg_class WHERE relname = 'docs') FROM docs`).Scan(&external); err != nil || !external {
		t.Fatalf("the upstream bodies are not large (%v): the test needs TOASTed values", err)
	}

	execAll(t, conn, "UPDATE docs SET n = n + 100 WHERE id <= 30", "UPDATE docs SET n = n + 1 WHERE id % 2 = 0")
	waitEqual(t, url, node.Addr(), "updates of other columns", queries)

	execAll(t, conn, "BEGIN", "INSERT INTO docs VALUES (100, 1, 'a')", "TRUNCATE docs", "INSERT INTO docs VALUES (101, 2, 'b'), (102, 3, "+strings.Replace(big, "i::text", "'x'", 1)+")", "COMMIT",
		"INSERT INTO docs VALUES (103, 4, 'c')",
		"UPDATE docs SET n = 10 WHERE id = 102",
		"BEGIN", "INSERT INTO docs VALUES (104, 5, 'd')", "COMMIT",
		"TRUNCATE docs",
		"BEGIN", "INSERT INTO docs VALUES (105, 6, 'e')", "TRUNCATE docs", "TRUNCATE docs", "INSERT INTO docs VALUES (106, 7, 'f')", "COMMIT",
		"INSERT INTO docs SELECT i, i, 'g' FROM generate_series(200, 260) i")
	waitEqual(t, url, node.Addr(), "truncates", queries)

	slots := func() []string {
		t.Helper()
		rows, err := conn.Query(ctx, "SELECT slot_name FROM pg_replication_slots UNION ALL SELECT pubname FROM pg_publication ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	before := slots()
	execAll(t, sd, "DROP MATERIALIZED VIEW docs_total", "DROP TABLE docs", "DROP TABLE kept")
	if got, want := slots(), []string{"user_pub", "user_slot"}; !slices.Equal(got, want) {
		t.Fatalf("after DROP TABLE, upstream slots and publications %v (before %v), want %v", got, before, want)
	}
}

// TestPostgresCDCDropUnreachable checks that DROP TABLE of a postgres-cdc
// table whose upstream refuses it succeeds with a WARNING naming the slot
// to drop by hand.
func TestPostgresCDCDropUnreachable(t *testing.T) {
	ctx := context.Background()
	url, conn := startUpstream(t)
	// The source connects as cdc, which then may not log in any more.
	execAll(t, conn, "CREATE ROLE cdc LOGIN REPLICATION", "GRANT CREATE ON DATABASE postgres TO cdc",
		"CREATE TABLE t (id INT PRIMARY KEY)", "ALTER TABLE t OWNER TO cdc")
	url = strings.Replace(url, "postgres@", "cdc@", 1)
	var notices []*pgconn.Notice
	cfg, err := pgx.ParseConfig("postgres://postgres@" + testkit.StartNode(t).Addr() + "/streamdb")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n) }
	sd, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sd.Close(ctx)
	if _, err := sd.Exec(ctx, fmt.Sprintf("CREATE TABLE t (id INT PRIMARY KEY) WITH (connector = 'postgres-cdc', url = '%s', table = 'public.t')", url)); err != nil {
		t.Fatal(err)
	}
	execAll(t, conn, "ALTER ROLE cdc NOLOGIN", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'cdc'")
	if _, err := sd.Exec(ctx, "DROP TABLE t"); err != nil {
		t.Fatalf("DROP TABLE with the upstream gone: %v", err)
	}
	if len(notices) != 1 || notices[0].Severity != "WARNING" || !strings.Contains(notices[0].Message, "pg_drop_replication_slot('streamdb_t_") {
		t.Fatalf("notices %+v, want one WARNING naming the slot to drop", notices)
	}
}

// startUpstream starts a PostgreSQL server with logical decoding and
// returns its URL and a connection to it.
func startUpstream(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	url := testkit.StartPostgresServer(t, cdcSettings...).ConnString("postgres")
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return url, conn
}

// execAll runs stmts on conn in turn.
func execAll(t *testing.T, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		if _, err := conn.Exec(context.Background(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
