package sql_test

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestIngest loads rows through the bulk path into a table with a primary
// key and one with hidden row ids, more than a chunk at a time, and checks
// that tables and views see them once the epoch is committed and that bad
// rows are refused before any is sent.
func TestIngest(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	ctx := context.Background()
	mustQuery(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text NOT NULL)")
	mustQuery(t, s, "CREATE TABLE log (v text)")
	mustQuery(t, s, "CREATE MATERIALIZED VIEW counts AS SELECT v, count(*) AS n FROM log GROUP BY v")

	kv := make([][]types.Datum, 2500)
	for i := range kv {
		kv[i] = []types.Datum{types.NewInt(int64(i)), types.NewString("v")}
	}
	if _, err := n.e.Ingest(ctx, "kv", kv); err != nil {
		t.Fatal(err)
	}
	log := [][]types.Datum{{types.NewString("a")}, {types.NewString("b")}, {types.NewString("a")}}
	epoch, err := n.e.Ingest(ctx, "log", log)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.e.WaitCommitted(ctx, epoch); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "kv", mustQuery(t, s, "SELECT count(*), min(k), max(k) FROM kv").rows, []string{"2500|0|2499"})
	equalStrings(t, "counts", mustQuery(t, s, "SELECT v, n FROM counts ORDER BY v").rows, []string{"a|2", "b|1"})
	// Hidden row ids continue after the ingested ones.
	mustQuery(t, s, "INSERT INTO log VALUES ('c')")
	equalStrings(t, "log", mustQuery(t, s, "SELECT count(DISTINCT _row_id) FROM log").rows, []string{"4"})

	errs := []struct {
		name, table string
		rows        [][]types.Datum
		code        string
	}{
		{"unknown table", "nope", log, pgerror.CodeUndefinedTable},
		{"view", "counts", log, pgerror.CodeWrongObjectType},
		{"too few values", "kv", [][]types.Datum{{types.NewInt(1)}}, pgerror.CodeSyntaxError},
		{"null key", "kv", [][]types.Datum{{types.NewInt(9000), types.NewString("x")}, {types.Datum{}, types.NewString("x")}}, pgerror.CodeNotNullViolation},
		{"null not-null column", "kv", [][]types.Datum{{types.NewInt(9001), types.Datum{}}}, pgerror.CodeNotNullViolation},
	}
	for _, tt := range errs {
		if _, err := n.e.Ingest(ctx, tt.table, tt.rows); pgerror.Code(err) != tt.code {
			t.Errorf("%s: error %v, want code %s", tt.name, err, tt.code)
		}
	}
	if err := n.e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "kv after refused rows", mustQuery(t, s, "SELECT count(*) FROM kv").rows, []string{"2500"})
}
