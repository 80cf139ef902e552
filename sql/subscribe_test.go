package sql

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// TestSubscribeForms checks each spelling's options, defaults and result
// columns.
func TestSubscribeForms(t *testing.T) {
	cols := []pgwire.Column{{Name: "id", Type: types.TInt4}}
	for _, tc := range []struct {
		sql                string
		snapshot, progress bool
		columns            []string
		err                string
	}{
		{sql: "SUBSCRIBE v", snapshot: true, columns: []string{"mz_timestamp", "mz_diff", "id"}},
		{sql: "SUBSCRIBE v WITH (snapshot = false, progress)", progress: true, columns: []string{"mz_timestamp", "mz_progressed", "mz_diff", "id"}},
		{sql: "SUBSCRIBE s AS OF 7", columns: []string{"mz_timestamp", "mz_diff", "id"}},
		{sql: "SUBSCRIBE s WITH (snapshot) AS OF 7", snapshot: true, columns: []string{"mz_timestamp", "mz_diff", "id"}},
		{sql: "DECLARE c SUBSCRIPTION CURSOR FOR s", columns: []string{"id", "op", "rw_timestamp"}},
		{sql: "DECLARE c SUBSCRIPTION CURSOR FOR s FULL", snapshot: true, columns: []string{"id", "op", "rw_timestamp"}},
		{sql: "SUBSCRIBE v WITH (snapshot = maybe)", err: pgerror.CodeInvalidParameterValue},
		{sql: "SUBSCRIBE v WITH (up_to = 9)", err: pgerror.CodeInvalidParameterValue},
	} {
		stmts, err := parser.Parse(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		x, ok := stmts[0].Utility.(*parser.Subscribe)
		if !ok {
			x = stmts[0].Utility.(*parser.Declare).Subscribe
		}
		snapshot, progress, err := subscribeOptions(x)
		if tc.err != "" || err != nil {
			if pgerror.Code(err) != tc.err {
				t.Errorf("%s: %v, want %s", tc.sql, err, tc.err)
			}
			continue
		}
		var names []string
		for _, c := range subscribeColumns(cols, x.Cursor, progress) {
			names = append(names, c.Name)
		}
		if snapshot != tc.snapshot || progress != tc.progress || !slices.Equal(names, tc.columns) {
			t.Errorf("%s: snapshot %v, progress %v, columns %v; want %v, %v, %v", tc.sql, snapshot, progress, names, tc.snapshot, tc.progress, tc.columns)
		}
	}
}

// TestSubscriberWindow checks that a subscriber's window of epochs shrinks
// while windows hold more than windowBytes, down to one epoch, and grows
// back, up to maxWindowEpochs, once they hold little.
func TestSubscriberWindow(t *testing.T) {
	block := func(n int) []dataflow.ChangeBlock { return []dataflow.ChangeBlock{{Value: make([]byte, n)}} }
	r := &subscriber{window: maxWindowEpochs}
	var got []uint64
	for _, n := range []int{windowBytes + 1, windowBytes * 4, windowBytes * 2, windowBytes * 2, windowBytes * 2, windowBytes / 2, 0, 0, 0, 0, 0} {
		r.resize(block(n))
		got = append(got, r.window)
	}
	if want := []uint64{8, 4, 2, 1, 1, 1, 2, 4, 8, 16, 16}; !slices.Equal(got, want) {
		t.Fatalf("windows %v, want %v", got, want)
	}
}
