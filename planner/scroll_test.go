package planner_test

import (
	"testing"

	"github.com/streamdb/streamdb/planner"
)

// TestScrollable checks which queries a cursor declared without SCROLL or
// NO SCROLL goes backward over, as PostgreSQL 15 decides.
func TestScrollable(t *testing.T) {
	cases := []struct {
		sql  string
		want bool
	}{
		{"SELECT * FROM t WHERE a > 2", true},
		{"SELECT a FROM t ORDER BY a LIMIT 3", true},
		{"VALUES (1), (2)", true},
		{"SELECT * FROM generate_series(1, 5)", true},
		{"SELECT a FROM t UNION ALL SELECT a FROM t", true},
		{"SELECT 1", false},
		{"SELECT count(*) FROM t", false},
		{"SELECT DISTINCT a FROM t", false},
		{"SELECT a FROM t UNION SELECT a FROM t", false},
		{"SELECT * FROM t JOIN t AS t2 ON t.a = t2.a", false},
		{"SELECT a, row_number() OVER () FROM t", false},
	}
	for _, tc := range cases {
		if got := planner.Scrollable(mustBind(t, tc.sql)); got != tc.want {
			t.Errorf("%s: scrollable %v, want %v", tc.sql, got, tc.want)
		}
	}
}
