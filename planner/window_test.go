package planner_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
)

// windowData is a CTE d(id, g, v) for the window function tests: group
// 'a' has a tie on v, 'b' a NULL v, and one row has a NULL group.
const windowData = "WITH d (id, g, v) AS (VALUES (1, 'a', 10), (2, 'a', 20), (3, 'a', 20), (4, 'b', 5), (5, 'b', NULL), (6, NULL, 7)) "

// TestRunWindow checks window function results against PostgreSQL's.
func TestRunWindow(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT id, row_number() OVER w, rank() OVER (PARTITION BY g ORDER BY v DESC), dense_rank() OVER (PARTITION BY g ORDER BY v DESC) " +
			"FROM d WINDOW w AS (PARTITION BY g ORDER BY v DESC, id) ORDER BY id",
			[]string{"1|3|3|2", "2|1|1|1", "3|2|1|1", "4|2|2|2", "5|1|1|1", "6|1|1|1"}},
		// The default frame ends with the current row's last peer; without
		// ORDER BY it is the whole partition.
		{"SELECT id, sum(v) OVER (PARTITION BY g ORDER BY v), count(*) OVER (PARTITION BY g), max(v) OVER (PARTITION BY g) FROM d ORDER BY id",
			[]string{"1|10|3|20", "2|50|3|20", "3|50|3|20", "4|5|2|5", "5|5|2|5", "6|7|1|7"}},
		{"SELECT id, count(*) OVER (), sum(id) OVER () FROM d ORDER BY id",
			[]string{"1|6|21", "2|6|21", "3|6|21", "4|6|21", "5|6|21", "6|6|21"}},
		{"SELECT id, lag(id) OVER (ORDER BY id), lead(id, 2, 0) OVER (ORDER BY id), lag(g, 1, 'none') OVER (ORDER BY id) FROM d ORDER BY id",
			[]string{"1|NULL|3|none", "2|1|4|a", "3|2|5|a", "4|3|6|a", "5|4|0|b", "6|5|0|b"}},
		{"SELECT id, first_value(id) OVER w, last_value(id) OVER w, nth_value(id, 2) OVER w FROM d WINDOW w AS (PARTITION BY g ORDER BY v, id) ORDER BY id",
			[]string{"1|1|1|NULL", "2|1|2|2", "3|1|3|2", "4|4|4|NULL", "5|4|5|5", "6|6|6|NULL"}},
		{"SELECT id, sum(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), " +
			"count(*) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), max(id) OVER (ORDER BY id DESC ROWS 2 PRECEDING) FROM d ORDER BY id",
			[]string{"1|3|6|3", "2|6|5|4", "3|9|4|5", "4|12|3|6", "5|15|2|6", "6|11|1|6"}},
		{"SELECT id, v, sum(id) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM d ORDER BY id",
			[]string{"1|10|12", "2|20|11", "3|20|11", "4|5|10", "5|NULL|10", "6|7|11"}},
		{"SELECT id, count(*) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM d ORDER BY id",
			[]string{"1|4", "2|3", "3|3", "4|6", "5|1", "6|5"}},
		{"SELECT id, ntile(4) OVER (ORDER BY id), percent_rank() OVER (ORDER BY g), cume_dist() OVER (ORDER BY g) FROM d ORDER BY id",
			[]string{"1|1|0|0.5", "2|1|0|0.5", "3|2|0|0.5", "4|2|0.6|0.8333333333333334", "5|3|0.6|0.8333333333333334", "6|4|1|1"}},
		// Window functions see the groups, after HAVING.
		{"SELECT g, sum(v), rank() OVER (ORDER BY sum(v) DESC), sum(sum(v)) OVER () FROM d GROUP BY g HAVING count(*) < 3 ORDER BY g",
			[]string{"b|5|2|12", "NULL|7|1|12"}},
		{"SELECT id FROM d ORDER BY row_number() OVER (ORDER BY v DESC NULLS LAST, id) LIMIT 3", []string{"2", "3", "1"}},
		{"SELECT DISTINCT g, count(*) OVER (PARTITION BY g) FROM d ORDER BY 1", []string{"a|3", "b|2", "NULL|1"}},
		// ... and the rows WHERE keeps.
		{"SELECT id, 100 * row_number() OVER (ORDER BY id) + count(*) OVER () FROM d WHERE g = 'a'", []string{"1|103", "2|203", "3|303"}},
		{"SELECT id, sum(id) OVER (w ORDER BY id) FROM d WINDOW w AS (PARTITION BY g) ORDER BY id",
			[]string{"1|1", "2|3", "3|6", "4|4", "5|9", "6|6"}},
		{"SELECT id, row_number() OVER (PARTITION BY id % 2 ORDER BY id DESC) FROM d ORDER BY id",
			[]string{"1|3", "2|3", "3|2", "4|2", "5|1", "6|1"}},
		{"SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY id DESC) AS rn FROM d) s WHERE rn <= 1 ORDER BY id",
			[]string{"3", "5", "6"}},
		{"SELECT id, (SELECT count(*) OVER () FROM d LIMIT 1) FROM d WHERE id IN (SELECT max(id) OVER () FROM d)", []string{"6|6"}},
		// Any aggregate, with FILTER; an aggregate of the groups.
		{"SELECT id, array_agg(v) OVER w, string_agg(g, ',') FILTER (WHERE id > 1) OVER w, bool_or(v > 10) OVER w, count(*) FILTER (WHERE v > 5) OVER w " +
			"FROM d WINDOW w AS (ORDER BY id ROWS 1 PRECEDING) ORDER BY id",
			[]string{"1|{10}|NULL|f|1", "2|{10,20}|a|t|2", "3|{20,20}|a,a|t|2", "4|{20,5}|a,b|t|1", "5|{5,NULL}|b,b|f|0", "6|{NULL,7}|b|f|1"}},
		{"SELECT g, array_agg(sum(v)) OVER (ORDER BY g) FROM d GROUP BY g ORDER BY g", []string{"a|{50}", "b|{50,5}", "NULL|{50,5,7}"}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			if got := runQuery(t, windowData+tt.sql); !slices.Equal(got, tt.want) {
				t.Errorf("rows\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// TestWindowColumns checks names and types of window function results.
func TestWindowColumns(t *testing.T) {
	sql := "SELECT row_number() OVER (), rank() OVER (), dense_rank() OVER (), ntile(2) OVER (), percent_rank() OVER (), " +
		"cume_dist() OVER (), count(*) OVER (), sum(a) OVER (), avg(a) OVER (), lag(c) OVER (), lead(a, 1, 0.5) OVER (), " +
		"first_value(f) OVER (), nth_value('x', 1) OVER (), max(ts) OVER () AS m, array_agg(a) FILTER (WHERE a > 0) OVER (), " +
		"jsonb_agg(c) OVER (), stddev(a) OVER () FROM t"
	want := []string{"row_number bigint", "rank bigint", "dense_rank bigint", "ntile integer", "percent_rank double precision",
		"cume_dist double precision", "count bigint", "sum bigint", "avg numeric", "lag text", "lead numeric",
		"first_value double precision", "nth_value text", "m timestamp without time zone", "array_agg integer[]", "jsonb_agg jsonb",
		"stddev numeric"}
	var got []string
	for _, c := range mustBind(t, sql).Columns() {
		got = append(got, fmt.Sprintf("%s %s", c.Name, c.T))
	}
	if !slices.Equal(got, want) {
		t.Errorf("columns\n got  %q\n want %q", got, want)
	}
}

// TestWindowPlacement checks that windows are computed after grouping and
// HAVING, before DISTINCT, ORDER BY and LIMIT, one Window per distinct
// window, with computed keys projected below it.
func TestWindowPlacement(t *testing.T) {
	tests := []struct{ sql, want string }{
		{"SELECT DISTINCT b, rank() OVER (ORDER BY sum(a) DESC) FROM t GROUP BY b HAVING count(*) > 0 ORDER BY 2 LIMIT 3", `
Limit
  Sort [{1 false false}]
    Distinct
      Project $0, $3
        Window partition=[] order=[$1 DESC] rank()
          Filter ($2 > '0'::bigint)
            Aggregate $1, sum($0), count(*)
              Scan t`},
		{"SELECT a, sum(b) OVER (PARTITION BY c), count(*) OVER (PARTITION BY c ORDER BY a + 1), min(b) OVER (PARTITION BY c) FROM t WHERE a > 0", `
Project $0, $6, $9, $7
  Window partition=[2] order=[$8] count(*)
    Project $0, $1, $2, $3, $4, $5, $6, $7, ($0 + '1'::integer)
      Window partition=[2] order=[] sum($1), min($1)
        Filter ($0 > '0'::integer)
          Scan t`},
	}
	for _, tt := range tests {
		if got := strings.Join(planner.Explain(mustBind(t, tt.sql)), "\n"); got != strings.TrimPrefix(tt.want, "\n") {
			t.Errorf("plan of %q:\n%s\nwant:%s", tt.sql, got, tt.want)
		}
	}
}

// TestWindowBindErrors checks SQLSTATEs and messages against PostgreSQL
// 15's.
func TestWindowBindErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code string
		msg  string
	}{
		{"SELECT a FROM t WHERE row_number() OVER () > 1", "42P20", "window functions are not allowed in WHERE"},
		{"SELECT a FROM t GROUP BY row_number() OVER ()", "42P20", "window functions are not allowed in GROUP BY"},
		{"SELECT a FROM t GROUP BY a HAVING rank() OVER () > 1", "42P20", "window functions are not allowed in HAVING"},
		{"SELECT t.a FROM t JOIN u ON row_number() OVER () = 1", "42P20", "window functions are not allowed in JOIN conditions"},
		{"VALUES (row_number() OVER ())", "42P20", "window functions are not allowed in VALUES"},
		{"SELECT sum(row_number() OVER ()) FROM t", "42803", "aggregate function calls cannot contain window function calls"},
		{"SELECT sum(rank() OVER ()) OVER () FROM t", "42P20", "window function calls cannot be nested"},
		{"SELECT row_number() OVER w FROM t", "42704", `window "w" does not exist`},
		{"SELECT upper(c) OVER () FROM t", "42809", "OVER specified, but upper is not a window function nor an aggregate function"},
		{"SELECT rank() FILTER (WHERE a > 0) OVER () FROM t", "0A000", "FILTER is not implemented for non-aggregate window functions"},
		{"SELECT percentile_cont(0.5) OVER () FROM t", "0A000", "OVER is not supported for ordered-set aggregate percentile_cont"},
		{"SELECT 1 FROM t WINDOW w AS (), w AS (ORDER BY a)", "42P20", `window "w" is already defined`},
		{"SELECT rank() OVER (w PARTITION BY b) FROM t WINDOW w AS (ORDER BY a)", "42P20", `cannot override PARTITION BY clause of window "w"`},
		{"SELECT rank() OVER (w ORDER BY b) FROM t WINDOW w AS (ORDER BY a)", "42P20", `cannot override ORDER BY clause of window "w"`},
		{"SELECT sum(a) OVER (w ROWS UNBOUNDED PRECEDING) FROM t WINDOW w AS (ORDER BY a ROWS 1 PRECEDING)", "42P20",
			`cannot copy window "w" because it has a frame clause`},
		{"SELECT sum(a) OVER (ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM t", "42P20", "frame start cannot be UNBOUNDED FOLLOWING"},
		{"SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM t", "42P20", "frame end cannot be UNBOUNDED PRECEDING"},
		{"SELECT sum(a) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM t", "42P20", "frame starting from current row cannot have preceding rows"},
		{"SELECT sum(a) OVER (ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM t", "42P20", "frame starting from following row cannot have preceding rows"},
		{"SELECT sum(a) OVER (GROUPS 1 PRECEDING) FROM t", "42P20", "GROUPS mode requires an ORDER BY clause"},
		{"SELECT sum(a) OVER (ORDER BY a, b RANGE 1 PRECEDING) FROM t", "42P20", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"},
		{"SELECT sum(a) OVER (RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM t", "42P20", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column"},
		{"SELECT sum(a) OVER (ORDER BY c RANGE 1 PRECEDING) FROM t", "0A000", "RANGE with offset PRECEDING/FOLLOWING is not supported for column type text"},
		{"SELECT sum(a) OVER (ORDER BY ts RANGE 1 PRECEDING) FROM t", "0A000",
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type timestamp without time zone and offset type integer"},
		{"SELECT sum(a) OVER (ORDER BY a RANGE 1.5 PRECEDING) FROM t", "0A000",
			"RANGE with offset PRECEDING/FOLLOWING is not supported for column type integer and offset type numeric"},
		{"SELECT sum(a) OVER (ORDER BY a RANGE b PRECEDING) FROM t", "42P10", "argument of RANGE must not contain variables"},
		{"SELECT sum(a) OVER (ORDER BY a ROWS b PRECEDING) FROM t", "42P10", "argument of ROWS must not contain variables"},
		{"SELECT sum(a) OVER (ORDER BY a RANGE count(*) PRECEDING) FROM t", "42803", "aggregate functions are not allowed in window RANGE"},
		{"SELECT sum(a) OVER (ROWS 1.5 PRECEDING) FROM t", "42804", "argument of ROWS must be type bigint, not type numeric"},
		{"SELECT ntile(c) OVER () FROM t", "42883", "function ntile(text) does not exist"},
		{"SELECT lag(a, 1, 'x'::text) OVER () FROM t", "42883", "function lag(integer, integer, text) does not exist"},
		{"SELECT sum(c) OVER () FROM t", "42883", "function sum(text) does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, _, err := bindQuery(t, tt.sql)
			if err == nil {
				t.Fatal("no error")
			}
			if e := pgerror.From(err); e.Code != tt.code || e.Message != tt.msg {
				t.Errorf("error %s %q, want %s %q", e.Code, e.Message, tt.code, tt.msg)
			}
		})
	}
}
