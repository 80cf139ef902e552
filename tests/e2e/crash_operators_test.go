package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// statefulViews are views of every stateful operator beyond aggregation
// and equi-joins, each the query whose answer over the tables it must
// hold: semi and anti joins (subqueries), set operations, DISTINCT ON
// (group Top-N), window functions (OverWindow), grouping sets (Expand),
// non-equi joins (one key group), comparisons with a one-row side
// (DynamicFilter: a scalar subquery, a cross join, = with a LIMIT 1),
// session frames.
var statefulViews = []struct{ name, query string }{
	{"semi", "SELECT id, v FROM t WHERE g IN (SELECT g FROM u)"},
	{"anti", "SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.g = t.g)"},
	{"t_except_u", "SELECT g FROM t EXCEPT ALL SELECT g FROM u"},
	{"t_intersect_u", "SELECT g FROM t INTERSECT SELECT g FROM u"},
	{"distinct_on", "SELECT DISTINCT ON (g) g, id, v FROM t ORDER BY g, v DESC, id"},
	{"windows", "SELECT id, g, sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM t"},
	{"rollup", "SELECT g, v % 3 AS m, count(*) AS n FROM t GROUP BY ROLLUP (g, v % 3)"},
	{"band_join", "SELECT t.id AS tid, u.id AS uid FROM t JOIN u ON t.v BETWEEN u.id AND u.id + 2"},
	{"above_avg", "SELECT id FROM t WHERE v > (SELECT avg(v) FROM t)"},
	{"below_max_g", "SELECT id FROM t, (SELECT max(g) m FROM u) s WHERE v <= m"},
	{"top_g", "SELECT id FROM t WHERE v = (SELECT g FROM u ORDER BY g DESC, id LIMIT 1)"},
	{"sessions", "SELECT id, p, first_value(ts) OVER (PARTITION BY p ORDER BY ts SESSION WITH GAP INTERVAL '3 seconds') AS s FROM ev"},
}

// closedViews are EMIT ON WINDOW CLOSE views over ev (EowcOverWindow):
// once the watermark has passed every row but the final ones, each must
// hold its query's rows before them.
var closedViews = []struct{ name, query string }{
	{"closed_lag", "SELECT id, p, ts, lag(id) OVER (PARTITION BY p ORDER BY ts, id) AS prev FROM ev"},
	{"closed_sessions", "SELECT id, p, ts, count(*) OVER (PARTITION BY p ORDER BY ts SESSION WITH GAP INTERVAL '3 seconds') AS n FROM ev"},
}

// TestKill9StatefulViews keeps the views of statefulViews (at parallelism
// 1 and 2) under random inserts, updates and deletes of their tables while
// four writers run and the server is killed with SIGKILL at random moments and restarted, and
// rescaled once between kills; at the end each view must hold exactly its
// query's answer over the tables: the state of every operator came back
// from its checkpoint, with nothing lost or applied twice.
func TestKill9StatefulViews(t *testing.T) {
	ctx := context.Background()
	setup := []string{
		"CREATE TABLE t (id INT PRIMARY KEY, g INT, v INT)",
		"CREATE TABLE u (id INT PRIMARY KEY, g INT)",
		// Rows of ev come with growing times; the watermark trails them
		// by an hour, so that no writer's row is late.
		"CREATE TABLE ev (id BIGINT, p INT, ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1 hour') APPEND ONLY",
		"ALTER SYSTEM SET barrier_interval_ms = 100",
	}
	views := append(statefulViews[:len(statefulViews):len(statefulViews)], closedViews...)
	for i, v := range views {
		eowc := ""
		if i >= len(statefulViews) {
			eowc = " EMIT ON WINDOW CLOSE"
		}
		setup = append(setup, fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = %d) AS %s%s", v.name, 1+i%2, v.query, eowc))
	}
	dir, addr, p := startPrepared(t, setup...)
	rng := rand.New(rand.NewPCG(3, 4))
	var acked atomic.Int64
	for round := 0; round < 4; round++ {
		var writers sync.WaitGroup
		for range 4 {
			seed := rng.Uint64()
			writers.Go(func() { acked.Add(writeRandomly(ctx, addr, seed)) })
		}
		time.Sleep(time.Duration(300+rng.IntN(600)) * time.Millisecond)
		if round == 1 {
			conn := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
			for i, v := range views {
				if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER MATERIALIZED VIEW %s SET PARALLELISM = %d", v.name, 3-i%2)); err != nil {
					t.Fatalf("rescale %s: %v", v.name, err)
				}
			}
			conn.Close(ctx)
		}
		p.kill()
		writers.Wait()
		p = startProcess(t, dir, addr)
	}
	defer p.kill()
	conn := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	// Rows per partition a day and two days after the others move the
	// watermark past all of them and past the next row of each partition:
	// every window of the closed views closes (a session when the row
	// after it has passed the watermark).
	final := "INSERT INTO ev SELECT 1000000000 + 10 * d + p, p, TIMESTAMP '2024-01-01' + d * INTERVAL '1 day' FROM generate_series(0, 3) p, generate_series(1, 2) d"
	for _, stmt := range []string{final, "FLUSH"} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var rows int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows == 0 {
		t.Fatal("the writers left no rows in t")
	}
	for _, v := range statefulViews {
		t.Run(v.name, func(t *testing.T) {
			want := rowsOf(t, conn, v.query)
			sameRows(t, "view", rowsOf(t, conn, "SELECT * FROM "+v.name), "query", want)
		})
	}
	for _, v := range closedViews {
		t.Run(v.name, func(t *testing.T) {
			const before = " WHERE ts < TIMESTAMP '2024-01-02'"
			want := rowsOf(t, conn, "SELECT * FROM ("+v.query+") q"+before)
			sameRows(t, "view", rowsOf(t, conn, "SELECT * FROM "+v.name+before), "query", want)
		})
	}
	t.Logf("%d statements acknowledged, %d rows in t after 4 kills", acked.Load(), rows)
}

// evClock numbers the rows of ev, which take their times from it.
var evClock atomic.Int64

// writeRandomly runs transactions of random inserts, updates and deletes
// on t and u, and inserts into ev, at addr, drawn from seed, until the server goes away, and
// returns how many were acknowledged.
func writeRandomly(ctx context.Context, addr string, seed uint64) (acked int64) {
	c, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		return 0
	}
	defer c.Close(ctx)
	rng := rand.New(rand.NewPCG(seed, 1))
	for {
		var stmt string
		switch k, id := rng.IntN(12), rng.IntN(200); {
		case k >= 10:
			// Seconds since the start, so that rows come in time order.
			n := evClock.Add(1)
			stmt = fmt.Sprintf("INSERT INTO ev VALUES (%d, %d, TIMESTAMP '2024-01-01' + %d * INTERVAL '1 second')", n, rng.IntN(4), n+int64(rng.IntN(3)))
		case k < 5:
			stmt = fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d) ON CONFLICT (id) DO UPDATE SET v = excluded.v", id, rng.IntN(6), rng.IntN(50))
		case k < 6:
			stmt = fmt.Sprintf("UPDATE t SET g = %d WHERE id %% 7 = %d", rng.IntN(6), rng.IntN(7))
		case k < 7:
			stmt = fmt.Sprintf("DELETE FROM t WHERE id %% 11 = %d", rng.IntN(11))
		case k < 9:
			stmt = fmt.Sprintf("INSERT INTO u VALUES (%d, %d) ON CONFLICT (id) DO UPDATE SET g = excluded.g", rng.IntN(60), rng.IntN(8))
		default:
			stmt = fmt.Sprintf("DELETE FROM u WHERE id %% 5 = %d", rng.IntN(5))
		}
		if _, err := c.Exec(ctx, stmt); err != nil {
			return acked
		}
		acked++
	}
}
