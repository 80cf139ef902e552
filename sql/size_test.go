package sql_test

import (
	"strconv"
	"testing"
)

// TestRelationSizes checks that the size functions measure what a
// relation holds: nothing for an empty table, its rows' bytes after an
// insert, its state with pg_total_relation_size, all of it in
// pg_database_size.
func TestRelationSizes(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	mustQuery(t, s, "CREATE TABLE sz (a int PRIMARY KEY, b text)")
	size := func(q string) int {
		t.Helper()
		r := mustQuery(t, s, q)
		v, err := strconv.Atoi(r.rows[0])
		if err != nil {
			t.Fatalf("%s: %v", q, r.rows)
		}
		return v
	}
	if got := size("SELECT pg_relation_size('sz')"); got != 0 {
		t.Errorf("empty table: %d bytes", got)
	}
	mustQuery(t, s, "INSERT INTO sz SELECT g, repeat('x', 100) FROM generate_series(1, 1000) g")
	mustQuery(t, s, "CREATE MATERIALIZED VIEW sz_mv AS SELECT a % 10 AS g, count(*) AS n FROM sz GROUP BY 1")
	rows := size("SELECT pg_relation_size('sz')")
	if rows < 100*1000 || rows > 1000*1000 {
		t.Errorf("1000 rows of 100 bytes: %d bytes", rows)
	}
	mv, total := size("SELECT pg_relation_size('sz_mv')"), size("SELECT pg_total_relation_size('sz_mv')")
	if mv <= 0 || total <= mv {
		t.Errorf("view: rows %d bytes, with state %d", mv, total)
	}
	if db := size("SELECT pg_database_size('streamdb')"); db < rows+total {
		t.Errorf("database %d bytes < table %d + view %d", db, rows, total)
	}
	if got := size("SELECT pg_indexes_size('sz')"); got != 0 {
		t.Errorf("indexes: %d bytes", got)
	}
	if _, err := query(s, "SELECT pg_relation_size('nosuch')"); err == nil {
		t.Errorf("a missing relation should be an error")
	}
}
