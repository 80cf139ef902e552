package sql_test

import (
	"context"
	"strconv"
	"testing"
)

// TestStatusStatementsRebind runs one prepared statement over
// streamdb_catalog.barrier_latency around a FLUSH: each execution reads
// the node's figures anew.
func TestStatusStatementsRebind(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	stmts, err := s.Prepare(context.Background(), "SELECT barriers FROM streamdb_catalog.barrier_latency", nil)
	if err != nil {
		t.Fatal(err)
	}
	barriers := func() int {
		t.Helper()
		res, err := runStatement(stmts[0])
		if err != nil {
			t.Fatal(err)
		}
		v, err := strconv.Atoi(res.rows[0])
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := barriers()
	mustQuery(t, s, "FLUSH")
	if after := barriers(); after <= before {
		t.Errorf("barriers after FLUSH = %d, before %d: the prepared statement did not read the figures again", after, before)
	}
}
