package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// TestKill9TemporalJoin writes into the left table of a temporal-join
// view (inserts, and deletes of earlier rows, which the join retracts from
// its memo) and kills the server with SIGKILL at random moments. After the
// restarts the view must hold each row of the table exactly once, joined
// with the dimension table, which did not change meanwhile: nothing lost,
// nothing doubled, no retraction missed. A change of the dimension table
// afterwards leaves the view alone; new rows see it.
func TestKill9TemporalJoin(t *testing.T) {
	ctx := context.Background()
	dir, addr, p := startPrepared(t,
		"CREATE TABLE d (k INT PRIMARY KEY, v INT)",
		"INSERT INTO d SELECT g, g * 10 FROM generate_series(0, 9) AS g",
		"CREATE TABLE t (id BIGINT PRIMARY KEY, k INT)",
		"CREATE MATERIALIZED VIEW tj WITH (parallelism = 2) AS "+
			"SELECT t.id, d.v FROM t LEFT JOIN d FOR SYSTEM_TIME AS OF PROCTIME() ON t.k = d.k",
	)
	rng := rand.New(rand.NewPCG(3, 4))
	next := int64(1)
	for round := 0; round < 4; round++ {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c, err := pgx.Connect(ctx, testkit.ConnString(addr))
			if err != nil {
				return
			}
			defer c.Close(ctx)
			for {
				id := next
				stmt, args := "INSERT INTO t VALUES ($1, $2)", []any{id, id % 12}
				if id%5 == 0 {
					stmt, args = "DELETE FROM t WHERE id = $1", []any{id - 3}
				}
				if _, err := c.Exec(ctx, stmt, args...); err != nil {
					return
				}
				next++
			}
		}()
		time.Sleep(time.Duration(100+rng.IntN(400)) * time.Millisecond)
		p.kill()
		<-done
		next++
		p = startProcess(t, dir, addr)
	}
	defer p.kill()
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	want := "SELECT t.id, d.v FROM t LEFT JOIN d ON t.k = d.k"
	n := checkSameRows(t, conn, "SELECT id, v FROM tj", want)
	if n < 10 {
		t.Fatalf("only %d rows written", n)
	}
	for _, stmt := range []string{"UPDATE d SET v = v + 1", fmt.Sprintf("INSERT INTO t VALUES (%d, 1)", next+1)} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	var v int64
	if err := conn.QueryRow(ctx, "SELECT v FROM tj WHERE id = $1", next+1).Scan(&v); err != nil || v != 11 {
		t.Fatalf("a new row joined v = %d (%v), want the updated 11", v, err)
	}
	checkSameRows(t, conn, fmt.Sprintf("SELECT id, v FROM tj WHERE id <> %d", next+1),
		fmt.Sprintf("SELECT t.id, d.v - 1 FROM t LEFT JOIN d ON t.k = d.k WHERE t.id <> %d", next+1))
	t.Logf("%d rows over 4 kills", n)
}

// checkSameRows fails unless queries got and want return the same rows
// (as multisets of rendered rows) and returns how many there are.
func checkSameRows(t *testing.T, conn *pgx.Conn, got, want string) int {
	t.Helper()
	read := func(q string) []string {
		rows, err := conn.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
			vals, err := r.Values()
			return fmt.Sprint(vals), err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	g, w := read(got), read(want)
	if !slices.Equal(g, w) {
		t.Fatalf("%s gives %d rows, %s %d:\n%v\nwant\n%v", got, len(g), want, len(w), g, w)
	}
	return len(g)
}

// TestTemporalJoinLargeDimensionBackfill creates a temporal-join view over
// existing rows: a dimension table of 100,000 rows, backfilled in several
// batches, and a left table of 50,000 rows backfilled at the same time.
// The server is killed with SIGKILL during a first CREATE; after the
// restart the view either does not exist (the CREATE failed) and is
// created again, or was created whole. Either way it must equal the
// batch join: no left row looked up before its match was loaded.
func TestTemporalJoinLargeDimensionBackfill(t *testing.T) {
	ctx := context.Background()
	const create = "CREATE MATERIALIZED VIEW IF NOT EXISTS tj AS " +
		"SELECT s.id, d.v FROM s JOIN d FOR SYSTEM_TIME AS OF PROCTIME() ON s.k = d.k"
	dir, addr, p := startPrepared(t,
		"CREATE TABLE d (k INT PRIMARY KEY, v INT)",
		"INSERT INTO d SELECT g, g * 10 FROM generate_series(0, 99999) AS g",
		"CREATE TABLE s (id BIGINT PRIMARY KEY, k INT)",
		"INSERT INTO s SELECT g, (g * 7919) % 100000 FROM generate_series(1, 50000) AS g",
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if c, err := pgx.Connect(ctx, testkit.ConnString(addr)); err == nil {
			_, _ = c.Exec(ctx, create)
			c.Close(ctx)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	p.kill()
	<-done
	p = startProcess(t, dir, addr)
	defer p.kill()
	conn := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	if _, err := conn.Exec(ctx, create); err != nil {
		t.Fatal(err)
	}
	if n := checkSameRows(t, conn, "SELECT id, v FROM tj", "SELECT s.id, d.v FROM s JOIN d ON s.k = d.k"); n != 50000 {
		t.Fatalf("the view has %d rows, want 50000", n)
	}
}
