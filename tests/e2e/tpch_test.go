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
	for _, c := range []*pgx.Conn{conn, pg} {
		if err := tpch.Load(ctx, c, tpchScale, 1); err != nil {
			t.Fatal(err)
		}
	}

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
	rf := tpch.NewRefresh(tpchScale, 1, 0)
	for _, c := range []*pgx.Conn{conn, pg} {
		if err := rf.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "FLUSH"); err != nil {
		t.Fatal(err)
	}
	check("after RF1 and RF2")
}
