package exec_test

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

func TestLimit(t *testing.T) {
	tests := []struct {
		name          string
		count, offset any // nil: absent; "null": a NULL constant
		// ties runs WITH TIES over the input 1, 2, 2, 2, 3 (sorted).
		ties bool
		want []string
		// produced is how many input rows Limit pulls before stopping.
		produced int
		code     string
		msg      string
	}{
		{name: "none", want: []string{"1", "2", "3", "4", "5"}, produced: 5},
		{name: "count", count: 2, want: []string{"1", "2"}, produced: 2},
		{name: "count beyond input", count: 9, want: []string{"1", "2", "3", "4", "5"}, produced: 5},
		{name: "zero pulls nothing", count: 0, want: nil, produced: 0},
		{name: "offset", offset: 3, want: []string{"4", "5"}, produced: 5},
		{name: "offset beyond input", offset: 7, want: nil, produced: 5},
		{name: "count and offset", count: 2, offset: 1, want: []string{"2", "3"}, produced: 3},
		{name: "NULL count is no limit", count: "null", want: []string{"1", "2", "3", "4", "5"}, produced: 5},
		{name: "NULL offset is zero", count: 1, offset: "null", want: []string{"1"}, produced: 1},
		{name: "negative count", count: -1, code: "2201W", msg: "LIMIT must not be negative"},
		{name: "negative offset", offset: -1, code: "2201X", msg: "OFFSET must not be negative"},
		{name: "offset checked first", count: -1, offset: -1, code: "2201X", msg: "OFFSET must not be negative"},
		{name: "ties pass after the count", ties: true, count: 2, want: []string{"1", "2", "2", "2"}, produced: 5},
		{name: "no ties at the last row counted", ties: true, count: 1, want: []string{"1"}, produced: 2},
		{name: "ties after an offset", ties: true, count: 1, offset: 2, want: []string{"2", "2"}, produced: 5},
		{name: "ties with zero count", ties: true, count: 0, want: nil, produced: 0},
		{name: "ties to the end", ties: true, count: 5, want: []string{"1", "2", "2", "2", "3"}, produced: 5},
		{name: "NULL count with ties", ties: true, count: "null", code: "2201W", msg: "row count cannot be null in FETCH FIRST ... WITH TIES clause"},
	}
	bound := func(v any) expr.Expr {
		switch v {
		case nil:
			return nil
		case "null":
			return lit(nil)
		}
		return lit(v)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := ints(1, 2, 3, 4, 5)
			op := &exec.Limit{Input: in, Count: bound(tt.count), Offset: bound(tt.offset)}
			if tt.ties {
				in = ints(1, 2, 2, 2, 3)
				op.Input, op.Ties = in, []exec.SortKey{{Col: 0}}
			}
			rows, err := exec.Collect(newCtx(), op)
			if tt.code != "" {
				if pgerror.Code(err) != tt.code || pgerror.From(err).Message != tt.msg {
					t.Fatalf("error %v, want %s %q", err, tt.code, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			equalRows(t, "rows", render(rows), tt.want)
			if in.produced != tt.produced {
				t.Errorf("input produced %d rows, want %d", in.produced, tt.produced)
			}
		})
	}
}

func TestLimitConsumerStops(t *testing.T) {
	in := ints(1, 2, 3, 4, 5)
	op := &exec.Limit{Input: in, Count: lit(4), Offset: lit(1)}
	equalRows(t, "rows", take(t, op, 1), []string{"2"})
	if in.produced != 2 {
		t.Errorf("input produced %d rows, want 2", in.produced)
	}
}
