package sql_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestCursors runs cursors through sessions, each statement prepared
// alone as the extended protocol does: the transaction rules, the
// snapshot, WITH HOLD across COMMIT and ROLLBACK, and pg_cursors.
func TestCursors(t *testing.T) {
	n := openNode(t)
	s, other := n.connect(nil), n.connect(nil)
	mustQuery(t, s, "CREATE TABLE ct (k INT PRIMARY KEY)")
	mustQuery(t, s, "INSERT INTO ct VALUES (1), (2), (3), (4), (5)")
	steps := []struct {
		s      bool // run on other
		sql    string
		params []types.Datum
		want   string // rows joined by ",", then " / " and the tag; or the error's code
	}{
		{false, "DECLARE c CURSOR FOR SELECT k FROM ct", nil, "25P01"},
		{false, "BEGIN", nil, " / BEGIN"},
		{false, "DECLARE c CURSOR FOR SELECT k FROM ct WHERE k > $1 ORDER BY k", []types.Datum{types.NewInt(1)}, " / DECLARE CURSOR"},
		{false, "FETCH 2 FROM c", nil, "2,3 / FETCH 2"},
		{true, "INSERT INTO ct VALUES (6)", nil, " / INSERT 0 1"},
		{false, "FETCH ALL FROM c", nil, "4,5 / FETCH 2"},
		{false, "MOVE BACKWARD 1 IN c", nil, " / MOVE 1"},
		{false, "FETCH PRIOR c", nil, "4 / FETCH 1"},
		{false, "DECLARE h CURSOR WITH HOLD FOR SELECT k FROM ct ORDER BY k", nil, " / DECLARE CURSOR"},
		{false, "SELECT name, is_holdable, is_scrollable, statement FROM pg_cursors ORDER BY name", nil,
			"c|f|t|DECLARE c CURSOR FOR SELECT k FROM ct WHERE k > $1 ORDER BY k,h|t|t|DECLARE h CURSOR WITH HOLD FOR SELECT k FROM ct ORDER BY k / SELECT 2"},
		{false, "COMMIT", nil, " / COMMIT"},
		{false, "FETCH 1 FROM c", nil, "34000"},
		{false, "FETCH 2 FROM h", nil, "1,2 / FETCH 2"},
		{false, "BEGIN", nil, " / BEGIN"},
		{false, "FETCH h", nil, "3 / FETCH 1"},
		{false, "ROLLBACK", nil, " / ROLLBACK"},
		{false, "FETCH ALL h", nil, "4,5,6 / FETCH 3"},
		{false, "CLOSE h", nil, " / CLOSE CURSOR"},
		{false, "CLOSE h", nil, "34000"},
		{false, "BEGIN", nil, " / BEGIN"},
		{false, "DECLARE d NO SCROLL CURSOR FOR SELECT k FROM ct", nil, " / DECLARE CURSOR"},
		{false, "DECLARE d CURSOR FOR SELECT 1", nil, "42P03"},
		{false, "FETCH d", nil, "25P02"},
		{false, "ROLLBACK", nil, " / ROLLBACK"},
		{false, "BEGIN", nil, " / BEGIN"},
		{false, "DECLARE d NO SCROLL CURSOR FOR SELECT k FROM ct", nil, " / DECLARE CURSOR"},
		{false, "FETCH PRIOR FROM d", nil, "55000"},
		{false, "ROLLBACK", nil, " / ROLLBACK"},
		{false, "SELECT count(*) FROM pg_cursors", nil, "0 / SELECT 1"},
	}
	for _, st := range steps {
		sess := s
		if st.s {
			sess = other
		}
		res, err := query(sess, st.sql, st.params...)
		got := strings.Join(res.rows, ",") + " / " + res.tag
		if pe := (*pgerror.Error)(nil); errors.As(err, &pe) {
			got = pe.Code
		} else if err != nil {
			got = err.Error()
		}
		if got != st.want {
			t.Fatalf("%s: got %q, want %q", st.sql, got, st.want)
		}
	}
}
