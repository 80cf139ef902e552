package sql_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/node"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/types"
)

var quiet = slog.New(slog.DiscardHandler)

// testNode is a single-node streamdb (catalog, state store, streaming and
// SQL engine) in a temporary directory.
type testNode struct {
	t   *testing.T
	dir string
	n   *node.Node
	e   *sql.Engine
}

func openNode(t *testing.T) *testNode {
	t.Helper()
	n := &testNode{t: t, dir: t.TempDir()}
	n.start()
	t.Cleanup(n.stop)
	return n
}

// start starts the node over its directory.
func (n *testNode) start() {
	n.t.Helper()
	nd, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: n.dir, Logger: quiet})
	if err != nil {
		n.t.Fatal(err)
	}
	n.n, n.e = nd, nd.Engine()
}

// stop closes the node.
func (n *testNode) stop() {
	if err := n.n.Close(); err != nil {
		n.t.Error(err)
	}
}

// restart stops the node and starts it again over the same directory, as
// after a crash-free shutdown.
func (n *testNode) restart() {
	n.stop()
	n.start()
}

// connect opens a session with the given startup parameters.
func (n *testNode) connect(params map[string]string) *sql.Session {
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

// query runs one statement through Prepare, Open and Next, then Sync, as
// pgwire runs a client's lone query.
func query(s *sql.Session, q string, params ...types.Datum) (result, error) {
	ctx := context.Background()
	stmts, err := s.Prepare(ctx, q, nil)
	if err != nil {
		return result{}, err
	}
	if len(stmts) != 1 {
		return result{}, pgerror.New(pgerror.CodeInternal, "want one statement, got %d", len(stmts))
	}
	res, err := runStatement(stmts[0], params...)
	if serr := s.Sync(ctx); err == nil {
		err = serr
	}
	return res, err
}

// runStatement runs a statement as the last before the client's Sync.
func runStatement(st pgwire.Statement, params ...types.Datum) (result, error) {
	ctx := pgwire.WithLastBeforeSync(context.Background())
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
