package sql_test

import (
	"context"
	"slices"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestTxStatus walks the transaction status PostgreSQL reports in
// ReadyForQuery: 'I' idle, 'T' in a block, 'E' in a failed block, where
// every statement but COMMIT/ROLLBACK fails with 25P02.
func TestTxStatus(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	const aborted = "current transaction is aborted, commands ignored until end of transaction block"
	steps := []struct {
		sql    string
		code   string // expected SQLSTATE, "" for success
		tag    string
		status byte
	}{
		{"SELECT 1", "", "SELECT 1", 'I'},
		{"SELECT 1/0", "22012", "", 'I'},
		{"SELECT * FROM nosuch", "42P01", "", 'I'},
		{"COMMIT", "", "COMMIT", 'I'},
		{"BEGIN", "", "BEGIN", 'T'},
		{"SELECT 1", "", "SELECT 1", 'T'},
		{"BEGIN", "", "BEGIN", 'T'},
		{"COMMIT", "", "COMMIT", 'I'},
		// A run-time error aborts the block.
		{"BEGIN", "", "BEGIN", 'T'},
		{"SELECT 1/0", "22012", "", 'E'},
		{"SELECT 1", "25P02", "", 'E'},
		{"SELECT * FROM nosuch", "25P02", "", 'E'},
		{"SHOW application_name", "25P02", "", 'E'},
		{"BEGIN", "25P02", "", 'E'},
		{"ROLLBACK", "", "ROLLBACK", 'I'},
		{"SELECT 1", "", "SELECT 1", 'I'},
		// So do binding and syntax errors; COMMIT of a failed block rolls back.
		{"BEGIN", "", "BEGIN", 'T'},
		{"SELECT * FROM nosuch", "42P01", "", 'E'},
		{"COMMIT", "", "ROLLBACK", 'I'},
		{"START TRANSACTION", "", "START TRANSACTION", 'T'},
		{"SELEC 1", "42601", "", 'E'},
		{"ROLLBACK", "", "ROLLBACK", 'I'},
		{"ROLLBACK", "", "ROLLBACK", 'I'},
	}
	for i, st := range steps {
		res, err := query(s, st.sql)
		if st.code == "" {
			if err != nil {
				t.Fatalf("step %d %s: %v", i, st.sql, err)
			}
			if res.tag != st.tag {
				t.Errorf("step %d %s: tag %q, want %q", i, st.sql, res.tag, st.tag)
			}
		} else if st.code == "25P02" {
			wantError(t, err, st.code, aborted, "")
		} else if err == nil || pgerror.Code(err) != st.code {
			t.Errorf("step %d %s: error %v, want %s", i, st.sql, err, st.code)
		}
		if got := s.TxStatus(); got != st.status {
			t.Fatalf("step %d %s: status %q, want %q", i, st.sql, got, st.status)
		}
	}
}

// TestTxStatusMultiStatement runs a simple-protocol query string: its
// statements are bound when run, so an error aborts the ones after it.
func TestTxStatusMultiStatement(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	stmts, err := s.Prepare(context.Background(), "BEGIN; SELECT 1/0; SELECT 1; ROLLBACK; SELECT 2", nil)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	var statuses []byte
	for _, st := range stmts {
		_, err := runStatement(st)
		codes = append(codes, pgerror.Code(err))
		statuses = append(statuses, s.TxStatus())
	}
	equalStrings(t, "codes", codes, []string{"", "22012", "25P02", "", ""})
	if want := []byte("TEEII"); !slices.Equal(statuses, want) {
		t.Errorf("statuses %q, want %q", statuses, want)
	}
}

// TestPrepare checks what Parse/Describe report: parameter types and
// result columns, and that a prepared statement notices DDL.
func TestPrepare(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	ctx := context.Background()
	mustQuery(t, s, "CREATE TABLE p (k int PRIMARY KEY, v text)")

	stmts, err := s.Prepare(ctx, "SELECT k, v, k + $2 FROM p WHERE v = $1", []types.OID{0, types.OIDInt8})
	if err != nil {
		t.Fatal(err)
	}
	st := stmts[0]
	var params, cols []string
	for _, p := range st.ParamTypes() {
		params = append(params, p.String())
	}
	for _, c := range st.Columns() {
		cols = append(cols, c.Name+" "+c.Type.String())
	}
	equalStrings(t, "param types", params, []string{"text", "bigint"})
	equalStrings(t, "columns", cols, []string{"k integer", "v text", "?column? bigint"})
	if c := st.Columns()[0]; c.TableOID == 0 || c.AttrNum != 1 {
		t.Errorf("column k has table OID %d, attribute %d", c.TableOID, c.AttrNum)
	}

	ins, err := s.Prepare(ctx, "INSERT INTO p VALUES ($1, $2)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if ins[0].Columns() != nil {
		t.Errorf("INSERT has result columns %v", ins[0].Columns())
	}
	if _, err := runStatement(ins[0], types.NewInt(1), types.NewString("one")); err != nil {
		t.Fatal(err)
	}
	res, err := runStatement(st, types.NewString("one"), types.NewInt(10))
	if err != nil {
		t.Fatal(err)
	}
	equalStrings(t, "rows", res.rows, []string{"1|one|11"})

	_, err = s.Prepare(ctx, "SELECT $1::int4", []types.OID{999999})
	wantError(t, err, "42704", "type with OID 999999 does not exist", "")

	// A prepared statement is bound again after DDL; its result columns
	// must not change.
	star, err := s.Prepare(ctx, "SELECT * FROM p", nil)
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, s, "DROP TABLE p")
	_, err = runStatement(star[0])
	wantError(t, err, "42P01", `relation "p" does not exist`, "")
	mustQuery(t, s, "CREATE TABLE p (k int PRIMARY KEY, v int)")
	_, err = runStatement(star[0])
	wantError(t, err, "0A000", "cached plan must not change result type", "")
}
