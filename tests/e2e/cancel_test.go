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
	done := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "SELECT pg_sleep(30)")
		done <- err
	}()
	var err error
	for {
		// Cancel until the statement is seen running (a cancel that
		// arrives before it starts is ignored, as in PostgreSQL).
		if cerr := conn.PgConn().CancelRequest(ctx); cerr != nil {
			t.Fatal(cerr)
		}
		select {
		case err = <-done:
		case <-time.After(50 * time.Millisecond):
			continue
		}
		break
	}
	if code := sqlState(err); code != "57014" {
		t.Fatalf("cancelled statement: %v (SQLSTATE %q), want 57014", err, code)
	}
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after cancel: %v %d", err, one)
	}
}
