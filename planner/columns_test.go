package planner_test

import (
	"fmt"
	"slices"
	"testing"
)

// TestResultColumns checks output column names and types against what
// PostgreSQL 15 reports in RowDescription.
func TestResultColumns(t *testing.T) {
	tests := []struct {
		sql  string
		want []string // "name type"
	}{
		{"SELECT 1, 'a', 1.5, NULL, -1, 2147483648, 9223372036854775808",
			[]string{"?column? integer", "?column? text", "?column? numeric", "?column? text", "?column? integer", "?column? bigint", "?column? numeric"}},
		{"SELECT -2147483648, true, false",
			[]string{"?column? integer", "bool boolean", "bool boolean"}},
		{"SELECT count(*), count(c), avg(b), sum(b), sum(x), sum(f), avg(f), max(c), min(ts), string_agg(c, ',') FROM t, u",
			[]string{"count bigint", "count bigint", "avg numeric", "sum bigint", "sum numeric", "sum double precision",
				"avg double precision", "max text", "min timestamp without time zone", "string_agg text"}},
		{"SELECT a+b, a::text, 1::int8, 'x'::varchar(3), CAST(a AS bigint), 'x'::text, date '2020-01-01', 1::numeric(10,2) FROM t",
			[]string{"?column? integer", "a text", "int8 bigint", "varchar character varying(3)", "a bigint", "text text", "date date", "numeric numeric(10,2)"}},
		{"SELECT n, n + 1, f * 2, a / 2, 7 % 3, ts FROM t",
			[]string{"n numeric(10,2)", "?column? numeric", "?column? double precision", "?column? integer", "?column? integer", "ts timestamp without time zone"}},
		{"SELECT x.* FROM t x",
			[]string{"a integer", "b integer", "c text", "n numeric(10,2)", "f double precision", "ts timestamp without time zone"}},
		{"SELECT *, _row_id FROM u", []string{"a integer", "x bigint", "y character varying(10)", "_row_id bigint"}},
		{"SELECT u.*, t.a FROM t, u", []string{"a integer", "x bigint", "y character varying(10)", "a integer"}},
		{"SELECT CASE WHEN b > 0 THEN 1 ELSE 2.5 END, coalesce(a, 0), a IS NULL, 'a' || 'b', c ~ 'x', 1 AS \"X\" FROM t",
			[]string{"case numeric", "coalesce integer", "?column? boolean", "?column? text", "?column? boolean", "X integer"}},
		{"SELECT exists(SELECT 1), (SELECT 1), (SELECT b FROM t LIMIT 1), (SELECT 1 AS one), a IN (SELECT x FROM u) FROM t",
			[]string{"exists boolean", "?column? integer", "b integer", "one integer", "?column? boolean"}},
		{"SELECT now(), current_timestamp, upper(c), length(c), lower('X') FROM t",
			[]string{"now timestamp with time zone", "current_timestamp timestamp with time zone", "upper text", "length integer", "lower text"}},
		{"SELECT c FROM t UNION SELECT y FROM u", []string{"c text"}},
		{"SELECT 1 AS a UNION SELECT 2.5 AS b", []string{"a numeric"}},
		{"SELECT y FROM u UNION ALL SELECT y FROM u", []string{"y character varying(10)"}},
		{"SELECT y FROM u UNION ALL SELECT 'abc'::varchar(20)", []string{"y character varying"}},
		{"SELECT NULL UNION SELECT 1", []string{"?column? integer"}},
		{"VALUES (1, 'a'), (2.5, NULL)", []string{"column1 numeric", "column2 text"}},
		{"SELECT * FROM t JOIN u USING (a)",
			[]string{"a integer", "b integer", "c text", "n numeric(10,2)", "f double precision", "ts timestamp without time zone", "x bigint", "y character varying(10)"}},
		{"SELECT * FROM v", []string{"a integer", "c text"}},
		{"SELECT b, count(*) AS n FROM t GROUP BY b HAVING count(*) > 1 ORDER BY 2 DESC", []string{"b integer", "n bigint"}},
		{"SELECT a AS z FROM t ORDER BY z, c", []string{"z integer"}},
		{"WITH w2 (k) AS (SELECT a FROM t) SELECT * FROM w2", []string{"k integer"}},
		{"SELECT s.* FROM (SELECT a, c AS label FROM t) s", []string{"a integer", "label text"}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			n := mustBind(t, tt.sql)
			var got []string
			for _, c := range n.Columns() {
				got = append(got, fmt.Sprintf("%s %s", c.Name, c.T))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("columns\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// TestColumnOrigins checks the table OID and attribute number reported for
// plain column references (RowDescription's TableOID and AttrNum).
func TestColumnOrigins(t *testing.T) {
	id := func(name string) int {
		tb, _ := catalog.Table("public", name)
		return int(tb.ID)
	}
	t0, u0, v0 := id("t"), id("u"), id("v")
	tests := []struct {
		sql  string
		want [][2]int // table id, attribute number; 0, 0 for computed
	}{
		{"SELECT a, c, a + 1 FROM t", [][2]int{{t0, 1}, {t0, 3}, {0, 0}}},
		{"SELECT c FROM t ORDER BY b", [][2]int{{t0, 3}}},
		{"SELECT s.a FROM (SELECT a FROM t) s", [][2]int{{t0, 1}}},
		{"SELECT b, count(*) FROM t GROUP BY b", [][2]int{{t0, 2}, {0, 0}}},
		{"SELECT a, x FROM t JOIN u USING (a)", [][2]int{{t0, 1}, {u0, 2}}},
		{"SELECT a FROM t RIGHT JOIN u USING (a)", [][2]int{{u0, 1}}},
		{"SELECT a FROM t FULL JOIN u USING (a)", [][2]int{{0, 0}}},
		{"SELECT * FROM v", [][2]int{{v0, 1}, {v0, 2}}},
		{"SELECT 1", [][2]int{{0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			var got [][2]int
			for _, c := range mustBind(t, tt.sql).Columns() {
				got = append(got, [2]int{int(c.TableID), int(c.Attr)})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("origins %v, want %v", got, tt.want)
			}
		})
	}
}
