package metrics

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/streamdb/streamdb/pgwire"
)

func TestKindAndObject(t *testing.T) {
	// object is Object's answer, for DDL.
	tests := []struct{ text, kind, object string }{
		{"SELECT 1", "select", ""},
		{"  with x AS (SELECT 1) SELECT * FROM x", "select", ""},
		{"(SELECT 1) UNION (SELECT 2)", "select", ""},
		{"INSERT INTO t VALUES (1)", "insert", ""},
		{"update t SET v = 1", "update", ""},
		{"DELETE FROM t", "delete", ""},
		{"CREATE MATERIALIZED VIEW mv AS SELECT 1", "ddl", "mv"},
		{"CREATE TABLE IF NOT EXISTS public.t (a int)", "ddl", "public.t"},
		{"create table t(a int)", "ddl", "t"},
		{"DROP MATERIALIZED VIEW IF EXISTS mv CASCADE", "ddl", "mv"},
		{"ALTER MATERIALIZED VIEW mv SET PARALLELISM = 3", "ddl", "mv"},
		{"CREATE OR REPLACE FUNCTION f(int) RETURNS int AS $$$$", "ddl", "f"},
		{"DROP TABLE", "ddl", ""},
		{"COPY t FROM STDIN", "copy", ""},
		{"SUBSCRIBE TO mv", "subscribe", ""},
		{"BEGIN", "transaction", ""},
		{"commit;", "transaction", ""},
		{"SET application_name = x", "set", ""},
		{"SHOW JOBS", "show", ""},
		{"FLUSH", "other", ""},
		{"", "other", ""},
	}
	for _, tt := range tests {
		if got := Kind(tt.text); got != tt.kind {
			t.Errorf("Kind(%q) = %q, want %q", tt.text, got, tt.kind)
		}
		if tt.kind != "ddl" {
			continue
		}
		if got := Object(tt.text); got != tt.object {
			t.Errorf("Object(%q) = %q, want %q", tt.text, got, tt.object)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"SELECT 1", 20, "SELECT 1"},
		{"SELECT\n\t  1", 20, "SELECT 1"},
		{"SELECT 'abcdef'", 8, "SELECT '..."},
		{"SELECT 'ééé'", 10, "SELECT 'é..."},
	}
	for _, tt := range tests {
		if got := truncate(tt.in, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestOnStatement(t *testing.T) {
	var buf bytes.Buffer
	s := NewStatements(slog.New(slog.NewTextHandler(&buf, nil)), time.Second)
	done := []pgwire.StatementDone{
		{User: "u", Text: "SELECT 1", Tag: "SELECT 1", Duration: time.Millisecond},
		{User: "u", Text: "SELECT 2", Tag: "SELECT 1", Duration: time.Millisecond},
		{User: "u", Text: "SELECT * FROM nope", Code: "42P01", Duration: time.Millisecond},
		{User: "u", Text: "CREATE TABLE t (a int)", Tag: "CREATE TABLE", Duration: time.Millisecond},
		{User: "u", Text: "INSERT INTO t SELECT * FROM generate_series(1, 1000000)", Tag: "INSERT 0 1000000", Duration: 2 * time.Second},
	}
	for _, d := range done {
		s.OnStatement(d)
	}
	counts := []struct {
		kind, class string
		want        float64
	}{
		{"select", "00", 2}, {"select", "42", 1}, {"ddl", "00", 1}, {"insert", "00", 1}, {"update", "00", 0},
	}
	for _, c := range counts {
		if got := testutil.ToFloat64(s.vec.WithLabelValues(c.kind, c.class)); got != c.want {
			t.Errorf("statements{kind=%s,class=%s} = %v, want %v", c.kind, c.class, got, c.want)
		}
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `msg=ddl command="CREATE TABLE" object=t user=u`) ||
		!strings.Contains(lines[1], `msg="slow statement" kind=insert`) {
		t.Errorf("want one DDL line and one slow statement line, got:\n%s", buf.String())
	}
}
