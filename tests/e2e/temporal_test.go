package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestKill9TemporalFilter kills the server with SIGKILL while a row is in
// a temporal filter's window and restarts it: the row still leaves the
// view when the clock passes it, which it can only do from the filter's
// committed state, and rows that never entered stay out.
func TestKill9TemporalFilter(t *testing.T) {
	ctx := context.Background()
	conn := restartedAfterKill(t,
		"CREATE TABLE ev (id INT PRIMARY KEY, ts TIMESTAMPTZ)",
		"CREATE MATERIALIZED VIEW recent WITH (parallelism = 2) AS SELECT id FROM ev WHERE ts > now() - INTERVAL '2' SECOND",
		"INSERT INTO ev VALUES (1, now() + INTERVAL '1' SECOND), (2, now() + INTERVAL '1' HOUR), (3, now() - INTERVAL '1' HOUR)",
	)
	var ids []int32
	for deadline := time.Now().Add(time.Minute); ; {
		rows, err := conn.Query(ctx, "SELECT id FROM recent ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[int32]); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids, 3) || !slices.Contains(ids, 2) {
			t.Fatalf("after kill -9 the view holds %v", ids)
		}
		if slices.Equal(ids, []int32{2}) || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !slices.Equal(ids, []int32{2}) {
		t.Fatalf("row 1 did not leave the view after kill -9: %v", ids)
	}
}
