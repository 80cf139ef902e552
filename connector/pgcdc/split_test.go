package pgcdc

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestSplitOffsets buffers a transaction in two parts and a bare position
// and checks that the offset moves past the transaction only once all its
// changes are taken, and past the bare position without a row.
func TestSplitOffsets(t *testing.T) {
	s := NewSplit(Config{}, []Column{{Name: "id", Type: types.TInt8}})
	row := func(v int64) []types.Datum { return []types.Datum{types.NewInt(v)} }
	rows := [][]types.Datum{make([]types.Datum, 1), make([]types.Datum, 1)}
	deletes := make([]bool, 2)
	ctx := context.Background()
	for _, step := range []struct {
		put        []change
		n          int
		offset     int64
		firstValue int64
		firstDel   bool
	}{
		{nil, 0, 0, 0, false},
		{[]change{{row: row(1)}, {row: row(2)}, {row: row(3), del: true}}, 2, 0, 1, false},
		{[]change{{end: 100}}, 1, 100, 3, true},
		{[]change{{end: 150}}, 0, 150, 0, false},
		{[]change{{row: row(4), end: 200}}, 1, 200, 4, false},
	} {
		s.put(ctx, step.put)
		n := s.NextChanges(rows, deletes)
		if n != step.n || s.Offset() != step.offset {
			t.Fatalf("after %v: %d changes at offset %d, want %d at %d", step.put, n, s.Offset(), step.n, step.offset)
		}
		if n > 0 && (rows[0][0].Int() != step.firstValue || deletes[0] != step.firstDel) {
			t.Fatalf("after %v: first change %v delete %v", step.put, rows[0], deletes[0])
		}
	}
	s.Committed(100)
	s.Committed(50)
	if got := s.committed.Load(); got != 100 {
		t.Fatalf("committed %d, want the highest reported, 100", got)
	}
}
