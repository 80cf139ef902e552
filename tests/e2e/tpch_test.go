package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/tpch"
	"github.com/streamdb/streamdb/tests/testkit"
)

// tpchScale is the scale factor of the TPC-H views test: 60,000 lineitems.
const tpchScale = 0.01

// tpchRefused are the TPC-H queries that materialized views refuse today,
// with a word of the reason they give: the test fails when one of them is
// accepted (take it off the list) or another is refused.
var tpchRefused = map[string]string{}

// TestTPCHViews loads TPC-H data into streamdb and into PostgreSQL 15,
// creates each of q1-q22 as a materialized view, and requires its rows to
// be PostgreSQL's answer to the query; then it applies the refresh
// functions (RF1 inserts new orders with their lineitems, RF2 deletes as
// many old ones) to both and requires the views to follow.
func TestTPCHViews(t *testing.T) {
	ctx := context.Background()
	n := testkit.StartNode(t)
	conn := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	pg := connectPostgres(t, testkit.StartPostgres(t))
	both := func(sql string) {
		t.Helper()
		for _, c := range []*pgx.Conn{conn, pg} {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	copyLines := func(table string, lines []string) {
		t.Helper()
		data := strings.Join(lines, "\n") + "\n"
		for _, c := range []*pgx.Conn{conn, pg} {
			if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY "+table+" FROM STDIN"); err != nil {
				t.Fatalf("copy %s: %v", table, err)
			}
		}
	}
	g := tpch.NewGenerator(tpchScale, 1)
	for _, tb := range tpch.Tables {
		both(tb.DDL)
		if tb.Name == "orders" || tb.Name == "lineitem" {
			continue
		}
		var lines []string
		if err := g.Table(tb.Name, func(l string) error { lines = append(lines, l); return nil }); err != nil {
			t.Fatal(err)
		}
		copyLines(tb.Name, lines)
	}
	orders := func(first, count int) {
		t.Helper()
		var o, l []string
		err := g.Orders(first, count, func(s string) error { o = append(o, s); return nil }, func(s string) error { l = append(l, s); return nil })
		if err != nil {
			t.Fatal(err)
		}
		copyLines("orders", o)
		copyLines("lineitem", l)
	}
	orders(1, g.Scale.Orders)

	queries := tpch.Queries(tpchScale)
	var views []tpch.Query
	for _, q := range queries {
		_, err := conn.Exec(ctx, fmt.Sprintf("CREATE MATERIALIZED VIEW tpch_%s AS %s", q.Name, q.SQL))
		want, refused := tpchRefused[q.Name]
		switch {
		case err != nil && !refused:
			t.Errorf("%s is refused: %v", q.Name, err)
		case err != nil && !strings.Contains(err.Error(), want):
			t.Errorf("%s is refused for another reason than %q: %v", q.Name, want, err)
		case err == nil && refused:
			t.Errorf("%s is accepted now: take it off tpchRefused", q.Name)
		case err == nil:
			views = append(views, q)
		}
	}
	check := func(when string) {
		t.Helper()
		for _, q := range views {
			want := rowsOf(t, pg, q.SQL)
			if len(want) == 0 {
				t.Errorf("%s %s: PostgreSQL's answer has no rows; the data should give some", q.Name, when)
			}
			sameRows(t, q.Name+" view "+when, rowsOf(t, conn, "SELECT * FROM tpch_"+q.Name), "PostgreSQL", want)
		}
	}
	check("after the load")

	// RF1 and RF2: a thousandth of the orders in, as many out.
	refresh := max(1, g.Scale.Orders/1000)
	orders(g.Scale.Orders+1, refresh)
	both(fmt.Sprintf("DELETE FROM lineitem WHERE l_orderkey <= %d", refresh))
	both(fmt.Sprintf("DELETE FROM orders WHERE o_orderkey <= %d", refresh))
	if _, err := conn.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	check("after RF1 and RF2")
}
