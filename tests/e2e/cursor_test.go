package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// TestPsqlFetchCount runs psql with FETCH_COUNT set: psql reads a large
// result through DECLARE, FETCH FORWARD 100 and CLOSE in a transaction
// of its own, and prints every row.
func TestPsqlFetchCount(t *testing.T) {
	n := testkit.StartNode(t)
	const rows = 100_000
	out, err := psql(t, n.Addr(),
		"CREATE TABLE big (id BIGINT PRIMARY KEY, name TEXT)",
		fmt.Sprintf("INSERT INTO big SELECT g, 'n' || g FROM generate_series(1, %d) AS g", rows),
		`\set FETCH_COUNT 100`,
		"SELECT id, name FROM big ORDER BY id",
		"SELECT name, is_holdable, is_scrollable FROM pg_cursors")
	if err != nil {
		t.Fatalf("psql: %v\n%.2000s", err, out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	head := []string{"CREATE TABLE", fmt.Sprintf("INSERT 0 %d", rows)}
	if len(lines) != len(head)+rows+1 || lines[0] != head[0] || lines[1] != head[1] {
		t.Fatalf("psql printed %d lines, want %d: %.500s", len(lines), len(head)+rows+1, out)
	}
	for i, line := range lines[len(head) : len(head)+rows] {
		if want := fmt.Sprintf("%d|n%d", i+1, i+1); line != want {
			t.Fatalf("row %d: %q, want %q", i+1, line, want)
		}
	}
	// The last query ran in psql's cursor too, which it lists.
	if last := lines[len(lines)-1]; last != "_psql_cursor|f|f" {
		t.Fatalf("pg_cursors under FETCH_COUNT: %q, want _psql_cursor|f|f", last)
	}
}

// TestPgxCursor declares a cursor in a pgx transaction and fetches its
// rows in pages until none is left, in the simple and extended protocols
// (a parameter of the DECLARE's query included), and a BINARY cursor.
func TestPgxCursor(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		conn := connect(t, n.Addr(), mode)
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "DECLARE c CURSOR FOR SELECT g, 'r' || g FROM generate_series(1, 1000) AS g WHERE g > $1", 10); err != nil {
			t.Fatalf("%v: DECLARE: %v", mode, err)
		}
		next, pages := int64(11), 0
		for ; ; pages++ {
			rows, err := tx.Query(ctx, "FETCH 100 FROM c")
			if err != nil {
				t.Fatalf("%v: FETCH: %v", mode, err)
			}
			got := 0
			for rows.Next() {
				var g int64
				var s string
				if err := rows.Scan(&g, &s); err != nil {
					t.Fatal(err)
				}
				if g != next || s != fmt.Sprintf("r%d", g) {
					t.Fatalf("%v: row %d, %q; want %d", mode, g, s, next)
				}
				next, got = next+1, got+1
			}
			if err := rows.Err(); err != nil {
				t.Fatalf("%v: FETCH: %v", mode, err)
			}
			if tag := rows.CommandTag().String(); tag != fmt.Sprintf("FETCH %d", got) {
				t.Fatalf("%v: tag %q after %d rows", mode, tag, got)
			}
			if got == 0 {
				break
			}
		}
		if next != 1001 || pages != 10 {
			t.Fatalf("%v: read up to %d in %d pages, want 1000 in 10", mode, next-1, pages)
		}
		// A BINARY cursor's rows come in binary over the simple protocol.
		if _, err := tx.Exec(ctx, "DECLARE bc BINARY CURSOR FOR SELECT 258::int4, 'xy'::text"); err != nil {
			t.Fatal(err)
		}
		var i int32
		var s string
		if err := tx.QueryRow(ctx, "FETCH bc").Scan(&i, &s); err != nil || i != 258 || s != "xy" {
			t.Fatalf("%v: FETCH from a BINARY cursor: %d, %q, %v", mode, i, s, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "FETCH 1 FROM c"); sqlState(err) != "34000" {
			t.Fatalf("%v: FETCH after COMMIT: %v, want 34000", mode, err)
		}
		conn.Close(ctx)
	}
}
