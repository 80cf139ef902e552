package planner_test

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestBindErrors checks SQLSTATEs and messages of binding errors against
// PostgreSQL 15's.
func TestBindErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code string
		msg  string
	}{
		// Names.
		{"SELECT zz FROM t", "42703", `column "zz" does not exist`},
		{"SELECT t.zz FROM t", "42703", `column t.zz does not exist`},
		{"SELECT q.a FROM t", "42P01", `missing FROM-clause entry for table "q"`},
		{"SELECT * FROM nosuch", "42P01", `relation "nosuch" does not exist`},
		{"SELECT a FROM t, u", "42702", `column reference "a" is ambiguous`},
		{"SELECT a FROM t x JOIN t y ON x.a = y.a", "42702", `column reference "a" is ambiguous`},
		{"SELECT a FROM t JOIN u USING (zz)", "42703", `column "zz" specified in USING clause does not exist in left table`},
		{"SELECT a FROM t JOIN w USING (b)", "42703", `column "b" specified in USING clause does not exist in right table`},
		{"SELECT s.a FROM (SELECT 1, 2) s (k, l, m)", "42P10", `table "s" has 2 columns available but 3 columns specified`},
		{"SELECT *", "42601", "SELECT * with no tables specified is not valid"},
		// Grouping.
		{"SELECT a, count(*) FROM t", "42803", `column "t.a" must appear in the GROUP BY clause or be used in an aggregate function`},
		{"SELECT b FROM t GROUP BY a", "42803", `column "t.b" must appear in the GROUP BY clause or be used in an aggregate function`},
		{"SELECT a FROM t HAVING a > 1", "42803", `column "t.a" must appear in the GROUP BY clause or be used in an aggregate function`},
		{"SELECT count(count(*)) FROM t", "42803", "aggregate function calls cannot be nested"},
		{"SELECT string_agg(c, ',' ORDER BY count(*)) FROM t", "42803", "aggregate function calls cannot be nested"},
		{"SELECT string_agg(DISTINCT c, ',' ORDER BY b) FROM t", "42P10", "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"},
		{"SELECT abs(a ORDER BY b) FROM t", "42809", "ORDER BY specified, but abs is not an aggregate function"},
		{"SELECT last_value(a) FROM t", "42809", "window function last_value requires an OVER clause"},
		{"SELECT a FROM t WHERE count(*) > 1", "42803", "aggregate functions are not allowed in WHERE"},
		{"SELECT a FROM t GROUP BY count(*)", "42803", "aggregate functions are not allowed in GROUP BY"},
		{"SELECT t.a FROM t JOIN u ON count(*) > 0", "42803", "aggregate functions are not allowed in JOIN conditions"},
		{"SELECT (SELECT x.b FROM u) FROM t x GROUP BY x.a", "42803", `subquery uses ungrouped column "x.b" from outer query`},
		{"SELECT (SELECT t.a + 1 FROM u) FROM t GROUP BY t.a + 1", "42803", `subquery uses ungrouped column "t.a" from outer query`},
		// PostgreSQL computes it in the enclosing query; streamdb refuses it.
		{"SELECT (SELECT max(t.a) FROM u) FROM t", "0A000", "aggregate functions over columns of an enclosing query only are not supported"},
		{"SELECT t.a FROM t JOIN u ON 1", "42804", "argument of JOIN/ON must be type boolean, not type integer"},
		// Types.
		{"SELECT CASE WHEN true THEN 1 ELSE 'x'::text END", "42804", "CASE types integer and text cannot be matched"},
		{"SELECT CASE WHEN true THEN 1 ELSE 'x' END", "22P02", `invalid input syntax for type integer: "x"`},
		{"SELECT 1 UNION SELECT 'a'::text", "42804", "UNION types integer and text cannot be matched"},
		{"SELECT 1 UNION SELECT 'a'::text INTERSECT SELECT 'b'", "42804", "UNION types integer and text cannot be matched"},
		{"SELECT a FROM t WHERE 1", "42804", "argument of WHERE must be type boolean, not type integer"},
		{"SELECT a FROM t GROUP BY a HAVING sum(a)", "42804", "argument of HAVING must be type boolean, not type bigint"},
		{"SELECT true AND 1", "42804", "argument of AND must be type boolean, not type integer"},
		{"SELECT NOT 1", "42804", "argument of NOT must be type boolean, not type integer"},
		{"SELECT 'a' + 1", "22P02", `invalid input syntax for type integer: "a"`},
		{"SELECT NULL::int4::date", "42846", "cannot cast type integer to date"},
		{"SELECT ts::int4 FROM t WHERE false", "42846", "cannot cast type timestamp without time zone to integer"},
		// Operators and functions.
		{"SELECT 1 + 'a'::text", "42883", "operator does not exist: integer + text"},
		{"SELECT c + 1 FROM t", "42883", "operator does not exist: text + integer"},
		{"SELECT -c FROM t", "42883", "operator does not exist: - text"},
		{"SELECT nosuchfn(1)", "42883", "function nosuchfn(integer) does not exist"},
		{"SELECT sum(c) FROM t", "42883", "function sum(text) does not exist"},
		// Positions.
		{"SELECT a FROM t ORDER BY 3", "42P10", "ORDER BY position 3 is not in select list"},
		{"SELECT a FROM t ORDER BY 0", "42P10", "ORDER BY position 0 is not in select list"},
		{"SELECT a FROM t GROUP BY 5", "42P10", "GROUP BY position 5 is not in select list"},
		{"SELECT DISTINCT a FROM t ORDER BY b", "42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list"},
		// Shapes.
		{"SELECT 1, 2 UNION SELECT 1", "42601", "each UNION query must have the same number of columns"},
		{"SELECT 1 EXCEPT SELECT 1, 2", "42601", "each EXCEPT query must have the same number of columns"},
		{"VALUES (1), (1, 2)", "42601", "VALUES lists must all be the same length"},
		{"SELECT (SELECT a, b FROM t)", "42601", "subquery must return only one column"},
		{"SELECT 1 WHERE 1 IN (SELECT a, b FROM t)", "42601", "subquery has too many columns"},
		{"WITH q (x, y) AS (SELECT 1) SELECT * FROM q", "42P10", `WITH query "q" has 1 columns available but 2 columns specified`},
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
