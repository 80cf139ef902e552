package e2e

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestClusterReturning sends INSERT, UPDATE and DELETE ... RETURNING to
// both nodes of a two-node cluster: one of them forwards each statement
// to the node that writes the table, and the rows come back with it.
func TestClusterReturning(t *testing.T) {
	conns := connectCluster(t, startCluster(t, 2), pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conns[0], "CREATE TABLE fwd (k INT PRIMARY KEY, v TEXT DEFAULT 'd')")
	for i, c := range conns {
		id := string(rune('1' + i))
		queries := []struct{ sql, want string }{
			{"INSERT INTO fwd (k) VALUES (" + id + ") RETURNING k, v, upper(v) AS u", id + "|d|D"},
			{"UPDATE fwd SET v = v || 'x' WHERE k = " + id + " RETURNING *", id + "|dx"},
			{"DELETE FROM fwd WHERE k = " + id + " RETURNING v, k * 10", "dx|" + id + "0"},
		}
		for _, q := range queries {
			if got := strings.Join(rowsOf(t, c, q.sql), ","); got != q.want {
				t.Errorf("node n%d: %s returned %q, want %q", i+1, q.sql, got, q.want)
			}
		}
	}
}
