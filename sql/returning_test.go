package sql_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestDMLReturning runs INSERT, UPDATE and DELETE ... RETURNING through a
// session, alone and in a transaction block: one row per row written, the
// row description first, the command tag unchanged.
func TestDMLReturning(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	mustQuery(t, s, "CREATE TABLE rt (k INT PRIMARY KEY, v TEXT DEFAULT 'd')")
	mustQuery(t, s, "CREATE TABLE rh (x INT)")
	steps := []struct {
		sql  string
		cols string
		rows []string
		tag  string
	}{
		{"INSERT INTO rt (k) VALUES (1), (2) RETURNING k, v", "k,v", []string{"1|d", "2|d"}, "INSERT 0 2"},
		{"INSERT INTO rt VALUES (2, 'x'), (3, 'y') ON CONFLICT DO NOTHING RETURNING *", "k,v", []string{"3|y"}, "INSERT 0 1"},
		{"INSERT INTO rt AS r VALUES (3, 'z') ON CONFLICT (k) DO UPDATE SET v = r.v || excluded.v RETURNING r.v", "v", []string{"yz"}, "INSERT 0 1"},
		{"INSERT INTO rt VALUES (4, 'w') RETURNING (SELECT count(*) FROM rt) AS n", "n", []string{"3"}, "INSERT 0 1"},
		{"UPDATE rt SET v = upper(v) WHERE k = 1 RETURNING v, k + 1", "v,?column?", []string{"D|2"}, "UPDATE 1"},
		{"UPDATE rt SET v = 'none' WHERE k > 100 RETURNING v", "v", nil, "UPDATE 0"},
		{"DELETE FROM rt WHERE k = 4 RETURNING *", "k,v", []string{"4|w"}, "DELETE 1"},
		{"BEGIN", "", nil, "BEGIN"},
		{"INSERT INTO rh VALUES (7) RETURNING x * 2 AS twice", "twice", []string{"14"}, "INSERT 0 1"},
		{"UPDATE rh SET x = x + 1 RETURNING x", "x", []string{"8"}, "UPDATE 1"},
		{"DELETE FROM rt WHERE k = 3 RETURNING v", "v", []string{"yz"}, "DELETE 1"},
		{"COMMIT", "", nil, "COMMIT"},
		{"SELECT count(*) FROM rt", "count", []string{"2"}, "SELECT 1"},
		{"DELETE FROM rh RETURNING x, 'gone'", "x,?column?", []string{"8|gone"}, "DELETE 1"},
	}
	for _, st := range steps {
		res := mustQuery(t, s, st.sql)
		if got := strings.Join(res.cols, ","); got != st.cols {
			t.Errorf("%s: columns %q, want %q", st.sql, got, st.cols)
		}
		slices.Sort(res.rows)
		if !slices.Equal(res.rows, st.rows) || res.tag != st.tag {
			t.Errorf("%s: rows %q, tag %q; want %q, %q", st.sql, res.rows, res.tag, st.rows, st.tag)
		}
	}
	// An error in the list fails the statement: nothing is written.
	_, err := query(s, "INSERT INTO rt VALUES (5, 'a') RETURNING k / 0")
	wantError(t, err, "22012", "division by zero", "")
	if res := mustQuery(t, s, "SELECT count(*) FROM rt WHERE k = $1", types.NewInt(5)); res.rows[0] != "0" {
		t.Errorf("a failed INSERT ... RETURNING wrote %s rows", res.rows[0])
	}
}
