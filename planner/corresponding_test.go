package planner_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestCorresponding checks set operations with CORRESPONDING [BY], as
// RisingWave (and the SQL standard) define them: columns matched by name.
func TestCorresponding(t *testing.T) {
	tests := []struct {
		sql, cols string
		want      []string
	}{
		{"SELECT 1 AS a, 2 AS b, 3 AS c UNION ALL CORRESPONDING SELECT 4 AS c, 5 AS d, 6 AS a",
			"a c", []string{"1|3", "6|4"}},
		{"SELECT 1 AS a, 2 AS b, 3 AS c UNION CORRESPONDING BY (c, a) SELECT 3 AS c, 5 AS b, 1 AS a",
			"c a", []string{"3|1"}},
		{"SELECT 1 AS a, 2 AS b EXCEPT CORRESPONDING SELECT 2 AS b ORDER BY 1", "b", nil},
		{"SELECT 1 AS a, 2 AS b INTERSECT ALL CORRESPONDING BY (b) SELECT 2 AS b, 9 AS z", "b", []string{"2"}},
		// INTERSECT binds tighter: the operand is (b INTERSECT b).
		{"SELECT 7 AS x, 1 AS a UNION ALL CORRESPONDING SELECT 2 AS a INTERSECT SELECT 2 AS a ORDER BY a", "a", []string{"1", "2"}},
		{"SELECT 'x' AS s, 1 AS n UNION ALL CORRESPONDING SELECT 2.5 AS n, 'y' AS s ORDER BY 2", "s n", []string{"x|1", "y|2.5"}},
		{"SELECT a, c FROM (SELECT 1 AS a, 'q' AS c) s UNION ALL CORRESPONDING (SELECT 'r' AS c, 2 AS a) ORDER BY a", "a c", []string{"1|q", "2|r"}},
	}
	for _, tt := range tests {
		n := mustBind(t, tt.sql)
		var names []string
		for _, c := range n.Columns() {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, " "); got != tt.cols {
			t.Errorf("%s: columns %q, want %q", tt.sql, got, tt.cols)
		}
		if got := runQuery(t, tt.sql); !slices.Equal(got, tt.want) {
			t.Errorf("%s: rows %q, want %q", tt.sql, got, tt.want)
		}
	}
}

func TestCorrespondingErrors(t *testing.T) {
	tests := []struct{ sql, msg string }{
		{"SELECT 1 AS a UNION CORRESPONDING SELECT 1 AS b",
			"UNION CORRESPONDING needs a column name common to both sides: left side columns (a), right side columns (b)"},
		{"SELECT 1 AS a, 2 AS b UNION CORRESPONDING BY (a, z) SELECT 1 AS a",
			`column name "z" in CORRESPONDING BY is not found in both sides of the UNION operation`},
		{"SELECT 1 AS a, 2 AS a EXCEPT CORRESPONDING SELECT 1 AS a",
			`column name "a" appears more than once in an operand of EXCEPT CORRESPONDING`},
	}
	for _, tt := range tests {
		_, _, err := bindQuery(t, tt.sql)
		if pe := pgerror.From(err); err == nil || pe.Code != pgerror.CodeInvalidColumnReference || pe.Message != tt.msg {
			t.Errorf("%s: got %v, want 42P10 %s", tt.sql, err, tt.msg)
		}
	}
}
