package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// freeAddr returns a loopback address whose port is free now, picked
// below the kernel's ephemeral range (32768 and up on Linux): a port from
// that range may go to some socket's outgoing connection before the
// server binds it, which a loaded machine running many tests does. Here
// only a test's own bind can take it, and this process hands none out
// twice.
func freeAddr(t testing.TB) string {
	t.Helper()
	for range 1000 {
		port := 20000 + rand.IntN(12000)
		if _, taken := handedOut.LoadOrStore(port, true); taken {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		ln.Close()
		return ln.Addr().String()
	}
	t.Fatal("no free port between 20000 and 32000 on 127.0.0.1")
	return ""
}

// handedOut holds the ports freeAddr returned.
var handedOut sync.Map

// TestKill9KeepsAcknowledgedRows inserts rows into a server process, kills
// it with SIGKILL right after the acknowledgements, restarts it on the same
// data directory and finds every row (and the catalog) again.
func TestKill9KeepsAcknowledgedRows(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	ctx := context.Background()
	p := startProcess(t, dir, addr)

	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE log (msg TEXT)"); err != nil {
		t.Fatal(err)
	}
	const rounds = 3
	acked := 0
	for round := 0; round < rounds; round++ {
		for i := 0; i < 50; i++ {
			id := round*1000 + i
			if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1, $2)", id, fmt.Sprint("row", id)); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, "INSERT INTO log VALUES ($1)", fmt.Sprint("m", id)); err != nil {
				t.Fatal(err)
			}
			acked++
		}
		conn.Close(ctx)
		p.kill()
		p = startProcess(t, dir, addr)
		if conn, err = pgx.Connect(ctx, testkit.ConnString(addr)); err != nil {
			t.Fatal(err)
		}
		var n, logs int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM log").Scan(&logs); err != nil {
			t.Fatal(err)
		}
		if n != acked || logs != acked {
			t.Fatalf("after kill -9 #%d: %d rows in t and %d in log, want %d", round+1, n, logs, acked)
		}
	}
	// Hidden row ids stay unique across restarts: no insert collides.
	if _, err := conn.Exec(ctx, "INSERT INTO log VALUES ('after')"); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	p.kill()
}

// TestSecondServerRefusesDataDir checks that a data directory in use is
// refused with a message that names it.
func TestSecondServerRefusesDataDir(t *testing.T) {
	dir := t.TempDir()
	p := startProcess(t, dir, freeAddr(t))
	defer p.kill()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary(t), "start", "--listen", freeAddr(t), "--cluster-addr", "127.0.0.1:0", "--data-dir", dir).CombinedOutput()
	if err == nil {
		t.Fatalf("second server started on a data directory in use:\n%s", out)
	}
	if !strings.Contains(string(out), "in use by another streamdb process") {
		t.Fatalf("unclear refusal:\n%s", out)
	}
}

// startPrepared starts a server process on a fresh data directory and
// runs stmts on it.
func startPrepared(t testing.TB, stmts ...string) (dir, addr string, p *process) {
	t.Helper()
	dir, addr = t.TempDir(), freeAddr(t)
	p = startProcess(t, dir, addr)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return dir, addr, p
}

// restartedAfterKill runs stmts on a fresh server process, kills it with
// SIGKILL, restarts it on the same data directory and returns a
// connection to the restarted server, which stops when the test ends.
func restartedAfterKill(t *testing.T, stmts ...string) *pgx.Conn {
	t.Helper()
	dir, addr, p := startPrepared(t, stmts...)
	p.kill()
	p = startProcess(t, dir, addr)
	t.Cleanup(p.kill)
	return connect(t, addr, pgx.QueryExecModeCacheStatement)
}

// TestKill9WithViews runs a writer that records each id once its INSERT is
// acknowledged, kills the server with SIGKILL at random moments while it
// writes, restarts it several times, and checks at the end that every
// acknowledged row is in the table and that the views over it agree
// exactly with the table (nothing lost, nothing applied twice).
func TestKill9WithViews(t *testing.T) {
	ctx := context.Background()
	dir, addr, p := startPrepared(t,
		"CREATE TABLE t (id BIGINT PRIMARY KEY, g INT)",
		"CREATE MATERIALIZED VIEW totals AS SELECT count(*) AS n, sum(id) AS s FROM t",
		"CREATE MATERIALIZED VIEW per_g WITH (parallelism = 2) AS SELECT g, count(*) AS n FROM t GROUP BY g",
	)
	rng := rand.New(rand.NewPCG(1, 2))
	acked := map[int64]bool{}
	next := int64(1)
	for round := 0; round < 4; round++ {
		// The writer runs until the server dies under it.
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
				if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1, $2)", id, id%5); err != nil {
					return
				}
				acked[id] = true
				next++
			}
		}()
		time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond)
		p.kill()
		<-done
		next++ // the id in flight may or may not have been committed
		p = startProcess(t, dir, addr)
	}
	defer p.kill()
	conn, err := pgx.Connect(ctx, testkit.ConnString(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, "SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	present := map[int64]bool{}
	var wantN, wantS int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		present[id] = true
		wantN++
		wantS += id
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id := range acked {
		if !present[id] {
			t.Fatalf("acknowledged row %d is missing after kill -9", id)
		}
	}
	var n, s int64
	if err := conn.QueryRow(ctx, "SELECT n, s FROM totals").Scan(&n, &s); err != nil {
		t.Fatal(err)
	}
	if n != wantN || s != wantS {
		t.Fatalf("view totals = (%d, %d), table has count %d and sum %d", n, s, wantN, wantS)
	}
	var groups int64
	if err := conn.QueryRow(ctx, "SELECT sum(n) FROM per_g").Scan(&groups); err != nil {
		t.Fatal(err)
	}
	if groups != wantN {
		t.Fatalf("view per_g counts %d rows, table has %d", groups, wantN)
	}
	t.Logf("%d rows acknowledged, %d present, over 4 kills", len(acked), wantN)
}
