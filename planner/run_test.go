package planner_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// rowsCase is a query and the rows runQuery renders for it.
type rowsCase struct {
	sql  string
	want []string
}

// checkRows runs each case as a subtest and compares its rows.
func checkRows(t *testing.T, tests []rowsCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			if got := runQuery(t, tt.sql); !slices.Equal(got, tt.want) {
				t.Errorf("rows\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// runQuery binds, builds and runs a query that reads no tables, and
// renders its rows as "a|b" lines in their PostgreSQL text form.
func runQuery(t *testing.T, sql string, params ...types.Datum) []string {
	t.Helper()
	n := mustBind(t, sql)
	rows, err := exec.Collect(expr.NewCtx(context.Background(), params), planner.Build(n, nil))
	if err != nil {
		t.Fatalf("run %q: %v", sql, err)
	}
	cols := n.Columns()
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, d := range r {
			parts[j] = "NULL"
			if !d.IsNull() {
				parts[j] = string(types.FormatText(nil, cols[j].T, d))
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	return out
}

// TestRun checks query semantics end to end over VALUES: ordering, set
// operation precedence, grouping, subqueries and LIMIT.
func TestRun(t *testing.T) {
	tests := []rowsCase{
		{"SELECT 1 + 2, 'a' || 'b', true, NULL", []string{"3|ab|t|NULL"}},
		{"SELECT column1 FROM (VALUES (3), (NULL), (1)) s ORDER BY column1", []string{"1", "3", "NULL"}},
		{"SELECT column1 FROM (VALUES (3), (NULL), (1)) s ORDER BY column1 DESC", []string{"NULL", "3", "1"}},
		{"SELECT column1 FROM (VALUES (3), (NULL), (1)) s ORDER BY column1 NULLS FIRST", []string{"NULL", "1", "3"}},
		{"SELECT column1 FROM (VALUES (3), (NULL), (1)) s ORDER BY column1 DESC NULLS LAST", []string{"3", "1", "NULL"}},
		{"SELECT column1 AS x FROM (VALUES (3, 'a'), (1, 'b'), (2, 'c')) s ORDER BY column2 DESC LIMIT 2", []string{"2", "1"}},
		{"SELECT column1 FROM (VALUES (1), (2), (3), (4)) s ORDER BY 1 LIMIT 2 OFFSET 1", []string{"2", "3"}},
		{"SELECT DISTINCT column1 % 2 AS r FROM (VALUES (1), (2), (3), (NULL)) s ORDER BY r", []string{"0", "1", "NULL"}},
		// INTERSECT binds tighter than UNION and EXCEPT.
		{"SELECT 1 UNION SELECT 2 INTERSECT SELECT 2 ORDER BY 1", []string{"1", "2"}},
		{"SELECT 2 INTERSECT SELECT 2 UNION SELECT 1 ORDER BY 1", []string{"1", "2"}},
		{"SELECT 1 EXCEPT SELECT 1 INTERSECT SELECT 2", []string{"1"}},
		{"(SELECT 1 UNION SELECT 2) INTERSECT SELECT 2", []string{"2"}},
		{"SELECT 1 UNION ALL SELECT 1 EXCEPT ALL SELECT 1", []string{"1"}},
		// Aggregates with ORDER BY in the call; equal calls computed once.
		{"SELECT string_agg(column1, ',' ORDER BY column2 DESC), array_agg(column2 ORDER BY column1), first_value(column1 ORDER BY column2), string_agg(DISTINCT column1, '' ORDER BY column1 DESC) FROM (VALUES ('a', 2), ('b', 1), ('c', 3)) s",
			[]string{"c,a,b|{2,1,3}|b|cba"}},
		{"SELECT g, string_agg(v, '' ORDER BY v), string_agg(v, '' ORDER BY v) FROM (VALUES (1, 'y'), (1, 'x'), (2, 'z')) s(g, v) GROUP BY g ORDER BY g",
			[]string{"1|xy|xy", "2|z|z"}},
		// Unknown-typed members of a set operation take the other side's type.
		{"SELECT NULL UNION ALL SELECT 1", []string{"NULL", "1"}},
		{"SELECT '2' UNION SELECT 1 ORDER BY 1", []string{"1", "2"}},
		{"SELECT 'a' UNION SELECT 'b' ORDER BY 1 DESC", []string{"b", "a"}},
		{"SELECT 1.5 UNION ALL SELECT 1", []string{"1.5", "1"}},
		{"SELECT column1, count(*), sum(column2) FROM (VALUES ('a', 1), ('b', 2), ('a', NULL)) s GROUP BY 1 ORDER BY 1",
			[]string{"a|2|1", "b|1|2"}},
		{"SELECT count(*), sum(column1), max(column1) FROM (VALUES (1)) s WHERE false", []string{"0|NULL|NULL"}},
		{"SELECT column1 FROM (VALUES (1)) s WHERE false GROUP BY column1", nil},
		{"SELECT column1 AS k, count(*) FROM (VALUES (1), (1), (2)) s GROUP BY k HAVING count(*) > 1", []string{"1|2"}},
		{"SELECT (SELECT max(column1) FROM (VALUES (4), (7)) s), EXISTS (SELECT 1 WHERE false)", []string{"7|f"}},
		{"SELECT column1 FROM (VALUES (1), (2), (3)) s WHERE column1 IN (SELECT column1 + 1 FROM (VALUES (1), (2)) r)", []string{"2", "3"}},
		{"SELECT column1, (SELECT count(*) FROM (VALUES (1), (2), (3)) r WHERE r.column1 <= s.column1) FROM (VALUES (1), (3)) s",
			[]string{"1|1", "3|3"}},
		{"SELECT CASE column1 WHEN 1 THEN 'one' ELSE 'other' END FROM (VALUES (1), (2)) s", []string{"one", "other"}},
		{"SELECT a.column1, b.column1 FROM (VALUES (1), (2)) a LEFT JOIN (VALUES (2), (3)) b ON a.column1 = b.column1 ORDER BY 1",
			[]string{"1|NULL", "2|2"}},
		{"SELECT a.column1, b.column1 FROM (VALUES (1), (2)) a FULL JOIN (VALUES (2), (3)) b ON a.column1 = b.column1 ORDER BY 1, 2",
			[]string{"1|NULL", "2|2", "NULL|3"}},
		{"SELECT * FROM (VALUES (1, 'x')) a (k, v) JOIN (VALUES (1, 'y')) b (k, w) USING (k)", []string{"1|x|y"}},
		// A subquery over a grouped query reads its grouped columns per group.
		{"SELECT (SELECT s.column2 FROM (VALUES (0)) r) FROM (VALUES (-7, 42), (1, 42), (2, 5)) s GROUP BY s.column2 ORDER BY 1",
			[]string{"5", "42"}},
		{"SELECT (SELECT coalesce(min(NULL::int4), s.column1) FROM (VALUES (0)) r) FROM (VALUES (3), (1)) s GROUP BY NULL::int8, s.column1 ORDER BY 1",
			[]string{"1", "3"}},
		// GROUP BY and HAVING without FROM.
		{"SELECT 1 AS x GROUP BY 1 HAVING true", []string{"1"}},
		{"SELECT 1 WHERE true GROUP BY 1 HAVING false", nil},
		{"SELECT count(*) HAVING count(*) > 0", []string{"1"}},
		// An untyped literal opposite a typed operand takes its type.
		{"SELECT 'a' IS NOT DISTINCT FROM CAST(NULL AS text), NULL::text IS DISTINCT FROM 'a'", []string{"f|t"}},
		// Aggregates of NULLs of different types stay apart.
		{"SELECT max(NULL::int8), length(max(NULL::text)), pg_typeof(max(NULL::int2)), pg_typeof(max(NULL::int4)) FROM (VALUES (1)) s",
			[]string{"NULL|NULL|smallint|integer"}},
		// Nothing under a constant false or NULL condition runs: the
		// subquery that returns two rows is never evaluated.
		{"SELECT 1 FROM (VALUES (1), (2)) s WHERE (SELECT column1 FROM (VALUES (1), (2)) r) = s.column1 AND false", nil},
		{"SELECT count(*) FROM (VALUES (1), (2)) s WHERE (SELECT column1 FROM (VALUES (1), (2)) r) = s.column1 HAVING NULL::bool", nil},
		{"SELECT 1 FROM (VALUES (1), (2)) s JOIN (VALUES (3)) t ON (SELECT column1 FROM (VALUES (1), (2)) r) = s.column1 AND NOT true", nil},
		{"SELECT 1 FROM (VALUES (1), (2)) s WHERE (SELECT column1 FROM (VALUES (1), (2)) r) = s.column1 OR NOT false", []string{"1", "1"}},
	}
	checkRows(t, tests)
}

func TestRunParams(t *testing.T) {
	tests := []struct {
		sql    string
		params []types.Datum
		want   []string
	}{
		{"SELECT $1 + 1", []types.Datum{types.NewInt(41)}, []string{"42"}},
		{"SELECT column1 FROM (VALUES (1), (2), (3)) s ORDER BY 1 LIMIT $1 OFFSET $2", []types.Datum{types.NewInt(1), types.NewInt(1)}, []string{"2"}},
		{"SELECT column1 FROM (VALUES (1), (2)) s LIMIT $1", []types.Datum{types.Null}, []string{"1", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			if got := runQuery(t, tt.sql, tt.params...); !slices.Equal(got, tt.want) {
				t.Errorf("rows\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}
