package exec_test

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

func TestApply(t *testing.T) {
	// The right side counts up to the left row's value (outer level 1).
	outer := &expr.OuterRef{Level: 1, Idx: 0, T: types.TInt8}
	right := func() exec.Op {
		return &exec.ProjectSet{Input: source(row()), Funcs: []*expr.SetFunc{series(t, lit(1), outer)}}
	}
	tests := []struct {
		name string
		kind exec.JoinKind
		on   expr.Expr
		want []string
	}{
		{name: "inner", kind: exec.Inner, want: []string{"2,1", "2,2"}},
		{name: "left pads rows without a match", kind: exec.Left, want: []string{"2,1", "2,2", "0,NULL"}},
		{name: "on filters the joined rows", kind: exec.Left, on: bin(t, ">", col(1), lit(1)), want: []string{"2,2", "0,NULL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &exec.Apply{Kind: tt.kind, Left: ints(2, 0), Right: right(), On: tt.on, LeftWidth: 1, RightWidth: 1}
			if got := run(t, op); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	op := &exec.Apply{Kind: exec.Left, Left: ints(5, 5), Right: right(), LeftWidth: 1, RightWidth: 1}
	if got := take(t, op, 2); len(got) != 2 {
		t.Errorf("stopping early: got %q", got)
	}
}
