package planner_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// catalog is the test catalog, created once per test binary:
//
//	t (a int4 PRIMARY KEY, b int4, c text, n numeric(10,2), f float8, ts timestamp)
//	u (a int4, x int8, y varchar(10)) with a hidden row id
//	w (a int4, c text NOT NULL DEFAULT 'none')
//	v: VIEW AS SELECT a, c FROM t
//	e (k int8, v int4, s text), append-only, with a hidden row id
//	mv: MATERIALIZED VIEW (b int4, cnt int8) with primary key b
//	src: SOURCE (k int8) with a hidden row id, from connector datagen
var catalog *meta.Catalog

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "planner-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	md, err := meta.Open(meta.Config{Dir: dir, RaftAddr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer md.Close()
	col := func(name string, t types.T) meta.Column { return meta.Column{Name: name, Type: t} }
	tables := []*meta.Table{
		{Name: "t", Kind: meta.KindTable, PK: []int{0}, Columns: []meta.Column{
			col("a", types.TInt4), col("b", types.TInt4), col("c", types.TText),
			col("n", types.T{Family: types.Numeric, Mod: 10<<16 | 2}), col("f", types.TFloat8), col("ts", types.TTimestamp)}},
		{Name: "u", Kind: meta.KindTable, HiddenRowID: true, Columns: []meta.Column{
			col("a", types.TInt4), col("x", types.TInt8), col("y", types.T{Family: types.Varchar, Mod: 10})}},
		{Name: "w", Kind: meta.KindTable, HiddenRowID: true, Columns: []meta.Column{
			col("a", types.TInt4), {Name: "c", Type: types.TText, NotNull: true, Default: "'none'"}}},
		{Name: "v", Kind: meta.KindView, ViewSQL: "SELECT a, c FROM t", Columns: []meta.Column{
			col("a", types.TInt4), col("c", types.TText)}},
		{Name: "e", Kind: meta.KindTable, HiddenRowID: true, AppendOnly: true, Columns: []meta.Column{
			col("k", types.TInt8), col("v", types.TInt4), col("s", types.TText)}},
		{Name: "mv", Kind: meta.KindMaterializedView, PK: []int{0}, Columns: []meta.Column{
			col("b", types.TInt4), col("cnt", types.TInt8)}},
		{Name: "src", Kind: meta.KindSource, HiddenRowID: true, AppendOnly: true, Options: map[string]string{"connector": "datagen"},
			Columns: []meta.Column{col("k", types.TInt8)}},
	}
	for _, t := range tables {
		if _, err := md.CreateTable(context.Background(), t, false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	catalog = md.Catalog()
	return m.Run()
}

// parse parses one statement.
func parse(t *testing.T, sql string) *parser.Statement {
	t.Helper()
	stmts, err := parser.Parse(sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	if len(stmts) != 1 || stmts[0].AST == nil {
		t.Fatalf("parse %q: want one query", sql)
	}
	return stmts[0]
}

// bindQuery binds a query with the given declared parameter types.
func bindQuery(t *testing.T, sql string, params ...types.T) (planner.Node, *planner.Binder, error) {
	t.Helper()
	st := parse(t, sql)
	b := planner.NewBinder(catalog, params)
	b.SetNumParams(st.NumParams)
	n, err := b.BindQuery(st.AST)
	return n, b, err
}

// mustBind binds a query that must be valid.
func mustBind(t *testing.T, sql string) planner.Node {
	t.Helper()
	n, _, err := bindQuery(t, sql)
	if err != nil {
		t.Fatalf("bind %q: %v", sql, err)
	}
	return n
}
