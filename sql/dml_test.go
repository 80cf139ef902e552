package sql_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql"
	"github.com/streamdb/streamdb/types"
)

func equalStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n got  %q\n want %q", what, got, want)
	}
}

// TestDML drives the write path through a session: inserts, key and
// NOT NULL violations (each statement all or nothing), an update that
// swaps primary keys, and deletes.
func TestDML(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	mustQuery(t, s, "CREATE TABLE kv (k int PRIMARY KEY, v text NOT NULL, n int)")
	contents := func() []string {
		t.Helper()
		return mustQuery(t, s, "SELECT k, v, n FROM kv ORDER BY k").rows
	}

	before := n.e.ReadEpoch()
	if res := mustQuery(t, s, "INSERT INTO kv VALUES (1, 'a', NULL), (2, 'b', 20)"); res.tag != "INSERT 0 2" {
		t.Errorf("tag %q", res.tag)
	}
	if after := n.e.ReadEpoch(); after <= before {
		t.Errorf("read epoch %d after an insert, was %d", after, before)
	}
	if res := mustQuery(t, s, "INSERT INTO kv (v, k) VALUES ($1, $2)", types.NewString("c"), types.NewInt(3)); res.tag != "INSERT 0 1" {
		t.Errorf("tag %q", res.tag)
	}
	equalStrings(t, "rows", contents(), []string{"1|a|NULL", "2|b|20", "3|c|NULL"})

	errors := []struct {
		sql, code, msg, detail string
	}{
		{"INSERT INTO kv VALUES (1, 'dup', 0)", "23505", `duplicate key value violates unique constraint "kv_pkey"`, "Key (k)=(1) already exists."},
		{"INSERT INTO kv VALUES (4, 'd', 0), (1, 'x', 0)", "23505", `duplicate key value violates unique constraint "kv_pkey"`, "Key (k)=(1) already exists."},
		{"INSERT INTO kv VALUES (5, 'x', 0), (5, 'y', 0)", "23505", `duplicate key value violates unique constraint "kv_pkey"`, "Key (k)=(5) already exists."},
		{"INSERT INTO kv (k) VALUES (9)", "23502", `null value in column "v" of relation "kv" violates not-null constraint`, "Failing row contains (9, null, null)."},
		{"INSERT INTO kv (v) VALUES ('x')", "23502", `null value in column "k" of relation "kv" violates not-null constraint`, "Failing row contains (null, x, null)."},
		{"UPDATE kv SET k = 1 WHERE k = 2", "23505", `duplicate key value violates unique constraint "kv_pkey"`, "Key (k)=(1) already exists."},
		{"UPDATE kv SET v = NULL WHERE k = 3", "23502", `null value in column "v" of relation "kv" violates not-null constraint`, "Failing row contains (3, null, null)."},
		{"UPDATE kv SET n = 1 / (k - 2)", "22012", "division by zero", ""},
	}
	for _, tt := range errors {
		_, err := query(s, tt.sql)
		wantError(t, err, tt.code, tt.msg, tt.detail)
	}
	equalStrings(t, "rows after failed statements", contents(), []string{"1|a|NULL", "2|b|20", "3|c|NULL"})

	// Swapping keys deletes every old key before inserting the new ones.
	if res := mustQuery(t, s, "UPDATE kv SET k = 3 - k WHERE k IN (1, 2)"); res.tag != "UPDATE 2" {
		t.Errorf("tag %q", res.tag)
	}
	equalStrings(t, "rows after swap", contents(), []string{"1|b|20", "2|a|NULL", "3|c|NULL"})
	if res := mustQuery(t, s, "UPDATE kv SET k = k + 1"); res.tag != "UPDATE 3" {
		t.Errorf("tag %q", res.tag)
	}
	if res := mustQuery(t, s, "UPDATE kv SET n = 0 WHERE k > 100"); res.tag != "UPDATE 0" {
		t.Errorf("tag %q", res.tag)
	}
	equalStrings(t, "rows after shift", contents(), []string{"2|b|20", "3|a|NULL", "4|c|NULL"})

	if res := mustQuery(t, s, "DELETE FROM kv WHERE n IS NULL"); res.tag != "DELETE 2" {
		t.Errorf("tag %q", res.tag)
	}
	equalStrings(t, "rows after delete", contents(), []string{"2|b|20"})
	// A deleted key can be inserted again.
	mustQuery(t, s, "INSERT INTO kv VALUES (3, 'again', 3)")
	if res := mustQuery(t, s, "DELETE FROM kv"); res.tag != "DELETE 2" {
		t.Errorf("tag %q", res.tag)
	}
	equalStrings(t, "rows after delete all", contents(), nil)
}

// TestDuplicateKeyDetail checks the key rendering of 23505 details.
func TestDuplicateKeyDetail(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	tests := []struct {
		table, create, insert, detail string
	}{
		{"c2", "CREATE TABLE c2 (a int, b text, c int, PRIMARY KEY (b, a))", "INSERT INTO c2 VALUES (1, 'x y', 0)", "Key (b, a)=(x y, 1) already exists."},
		{"fr", "CREATE TABLE fr (k real PRIMARY KEY)", "INSERT INTO fr VALUES (1.1)", "Key (k)=(1.1) already exists."},
		{"ts", "CREATE TABLE ts (k timestamp PRIMARY KEY)", "INSERT INTO ts VALUES ('2020-01-02 03:04:05')", "Key (k)=(2020-01-02 03:04:05) already exists."},
	}
	for _, tt := range tests {
		mustQuery(t, s, tt.create)
		mustQuery(t, s, tt.insert)
		_, err := query(s, tt.insert)
		wantError(t, err, "23505", `duplicate key value violates unique constraint "`+tt.table+`_pkey"`, tt.detail)
	}
}

// TestHiddenRowIDs checks that tables without a primary key get row ids
// that stay unique across an engine restart.
func TestHiddenRowIDs(t *testing.T) {
	n := openNode(t)
	s := n.connect(nil)
	mustQuery(t, s, "CREATE TABLE h (x int)")
	mustQuery(t, s, "INSERT INTO h VALUES (1), (1), (2)")
	mustQuery(t, s, "INSERT INTO h SELECT x FROM h")
	n.restart()
	s = n.connect(nil)
	mustQuery(t, s, "INSERT INTO h VALUES (3), (NULL)")
	res := mustQuery(t, s, "SELECT _row_id, x FROM h")
	if len(res.rows) != 8 {
		t.Fatalf("rows %q, want 8", res.rows)
	}
	ids := map[string]bool{}
	for _, r := range res.rows {
		id, _, _ := strings.Cut(r, "|")
		if ids[id] {
			t.Errorf("row id %s used twice in %q", id, res.rows)
		}
		ids[id] = true
	}
	equalStrings(t, "columns of *", mustQuery(t, s, "SELECT * FROM h LIMIT 0").cols, []string{"x"})
}

// TestConcurrentWriters runs writers on many sessions at once, which share
// commits instead of queueing: every key is inserted once however many
// sessions try (23505 for the others), increments of one row are not lost,
// and a view over the table agrees with it.
func TestConcurrentWriters(t *testing.T) {
	n := openNode(t)
	setup := n.connect(nil)
	mustQuery(t, setup, "CREATE TABLE kv (k int PRIMARY KEY, v int)")
	mustQuery(t, setup, "CREATE MATERIALIZED VIEW kvs AS SELECT count(*) AS n, sum(v) AS s FROM kv")
	mustQuery(t, setup, "INSERT INTO kv VALUES (0, 0)")
	const sessions, keys, bumps = 8, 40, 15
	var inserted, dups atomic.Int64
	inSessions(t, n, sessions, func(i int, s *sql.Session) error {
		for k := 1; k <= keys; k++ {
			_, err := query(s, "INSERT INTO kv VALUES ($1, 1)", types.NewInt(int64((k+i)%keys+1)))
			switch pgerror.Code(err) {
			case "":
				inserted.Add(1)
			case pgerror.CodeUniqueViolation:
				dups.Add(1)
			default:
				return err
			}
		}
		for range bumps {
			if _, err := query(s, "UPDATE kv SET v = v + 1 WHERE k = 0"); err != nil {
				return err
			}
		}
		return nil
	})
	if inserted.Load() != keys || dups.Load() != keys*(sessions-1) {
		t.Fatalf("%d inserts succeeded and %d were duplicates, want %d and %d", inserted.Load(), dups.Load(), keys, keys*(sessions-1))
	}
	res := mustQuery(t, setup, "SELECT v FROM kv WHERE k = 0")
	equalStrings(t, "counter", res.rows, []string{fmt.Sprint(sessions * bumps)})
	mustQuery(t, setup, "FLUSH")
	res = mustQuery(t, setup, "SELECT n, s FROM kvs")
	equalStrings(t, "view", res.rows, []string{fmt.Sprintf("%d|%d", keys+1, keys+sessions*bumps)})
}

// TestWritersShareBarriers checks group commit: single-row INSERTs of
// concurrent sessions, each acknowledged once its epoch commits, share
// barriers, where a barrier per INSERT (each asks for one at once) would
// make as many epochs as rows.
func TestWritersShareBarriers(t *testing.T) {
	n := openNode(t)
	setup := n.connect(nil)
	mustQuery(t, setup, "CREATE TABLE g (k int PRIMARY KEY, v int)")
	mustQuery(t, setup, "CREATE MATERIALIZED VIEW gs AS SELECT v, count(*) AS n FROM g GROUP BY v")
	const sessions, rows = 16, 25
	before := n.e.ReadEpoch()
	inSessions(t, n, sessions, func(i int, s *sql.Session) error {
		for r := range rows {
			if _, err := query(s, "INSERT INTO g VALUES ($1, $2)", types.NewInt(int64(i*rows+r)), types.NewInt(int64(r%3))); err != nil {
				return err
			}
		}
		return nil
	})
	epochs := n.e.ReadEpoch() - before
	t.Logf("%d acknowledged INSERTs took %d epochs", sessions*rows, epochs)
	if epochs >= sessions*rows/2 {
		t.Errorf("%d acknowledged INSERTs of %d sessions took %d epochs: concurrent writers do not share barriers", sessions*rows, sessions, epochs)
	}
	mustQuery(t, setup, "FLUSH")
	res := mustQuery(t, setup, "SELECT sum(n) FROM gs")
	equalStrings(t, "rows counted by the view", res.rows, []string{fmt.Sprint(sessions * rows)})
}

// inSessions runs fn on sessions new sessions of n at once, each with its
// number, and fails t with the first error any returns.
func inSessions(t *testing.T, n *testNode, sessions int, fn func(i int, s *sql.Session) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(i, n.connect(nil)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
