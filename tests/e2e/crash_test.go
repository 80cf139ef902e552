package e2e

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestKill9KeepsAcknowledgedRows inserts rows into a server process, kills
// it with SIGKILL right after the acknowledgements, restarts it on the same
// data directory and finds every row (and the catalog) again.
func TestKill9KeepsAcknowledgedRows(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	ctx := context.Background()
	p := startProcess(t, dir, addr)

	conn, err := pgx.Connect(ctx, connString(addr))
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
		if conn, err = pgx.Connect(ctx, connString(addr)); err != nil {
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
	out, err := exec.CommandContext(ctx, binary(t), "start", "--listen", freeAddr(t), "--data-dir", dir).CombinedOutput()
	if err == nil {
		t.Fatalf("second server started on a data directory in use:\n%s", out)
	}
	if !strings.Contains(string(out), "in use by another streamdb process") {
		t.Fatalf("unclear refusal:\n%s", out)
	}
}
