package planner_test

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestRunArrays checks array expressions against PostgreSQL 15's results.
func TestRunArrays(t *testing.T) {
	tests := []rowsCase{
		{"SELECT ARRAY[1, 2.5], ARRAY['1', 2], ARRAY['a', NULL], ARRAY[]::int[], ARRAY['1', '2']::int[], ARRAY[1.5]::int[]",
			[]string{"{1,2.5}|{1,2}|{a,NULL}|{}|{1,2}|{2}"}},
		{"SELECT pg_typeof(ARRAY[1, 2.5]), pg_typeof(ARRAY['a']), pg_typeof(ARRAY[1::int2] || 1), pg_typeof(ARRAY[NULL])",
			[]string{"numeric[]|text[]|integer[]|text[]"}},
		{"SELECT x[1], x[5], x[0], x[2:3], x[:2], x[3:], x[NULL], (ARRAY['a', 'b'])[2] FROM (SELECT ARRAY[1, 2, 3, 4] AS x) s",
			[]string{"1|NULL|NULL|{2,3}|{1,2}|{3,4}|NULL|b"}},
		{"SELECT 1 = ANY (ARRAY[1, 2]), 3 <> ALL (ARRAY[1, 2]), NULL = ANY (ARRAY[1]), 1 = ANY (ARRAY[2, NULL]), 1 = ANY ('{1,2}'), '2' = SOME (ARRAY[2])",
			[]string{"t|t|NULL|NULL|t|t"}},
		{"SELECT ARRAY[1, 2] || 3, 0 || ARRAY[1, 2], ARRAY[1] || ARRAY[2, 3], ARRAY[1] || '{4}', NULL || ARRAY[1], ARRAY[1] || NULL",
			[]string{"{1,2,3}|{0,1,2}|{1,2,3}|{1,4}|{1}|{1}"}},
		{"SELECT ARRAY[1, 2] < ARRAY[1, 2, 3], ARRAY[1, NULL] = ARRAY[1, NULL], ARRAY[1, NULL] > ARRAY[1, 5], '{}' < ARRAY[1], ARRAY[1] @> '{1}'",
			[]string{"t|t|t|t|t"}},
		{"SELECT '{1.5,2}'::numeric[]::int[], ARRAY[1, 2]::text, '{a,b}'::text[]::varchar(1)[], CAST('{3}' AS int8[])",
			[]string{"{2,2}|{1,2}|{a,b}|{3}"}},
		{"SELECT ARRAY[1] IN (ARRAY[1], '{2}'), coalesce(NULL, ARRAY[1]), CASE WHEN true THEN ARRAY[1] ELSE '{2}' END",
			[]string{"t|{1}|{1}"}},
		{"SELECT array_agg(column1), array_agg(DISTINCT column1), count(column1), min(column2), max(column2) FROM (VALUES (3, ARRAY[1, 2]), (NULL, ARRAY[1]), (3, NULL)) s",
			[]string{"{3,NULL,3}|{3,NULL}|2|{1}|{1,2}"}},
		{"SELECT array_agg(column1) FROM (VALUES (1)) s WHERE false", []string{"NULL"}},
		{"SELECT column1, count(*) FROM (VALUES (ARRAY[2]), ('{1,2}'), (ARRAY[2])) s GROUP BY 1 ORDER BY 1", []string{"{1,2}|1", "{2}|2"}},
		{"SELECT CASE WHEN true THEN ARRAY[1] ELSE ARRAY[1.5] END, pg_typeof(coalesce(ARRAY[1], ARRAY[1.5]))", []string{"{1}|numeric[]"}},
		{"SELECT ARRAY[1] UNION ALL SELECT ARRAY[1.5]", []string{"{1}", "{1.5}"}},
		{"SELECT ARRAY(SELECT column1 FROM (VALUES (2), (1)) s ORDER BY 1), ARRAY((SELECT 'a') UNION ALL (SELECT 'b')), ARRAY(SELECT 1 WHERE false)",
			[]string{"{1,2}|{a,b}|{}"}},
		{"SELECT string_agg(DISTINCT column1, ',') FROM (VALUES ('b'), ('a'), ('b')) s", []string{"a,b"}},
	}
	checkRows(t, tests)
}

// TestArrayBindErrors checks array errors against PostgreSQL 15's.
func TestArrayBindErrors(t *testing.T) {
	tests := []struct{ sql, code, msg string }{
		{"SELECT ARRAY[]", "42P18", "cannot determine type of empty array"},
		{"SELECT ARRAY[1, 'x'::text]", "42804", "ARRAY types integer and text cannot be matched"},
		{"SELECT ARRAY[ARRAY[1], 2]", "42804", "ARRAY types integer[] and integer cannot be matched"},
		{"SELECT 1 = ANY (1)", "42809", "op ANY/ALL (array) requires array on right side"},
		{"SELECT (1)[1]", "42804", "cannot subscript type integer because it does not support subscripting"},
		{"SELECT (ARRAY[1])['a'::text]", "42804", "array subscript must have type integer"},
		{"SELECT ARRAY[1] = ARRAY[1.0]", "42883", "operator does not exist: integer[] = numeric[]"},
		{"SELECT ARRAY['a'] || 'b'", "22P02", `malformed array literal: "b"`},
		{"SELECT array_length('{1}', 1)", "42804", "could not determine polymorphic type because input has type unknown"},
		{"SELECT abs(DISTINCT 1)", "42809", "DISTINCT specified, but abs is not an aggregate function"},
		{"SELECT array_agg(ARRAY[1])", "0A000", "arrays of arrays are not supported"},
	}
	for _, tt := range tests {
		_, _, err := bindQuery(t, tt.sql)
		if pe := pgerror.From(err); err == nil || pe.Code != tt.code || pe.Message != tt.msg {
			t.Errorf("%s: got %v, want %s %s", tt.sql, err, tt.code, tt.msg)
		}
	}
}
