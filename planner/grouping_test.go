package planner_test

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
)

// TestRunGroupingSets checks grouping sets over VALUES against PostgreSQL
// 15's answers.
func TestRunGroupingSets(t *testing.T) {
	const in = "(VALUES (1, 'x', 10), (1, 'y', 20), (2, 'x', 30), (NULL, 'z', 40)) s(a, b, c)"
	checkRows(t, []rowsCase{
		{"SELECT a, b, sum(c), grouping(a, b) FROM " + in + " GROUP BY ROLLUP (a, b) ORDER BY 4, 1, 2",
			[]string{"1|x|10|0", "1|y|20|0", "2|x|30|0", "NULL|z|40|0", "1|NULL|30|1", "2|NULL|30|1", "NULL|NULL|40|1", "NULL|NULL|100|3"}},
		{"SELECT a, b, count(*) FROM " + in + " GROUP BY CUBE (a, b) HAVING grouping(a) = 1 ORDER BY 2",
			[]string{"NULL|x|2", "NULL|y|1", "NULL|z|1", "NULL|NULL|4"}},
		{"SELECT a, grouping(b), count(*) FROM " + in + " GROUP BY a, GROUPING SETS (b, ()) HAVING grouping(b) = 1 ORDER BY 1",
			[]string{"1|1|2", "2|1|1", "NULL|1|1"}},
		{"SELECT a, count(*) FROM " + in + " GROUP BY GROUPING SETS (a, a) ORDER BY 1, 2",
			[]string{"1|2", "1|2", "2|1", "2|1", "NULL|1", "NULL|1"}},
		{"SELECT a, count(*) FROM " + in + " GROUP BY DISTINCT GROUPING SETS (a, a) ORDER BY 1", []string{"1|2", "2|1", "NULL|1"}},
		{"SELECT count(*) FROM " + in + " WHERE false GROUP BY GROUPING SETS ((), (), (a))", []string{"0", "0"}},
		{"SELECT a + 1 AS x, count(*) FROM " + in + " GROUP BY ROLLUP (a + 1) ORDER BY 1, 2", []string{"2|2", "3|1", "NULL|1", "NULL|4"}},
		{"SELECT 7 AS k, count(*) FROM " + in + " GROUP BY ROLLUP (k) ORDER BY 1", []string{"7|4", "NULL|4"}},
		{"SELECT a, (SELECT grouping(s.a)) FROM " + in + " GROUP BY ROLLUP (a) ORDER BY 2, 1", []string{"1|0", "2|0", "NULL|0", "NULL|1"}},
		{"SELECT a, grouping(a) FROM " + in + " GROUP BY a ORDER BY 1", []string{"1|0", "2|0", "NULL|0"}},
	})
}

// TestGroupingSetsPlan checks that grouping sets expand the rows once per
// set under one aggregation keyed by the grouping columns and the set.
func TestGroupingSetsPlan(t *testing.T) {
	got := planner.Explain(mustBind(t, "SELECT b, c, count(*), grouping(b, c) FROM t GROUP BY ROLLUP (b, c)"))
	want := []string{
		"Project $0, $1, $3, grouping($2, masks [0 1 3])",
		"  Aggregate $6, $7, $8, count(*)",
		"    Expand nulled=[[] [7] [6 7]]",
		"      Project $0, $1, $2, $3, $4, $5, $1, $2",
		"        Scan t",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan\n got  %q\n want %q", got, want)
	}
}

// TestGroupingErrors checks the errors of grouping sets and GROUPING
// against PostgreSQL 15's.
func TestGroupingErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code string
		msg  string
	}{
		{"SELECT grouping(a) FROM t", "42803", "arguments to GROUPING must be grouping expressions of the associated query level"},
		{"SELECT grouping(b) FROM t GROUP BY ROLLUP (a)", "42803", "arguments to GROUPING must be grouping expressions of the associated query level"},
		{"SELECT a FROM t WHERE grouping(a) = 0 GROUP BY a", "42803", "grouping operations are not allowed in WHERE"},
		{"SELECT a FROM t GROUP BY ROLLUP (a), grouping(a)", "42803", "grouping operations are not allowed in GROUP BY"},
		{"SELECT count(*) FILTER (WHERE grouping(a) = 0) FROM t GROUP BY ROLLUP (a)", "42803", "grouping operations are not allowed in FILTER"},
		{"SELECT count(*) FILTER (WHERE count(*) > 0) FROM t", "42803", "aggregate functions are not allowed in FILTER"},
		{"SELECT sum(grouping(a)) FROM t GROUP BY ROLLUP (a)", "42803", "aggregate function calls cannot be nested"},
		{"SELECT a, b FROM t GROUP BY ROLLUP (a)", "42803", `column "t.b" must appear in the GROUP BY clause or be used in an aggregate function`},
		{"SELECT count(*) FROM t GROUP BY CUBE (a, a, a, a, a, a, a, a, a, a, a, a, a)", "54011", "CUBE is limited to 12 elements"},
		{"SELECT count(*) FROM t GROUP BY CUBE (a, a, a, a, a, a), CUBE (a, a, a, a, a, a, a)", "54001", "too many grouping sets present (maximum 4096)"},
		{"SELECT grouping(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a) FROM t GROUP BY a", "54023", "GROUPING must have fewer than 32 arguments"},
		{"SELECT a FROM t GROUP BY ROLLUP (a, 3)", "42P10", "GROUP BY position 3 is not in select list"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, _, err := bindQuery(t, tt.sql)
			if e := pgerror.From(err); err == nil || e.Code != tt.code || e.Message != tt.msg {
				t.Errorf("error %v, want %s %q", err, tt.code, tt.msg)
			}
		})
	}
}
