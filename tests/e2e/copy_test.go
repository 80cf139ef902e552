package e2e

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/tests/testkit"
)

// TestPgxCopyFrom copies rows of every wire type with pgx's CopyFrom (COPY
// ... FROM STDIN BINARY) and reads them back; the view over the table is
// fresh once the COPY is acknowledged, and a duplicate key fails the whole
// COPY with 23505.
func TestPgxCopyFrom(t *testing.T) {
	n := testkit.StartNode(t)
	ctx := context.Background()
	conn := connect(t, n.Addr(), pgx.QueryExecModeCacheStatement)
	for _, stmt := range []string{createTyped, "CREATE MATERIALIZED VIEW typed_count AS SELECT count(*) AS n, sum(id) AS ids FROM typed"} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	columns := []string{"id", "b", "i2", "i4", "i8", "f4", "f8", "num", "txt", "vc", "bin", "d", "ts", "tstz", "iv",
		"ints", "bigs", "texts", "floats", "bools"}
	rows := [][]any{sampleRow(1).args(), sampleRow(2).args(), sampleRow(3).args()}
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"typed"}, columns, pgx.CopyFromRows(rows))
	if err != nil || copied != 3 {
		t.Fatalf("copy: %d rows, %v", copied, err)
	}
	var count, ids int64
	if err := conn.QueryRow(ctx, "SELECT n, ids FROM typed_count").Scan(&count, &ids); err != nil || count != 3 || ids != 6 {
		t.Fatalf("view after the copy: %d rows, ids sum %d, %v", count, ids, err)
	}
	var got typedRow
	if err := conn.QueryRow(ctx, "SELECT * FROM typed WHERE id = 2").Scan(got.dest()...); err != nil {
		t.Fatal(err)
	}
	checkRow(t, "copy", got, sampleRow(2))

	_, err = conn.CopyFrom(ctx, pgx.Identifier{"typed"}, []string{"id"}, pgx.CopyFromRows([][]any{{int64(4)}, {int64(1)}}))
	if code := sqlState(err); code != "23505" {
		t.Fatalf("duplicate key: %v (SQLSTATE %q), want 23505", err, code)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM typed").Scan(&count); err != nil || count != 3 {
		t.Fatalf("after the failed copy: %d rows, %v", count, err)
	}
}

// TestPsqlCopy feeds COPY ... FROM STDIN in the text and CSV formats from
// psql's standard input.
func TestPsqlCopy(t *testing.T) {
	n := testkit.StartNode(t)
	if out, err := psql(t, n.Addr(), "CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT, qty INT DEFAULT 7)"); err != nil {
		t.Fatalf("psql: %v\n%s", err, out)
	}
	copyIn := func(command, data string) (string, error) {
		host, port, _ := net.SplitHostPort(n.Addr())
		cmd := exec.Command("psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", host, "-p", port, "-U", "tester", "-d", "streamdb", "-c", command)
		cmd.Stdin = strings.NewReader(data)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, c := range []struct{ command, data, want string }{
		{"COPY t FROM STDIN", "1\tone\t1\n2\t\\N\t\\N\n3\ttab\\there\t3\n\\.\n", "COPY 3\n"},
		{"COPY t (id, name) FROM STDIN WITH (FORMAT csv, HEADER)", "id,name\n4,\"a, \"\"quoted\"\" name\"\n5,\n", "COPY 2\n"},
	} {
		if out, err := copyIn(c.command, c.data); err != nil || out != c.want {
			t.Fatalf("%s: %v\n%q, want %q", c.command, err, out, c.want)
		}
	}
	out, err := psql(t, n.Addr(), "SELECT id, coalesce(name, 'NULL'), coalesce(qty, -1) FROM t ORDER BY id")
	want := "1|one|1\n2|NULL|-1\n3|tab\there|3\n4|a, \"quoted\" name|7\n5|NULL|7\n"
	if err != nil || out != want {
		t.Fatalf("rows copied: %v\n%q, want %q", err, out, want)
	}
	out, err = copyIn("COPY t FROM STDIN", "6\tsix\tlots\n")
	if err == nil || !strings.Contains(out, `invalid input syntax for type integer: "lots"`) || !strings.Contains(out, "COPY t, line 1, column qty") {
		t.Fatalf("bad value: err=%v output %q", err, out)
	}
}
