package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestKill9KeepsWatermarks closes windows of an EMIT ON WINDOW CLOSE view,
// kills the server with SIGKILL, restarts it and checks that the table's
// watermark resumed where the last committed epoch left it: a row for a
// closed window is late (dropped), no closed window is emitted twice, and
// the open window kept its rows.
func TestKill9KeepsWatermarks(t *testing.T) {
	ctx := context.Background()
	conn := restartedAfterKill(t,
		"CREATE TABLE ev (ts TIMESTAMP, v INT, WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE) APPEND ONLY",
		"CREATE MATERIALIZED VIEW w WITH (parallelism = 2) AS SELECT window_start, count(*) AS n, sum(v) AS s FROM TUMBLE(ev, ts, INTERVAL '1' MINUTE) GROUP BY window_start EMIT ON WINDOW CLOSE",
		"INSERT INTO ev VALUES ('2024-01-01 10:00:10', 1), ('2024-01-01 10:00:50', 2), ('2024-01-01 10:01:30', 4)",
		// The watermark 10:02 closes 10:00 and 10:01; 10:03 stays open.
		"INSERT INTO ev VALUES ('2024-01-01 10:03:00', 8)",
	)
	for _, stmt := range []string{
		"INSERT INTO ev VALUES ('2024-01-01 10:00:30', 100)",
		"INSERT INTO ev VALUES ('2024-01-01 10:03:40', 16)",
		"INSERT INTO ev VALUES ('2024-01-01 10:05:00', 32)",
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	rows, err := conn.Query(ctx, "SELECT window_start::text, n, s FROM w ORDER BY window_start")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var ws string
		var n, s int64
		if err := rows.Scan(&ws, &n, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(ws, " ", n, " ", s))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := "2024-01-01 10:00:00 2 3\n2024-01-01 10:01:00 1 4\n2024-01-01 10:03:00 2 24"
	if strings.Join(got, "\n") != want {
		t.Fatalf("after kill -9 the view is\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	var late int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM ev WHERE v = 100").Scan(&late); err != nil {
		t.Fatal(err)
	}
	if late != 0 {
		t.Fatal("a row below the resumed watermark was stored")
	}
}
