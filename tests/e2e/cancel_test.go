package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// TestCancelRunningStatement sends a CancelRequest (on a second connection,
// with the BackendKeyData of the first) while a statement runs, and checks
// that the statement fails with 57014 and the session stays usable.
func TestCancelRunningStatement(t *testing.T) {
	n := testkit.StartNode(t)
	conn := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	err := signalSleep(ctx, conn, func() {
		if cerr := conn.PgConn().CancelRequest(ctx); cerr != nil {
			t.Fatal(cerr)
		}
	})
	if code := sqlState(err); code != "57014" {
		t.Fatalf("cancelled statement: %v (SQLSTATE %q), want 57014", err, code)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after cancel: %v %d", err, one)
	}
}

// signalSleep runs a 30 s pg_sleep on conn and calls signal every 50 ms
// until the statement ends (a signal that arrives before it starts is
// ignored, as in PostgreSQL); it returns the statement's error.
func signalSleep(ctx context.Context, conn *pgx.Conn, signal func()) error {
	done := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "SELECT pg_sleep(30)")
		done <- err
	}()
	for {
		signal()
		select {
		case err := <-done:
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestSignalBackend has one session cancel another's statement with
// pg_cancel_backend (57014, the session goes on) and end its connection
// with pg_terminate_backend (57P01), found by pg_backend_pid.
func TestSignalBackend(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	admin := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	for _, tc := range []struct {
		fn, code string
		usable   bool
	}{{"pg_cancel_backend", "57014", true}, {"pg_terminate_backend", "57P01", false}} {
		victim := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
		var pid int32
		if err := victim.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil || pid != int32(victim.PgConn().PID()) {
			t.Fatalf("pg_backend_pid() = %d (%v), BackendKeyData says %d", pid, err, victim.PgConn().PID())
		}
		err := signalSleep(ctx, victim, func() {
			var ok bool
			if serr := admin.QueryRow(ctx, "SELECT "+tc.fn+"($1)", pid).Scan(&ok); serr != nil || !ok {
				t.Fatalf("%s(%d) = %v, %v", tc.fn, pid, ok, serr)
			}
		})
		if code := sqlState(err); code != tc.code {
			t.Fatalf("after %s: %v (SQLSTATE %q), want %s", tc.fn, err, code, tc.code)
		}
		var one int
		if err := victim.QueryRow(ctx, "SELECT 1").Scan(&one); (err == nil) != tc.usable {
			t.Fatalf("after %s the session answers %d, %v", tc.fn, one, err)
		}
	}
	var cancelled, terminated bool
	if err := admin.QueryRow(ctx, "SELECT pg_cancel_backend(999999), pg_terminate_backend(999999)").Scan(&cancelled, &terminated); err != nil || cancelled || terminated {
		t.Fatalf("signals to no backend: %v %v %v", cancelled, terminated, err)
	}
	if _, err := admin.Exec(ctx, "SELECT pg_cancel_backend(pg_backend_pid())"); sqlState(err) != "57014" {
		t.Fatalf("a session that cancels itself: %v", err)
	}
}
