package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
)

// TestRunTableFunctions checks set-returning functions in FROM and in
// select lists, and LATERAL items, against PostgreSQL 15's results.
func TestRunTableFunctions(t *testing.T) {
	tests := []rowsCase{
		{"SELECT * FROM generate_series(1, 3)", []string{"1", "2", "3"}},
		{"SELECT * FROM generate_series(5, 1, -2)", []string{"5", "3", "1"}},
		{"SELECT * FROM generate_series(1, 3, -1)", nil},
		{"SELECT * FROM generate_series(2147483646, 2147483647)", []string{"2147483646", "2147483647"}},
		{"SELECT * FROM generate_series(1, 2, 0.5)", []string{"1", "1.5", "2.0"}},
		{"SELECT * FROM generate_series('2020-01-30'::timestamp, '2020-04-01', '1 month')",
			[]string{"2020-01-30 00:00:00", "2020-02-29 00:00:00", "2020-03-29 00:00:00"}},
		{"SELECT * FROM range(1, 3)", []string{"1", "2"}},
		{"SELECT * FROM range(3, 1, -1)", []string{"3", "2"}},
		{"SELECT * FROM generate_series(1, NULL)", nil},
		{"SELECT * FROM unnest(ARRAY['a', NULL])", []string{"a", "NULL"}},
		{"SELECT * FROM unnest(ARRAY[1, 2], ARRAY['a'])", []string{"1|a", "2|NULL"}},
		{"SELECT * FROM unnest(ARRAY[5, 6]) WITH ORDINALITY", []string{"5|1", "6|2"}},
		{"SELECT * FROM abs(-1), upper('x') WITH ORDINALITY", []string{"1|X|1"}},
		{"SELECT x, g FROM (VALUES (1), (3)) v(x), generate_series(1, x) g", []string{"1|1", "3|1", "3|2", "3|3"}},
		{"SELECT x, g FROM (VALUES (0), (1)) v(x) LEFT JOIN LATERAL generate_series(1, x) g ON true", []string{"0|NULL", "1|1"}},
		{"SELECT x, g FROM (VALUES (2)) v(x) JOIN generate_series(1, 3) g ON g > x", []string{"2|3"}},
		{"SELECT x, s.y FROM (VALUES (1), (2)) v(x), LATERAL (SELECT x * 10 AS y) s", []string{"1|10", "2|20"}},
		{"SELECT (SELECT sum(g) FROM generate_series(1, x) g) FROM (VALUES (3)) v(x)", []string{"6"}},
		{"SELECT generate_series(1, 3) + 1, unnest(ARRAY['a', 'b'])", []string{"2|a", "3|b", "4|NULL"}},
		{"SELECT generate_series(1, 2) ORDER BY 1 DESC", []string{"2", "1"}},
		{"SELECT DISTINCT unnest(ARRAY[1, 1, 2]) ORDER BY 1", []string{"1", "2"}},
		{"SELECT column1, generate_series(1, column1) FROM (VALUES (1), (2)) v", []string{"1|1", "2|1", "2|2"}},
		{"SELECT count(*), generate_series(1, count(*)) FROM (VALUES (1), (2)) v", []string{"2|1", "2|2"}},
		{"SELECT generate_series(1, 3) LIMIT 2", []string{"1", "2"}},
		// Nested calls: the inner ones first, the outer ones per inner row.
		{"SELECT generate_series(1, 2), generate_series(1, generate_series(1, 3))", []string{"1|1", "2|1", "2|2", "NULL|1", "NULL|2", "NULL|3"}},
		{"SELECT count(*), unnest(ARRAY[generate_series(1, count(*)::int), 9]) FROM (VALUES (1), (2)) v", []string{"2|1", "2|9", "2|2", "2|9"}},
		{"SELECT * FROM (SELECT 1 AS a, 2 AS a) s", []string{"1|2"}},
	}
	checkRows(t, tests)
}

// TestTableFunctionColumns checks the names and types of table function
// columns: a function of one column is named after its alias.
func TestTableFunctionColumns(t *testing.T) {
	tests := []struct{ sql, cols string }{
		{"SELECT * FROM generate_series(1, 3)", "generate_series integer"},
		{"SELECT * FROM generate_series(1, 3) g", "g integer"},
		{"SELECT * FROM generate_series(1, 3::int8) AS g(x)", "x bigint"},
		{"SELECT * FROM pg_catalog.generate_series(1.5, 3)", "generate_series numeric"},
		{"SELECT * FROM generate_series('2020-01-01', '2020-01-02', '1 hour'::interval)", "generate_series timestamp with time zone"},
		{"SELECT * FROM unnest(ARRAY[1], ARRAY['a']) WITH ORDINALITY", "unnest integer, unnest text, ordinality bigint"},
		{"SELECT * FROM unnest(ARRAY[1]) WITH ORDINALITY AS u(x, n)", "x integer, n bigint"},
		{"SELECT * FROM abs(-1)", "abs integer"},
		{"SELECT * FROM upper('x') AS u(c)", "c text"},
		{"SELECT generate_series(1, 2), unnest(ARRAY[1.5])", "generate_series integer, unnest numeric"},
	}
	for _, tt := range tests {
		n := mustBind(t, tt.sql)
		var parts []string
		for _, c := range n.Columns() {
			parts = append(parts, c.Name+" "+c.T.String())
		}
		if got := strings.Join(parts, ", "); got != tt.cols {
			t.Errorf("%s: columns %q, want %q", tt.sql, got, tt.cols)
		}
	}
}

// TestTableFunctionErrors checks misplaced set-returning functions and
// table function errors against PostgreSQL 15's.
func TestTableFunctionErrors(t *testing.T) {
	tests := []struct{ sql, code, msg string }{
		{"SELECT a FROM t WHERE generate_series(1, 2) > 0", "0A000", "set-returning functions are not allowed in WHERE"},
		{"SELECT t.a FROM t JOIN u ON generate_series(1, 2) > 0", "0A000", "set-returning functions are not allowed in JOIN conditions"},
		{"SELECT 1 HAVING generate_series(1, 2) > 0", "0A000", "set-returning functions are not allowed in HAVING"},
		{"SELECT count(generate_series(1, 3))", "42803", "aggregate function calls cannot contain set-returning function calls"},
		{"SELECT sum(1) OVER (ORDER BY generate_series(1, 3))", "42P20", "window function calls cannot contain set-returning function calls"},
		{"SELECT CASE WHEN true THEN generate_series(1, 3) END", "0A000", "set-returning functions are not allowed in CASE"},
		{"SELECT coalesce(generate_series(1, 3))", "0A000", "set-returning functions are not allowed in COALESCE"},
		{"VALUES (generate_series(1, 3))", "0A000", "set-returning functions are not allowed in VALUES"},
		{"SELECT 1 GROUP BY generate_series(1, 3)", "0A000", "set-returning functions in GROUP BY are not supported"},
		{"SELECT * FROM generate_series(1, 3) AS g(a, b)", "42P10", `table "g" has 1 columns available but 2 columns specified`},
		{"SELECT * FROM count(*)", "42803", "aggregate functions are not allowed in functions in FROM"},
		{"SELECT * FROM generate_series(1, 10, 0)", "22023", "step size cannot equal zero"},
		{"SELECT * FROM generate_series(1, 'NaN'::numeric)", "22023", "stop value cannot be NaN"},
		{"SELECT * FROM generate_series(now(), now(), '0 days')", "22023", "step size cannot equal zero"},
		{"SELECT * FROM unnest(1)", "42883", "function unnest(integer) does not exist"},
		{"SELECT unnest(ARRAY[1], ARRAY[2])", "42883", "function unnest(integer[], integer[]) does not exist"},
		{"SELECT * FROM generate_series(1, t.a), t", "42P01", `missing FROM-clause entry for table "t"`},
		{"SELECT * FROM t RIGHT JOIN generate_series(1, t.a) g ON true", "42P10", "invalid reference to a FROM-clause entry from a LATERAL item"},
	}
	for _, tt := range tests {
		n, _, err := bindQuery(t, tt.sql)
		if err == nil {
			// Errors of the functions' arguments come when they run.
			_, err = exec.Collect(expr.NewCtx(context.Background(), nil), planner.Build(n, nil))
		}
		if pe := pgerror.From(err); err == nil || pe.Code != tt.code || pe.Message != tt.msg {
			t.Errorf("%s: got %v, want %s %s", tt.sql, err, tt.code, tt.msg)
		}
	}
}

// TestPlanStreamConstantBound checks the bound on the rows of a
// set-returning function evaluated when a view is planned.
func TestPlanStreamConstantBound(t *testing.T) {
	_, _, err := planView(t, "SELECT * FROM generate_series(1, 1000001)")
	if pe := pgerror.From(err); err == nil || pe.Code != pgerror.CodeProgramLimitExceeded {
		t.Errorf("got %v, want 54000", err)
	}
	if _, _, err := planView(t, "SELECT * FROM generate_series(1, 1000000)"); err != nil {
		t.Errorf("a million rows: %v", err)
	}
}
