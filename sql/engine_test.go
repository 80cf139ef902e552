package sql_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

var quiet = slog.New(slog.DiscardHandler)

const testVersion = "15.0 (streamdb test)"

// node is a single-node catalog, state store and SQL engine in a temporary
// directory.
type node struct {
	t   *testing.T
	dir string
	m   *meta.Meta
	st  *storage.Engine
	e   *sql.Engine
}

func openNode(t *testing.T) *node {
	t.Helper()
	n := &node{t: t, dir: t.TempDir()}
	m, err := meta.Open(meta.Config{Dir: filepath.Join(n.dir, "meta"), RaftAddr: "127.0.0.1:0", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	n.m = m
	n.start()
	t.Cleanup(func() {
		n.stop()
		if err := n.m.Close(); err != nil {
			t.Error(err)
		}
	})
	return n
}

// start opens the state store and an engine over it.
func (n *node) start() {
	n.t.Helper()
	st, err := storage.Open(filepath.Join(n.dir, "data"), storage.Options{Logger: quiet})
	if err != nil {
		n.t.Fatal(err)
	}
	e, err := sql.NewEngine(n.m, st, sql.Options{Version: testVersion, Logger: quiet})
	if err != nil {
		n.t.Fatal(err)
	}
	n.st, n.e = st, e
}

// stop closes the engine and the state store.
func (n *node) stop() {
	n.e.Close()
	if err := n.st.Close(); err != nil {
		n.t.Error(err)
	}
}

// restart reopens the engine over the same directory, as after a crash-free
// shutdown.
func (n *node) restart() {
	n.stop()
	n.start()
}

// connect opens a session with the given startup parameters.
func (n *node) connect(params map[string]string) *sql.Session {
	n.t.Helper()
	if params == nil {
		params = map[string]string{"user": "tester", "database": sql.DatabaseName}
	}
	s, err := n.e.Connect(context.Background(), params)
	if err != nil {
		n.t.Fatal(err)
	}
	return s.(*sql.Session)
}

// result is what one statement returned.
type result struct {
	cols []string
	rows []string // "a|b" in text format, NULL for nulls
	tag  string
}

// query runs one statement through Prepare, Open and Next.
func query(s *sql.Session, q string, params ...types.Datum) (result, error) {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return result{}, err
	}
	if len(stmts) != 1 {
		return result{}, pgerror.New(pgerror.CodeInternal, "want one statement, got %d", len(stmts))
	}
	return runStatement(stmts[0], params...)
}

func runStatement(st pgwire.Statement, params ...types.Datum) (result, error) {
	ctx := context.Background()
	var res result
	cols := st.Columns()
	for _, c := range cols {
		res.cols = append(res.cols, c.Name)
	}
	rows, err := st.Open(ctx, params)
	if err != nil {
		return res, err
	}
	defer rows.Close()
	for {
		r, err := rows.Next(ctx)
		if err != nil {
			return res, err
		}
		if r == nil {
			break
		}
		parts := make([]string, len(r))
		for i, d := range r {
			parts[i] = "NULL"
			if !d.IsNull() {
				parts[i] = string(types.FormatText(nil, cols[i].Type, d))
			}
		}
		res.rows = append(res.rows, strings.Join(parts, "|"))
	}
	res.tag = rows.Tag()
	return res, nil
}

// mustQuery runs a statement that must succeed.
func mustQuery(t *testing.T, s *sql.Session, q string, params ...types.Datum) result {
	t.Helper()
	res, err := query(s, q, params...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

// wantError checks an error's SQLSTATE, message and (if not empty) detail.
func wantError(t *testing.T, err error, code, msg, detail string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s %q", code, msg)
	}
	e := pgerror.From(err)
	if e.Code != code || e.Message != msg || (detail != "" && e.Detail != detail) {
		t.Errorf("error %s %q (detail %q), want %s %q (detail %q)", e.Code, e.Message, e.Detail, code, msg, detail)
	}
}

func TestConnect(t *testing.T) {
	n := openNode(t)
	tests := []struct {
		params map[string]string
		code   string
	}{
		{map[string]string{"user": "u", "database": sql.DatabaseName}, ""},
		{map[string]string{"user": sql.DatabaseName}, ""}, // database defaults to the user name
		{map[string]string{}, ""},
		{map[string]string{"user": "u"}, pgerror.CodeInvalidCatalogName},
		{map[string]string{"user": "u", "database": "postgres"}, pgerror.CodeInvalidCatalogName},
	}
	for _, tt := range tests {
		s, err := n.e.Connect(context.Background(), tt.params)
		if pgerror.Code(err) != tt.code {
			t.Errorf("Connect(%v): error %v, want code %q", tt.params, err, tt.code)
			continue
		}
		if err == nil && s.TxStatus() != 'I' {
			t.Errorf("Connect(%v): tx status %q, want 'I'", tt.params, s.TxStatus())
		}
	}
}

// TestStreamingFailureRecovers fails the node's streaming as a failed
// actor does: the controller recovers from the last committed epoch, a
// write during the failure waits and then applies once, and the views are
// right again.
func TestStreamingFailureRecovers(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	for _, q := range []string{
		"CREATE TABLE t (k INT PRIMARY KEY, v INT)",
		"CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n, sum(v) AS s FROM t",
		"INSERT INTO t VALUES (1, 10), (2, 20)",
	} {
		mustQuery(t, s, q)
	}
	for round := range 3 {
		n.e.FailStreaming(errors.New("injected failure"))
		mustQuery(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, 1)", 10+round))
	}
	mustQuery(t, s, "FLUSH")
	if got := mustQuery(t, s, "SELECT * FROM mv").rows; !slices.Equal(got, []string{"5|33"}) {
		t.Fatalf("view after failures = %v, want 5|33", got)
	}
}
