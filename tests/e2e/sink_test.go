package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// TestPostgresSinkExactlyOnce sinks a grouped view (upsert by key) and an
// append-only stream of events (plain inserts into a table without a key,
// where a change delivered twice would show) into a PostgreSQL 15 started
// by the test, while a writer keeps changing their tables and the server
// is killed with SIGKILL twice and the sinks rescale. Once the writer stops, the targets catch
// up with exactly the view's rows and each acknowledged event once.
func TestPostgresSinkExactlyOnce(t *testing.T) {
	dsn, pg := startSinkTargets(t)
	dir, addr, p := startPrepared(t, sinkSetup(dsn)...)
	events, p := sinkWorkload(t, dir, addr, p, "agg_sink", "ev_sink")
	t.Cleanup(p.kill)
	c := connect(t, addr, pgx.QueryExecModeCacheStatement)
	want := queryStrings(t, c, "SELECT k, n, s::bigint FROM mv ORDER BY k")
	checkSinkTargets(t, pg, want, events)
	t.Logf("%d view rows and %d events delivered exactly once across 2 kills and 6 rescales", len(want), len(events))
}

// sinkWorkload runs three rounds of writes into the tables t (upserts
// and deletes by id) and ev (inserts) on the server p (data directory dir,
// address addr): after each, the sinks aggSink and evSink rescale and,
// after the first two, the server is killed with SIGKILL and restarted.
// It returns the ids of the acknowledged events, in order, and the
// running server.
func sinkWorkload(t *testing.T, dir, addr string, p *process, aggSink, evSink string) ([]int64, *process) {
	t.Helper()
	ctx := context.Background()
	var events []int64
	next := int64(0)
	rng := rand.New(rand.NewPCG(7, 1))
	for round := range 3 {
		c := connect(t, addr, pgx.QueryExecModeCacheStatement)
		deadline := time.Now().Add(1500 * time.Millisecond)
		for time.Now().Before(deadline) {
			var err error
			switch id := rng.IntN(100); rng.IntN(4) {
			case 0:
				next++
				if _, err = c.Exec(ctx, "INSERT INTO ev VALUES ($1, $2)", next, rng.IntN(1000)); err == nil {
					events = append(events, next)
				}
			case 1:
				_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", id)
			default:
				_, err = c.Exec(ctx, "INSERT INTO t VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET k = excluded.k, v = excluded.v", id, rng.IntN(8), rng.IntN(100))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		// The sinks' jobs rescale while the writer waits: their vnodes
		// and what is still to deliver move between actors.
		if _, err := c.Exec(ctx, fmt.Sprintf("ALTER SINK %s SET PARALLELISM = %d", aggSink, 3-round)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, fmt.Sprintf("ALTER SINK %s SET PARALLELISM = %d", evSink, round+2)); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
		if round < 2 {
			p.kill()
			p = startProcess(t, dir, addr)
		}
	}
	return events, p
}

// queryStrings returns the rows of query, each as its values joined by
// spaces.
func queryStrings(t *testing.T, c *pgx.Conn, query string) []string {
	t.Helper()
	rows, err := c.Query(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDiff describes where got first departs from want.
func firstDiff(got, want []int64) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: %d, want %d", i, got[i], want[i])
		}
	}
	n := min(len(got), len(want))
	return fmt.Sprintf("lengths %d and %d, extra %v%v", len(got), len(want), got[n:], want[n:])
}

// TestClusterSinks runs an upsert and an append-only PostgreSQL sink on a
// three-node cluster while a writer changes their tables: the sinks
// spread over the nodes and back (ALTER SINK ... SET PARALLELISM), and the
// node of their first actors is drained, so that key groups and what is
// still to deliver move between nodes. The targets end up with exactly the
// view's rows and each acknowledged event once.
func TestClusterSinks(t *testing.T) {
	ctx := context.Background()
	dsn, pg := startSinkTargets(t)
	nodes := startCluster(t, 3)
	conns := connectCluster(t, nodes, pgx.QueryExecModeSimpleProtocol)
	for _, stmt := range append([]string{"ALTER SYSTEM SET barrier_interval_ms = 100"}, sinkSetup(dsn)...) {
		mustExec(t, conns[0], stmt)
	}
	// The writer stops between statements, never inside one: a statement
	// cancelled in flight may still commit, and its event would be
	// delivered without being acknowledged.
	var stopping atomic.Bool
	var events []int64
	writerDone := make(chan error, 1)
	go func() {
		c := connect(t, nodes[1].addr, pgx.QueryExecModeSimpleProtocol)
		rng := rand.New(rand.NewPCG(8, 2))
		next := int64(0)
		stmts, retried := 0, 0
		start := time.Now()
		for !stopping.Load() {
			stmts++
			var err error
			id := next + 1
			switch rng.IntN(4) {
			case 0:
				if _, err = c.Exec(ctx, "INSERT INTO ev VALUES ($1, $2)", id, rng.IntN(1000)); err == nil {
					next = id
					events = append(events, id)
				}
			case 1:
				_, err = c.Exec(ctx, "DELETE FROM t WHERE id = $1", rng.IntN(200))
			default:
				_, err = c.Exec(ctx, "INSERT INTO t VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET k = excluded.k, v = excluded.v", rng.IntN(200), rng.IntN(8), rng.IntN(100))
			}
			switch code := sqlState(err); {
			case code == "40001" || code == "57P03":
				// Rolled back by the recovery that moves first actors:
				// not acknowledged (an event id is written again).
				retried++
				time.Sleep(20 * time.Millisecond)
			case err != nil:
				writerDone <- err
				return
			}
		}
		t.Logf("writer: %d statements in %v, %d rolled back and retried", stmts, time.Since(start).Round(time.Millisecond), retried)
		writerDone <- nil
	}()
	h := spreadAndDrain(t, nodes, conns, []string{"agg_sink", "ev_sink"}, time.Second,
		"ALTER SINK agg_sink SET PARALLELISM = 3",
		"ALTER SINK ev_sink SET PARALLELISM = 5 WITH (step = 16)",
		"ALTER SINK agg_sink SET PARALLELISM = 6 WITH (strategy = 'all_at_once')",
		"ALTER SINK ev_sink SET PARALLELISM = 2")
	time.Sleep(500 * time.Millisecond)
	stopping.Store(true)
	if err := <-writerDone; err != nil {
		t.Fatal(err)
	}
	want := queryStrings(t, conns[0], "SELECT k, n, s FROM mv ORDER BY k")
	checkSinkTargets(t, pg, want, events)
	t.Logf("%d view rows and %d events delivered exactly once across rescales between nodes and a drain of %s", len(want), len(events), nodes[h].flags[1])
}

// checkSinkTargets waits up to a minute for the PostgreSQL targets of the
// sink tests to catch up, then checks that agg (k, n, s) holds the view's
// rows want and events each acknowledged event once, in id order.
func checkSinkTargets(t *testing.T, pg *pgx.Conn, want []string, events []int64) {
	t.Helper()
	ctx := context.Background()
	var got []string
	var gotEvents []int64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		got = queryStrings(t, pg, "SELECT k, n, s FROM agg ORDER BY k")
		rows, err := pg.Query(ctx, "SELECT id FROM events ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		if gotEvents, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
			t.Fatal(err)
		}
		if slices.Equal(got, want) && len(gotEvents) >= len(events) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("target agg:\n%v\nwant the view's rows:\n%v", got, want)
	}
	if !slices.Equal(gotEvents, events) {
		t.Fatalf("target events: %d rows, want the %d acknowledged events each once (first differences: %v)", len(gotEvents), len(events), firstDiff(gotEvents, events))
	}
}

// sinkSetup are the statements that create the sink tests' tables t and
// ev, the view mv over t, and the sinks agg_sink (upsert of mv) and
// ev_sink (append-only of ev) into the targets at dsn.
func sinkSetup(dsn string) []string {
	return []string{
		"CREATE TABLE t (id BIGINT PRIMARY KEY, k INT, v BIGINT)",
		"CREATE TABLE ev (id BIGINT PRIMARY KEY, v BIGINT)",
		"INSERT INTO t VALUES (1, 1, 10), (2, 2, 20)",
		"CREATE MATERIALIZED VIEW mv AS SELECT k, count(*) AS n, sum(v)::bigint AS s FROM t GROUP BY k",
		fmt.Sprintf("CREATE SINK agg_sink FROM mv WITH (connector = 'postgres', url = '%s', table = 'agg', type = 'upsert', primary_key = 'k')", dsn),
		fmt.Sprintf("CREATE SINK ev_sink AS SELECT id, v FROM ev WITH (connector = 'postgres', url = '%s', table = 'events', type = 'append-only', force_append_only = 'true')", dsn),
	}
}

// startSinkTargets starts the PostgreSQL of the sink tests with their
// target tables agg (k, n, s) and events (id, v) and returns its DSN and a
// connection to it.
func startSinkTargets(t *testing.T) (string, *pgx.Conn) {
	t.Helper()
	dsn := testkit.StartPostgres(t)
	pg := connectPostgres(t, dsn)
	for _, stmt := range []string{
		"CREATE TABLE agg (k int PRIMARY KEY, n bigint, s bigint)",
		"CREATE TABLE events (id bigint, v bigint)",
	} {
		if _, err := pg.Exec(context.Background(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	return dsn, pg
}
