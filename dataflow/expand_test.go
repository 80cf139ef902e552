package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestExpand(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt8, types.TInt8}
	// ROLLUP of columns 0 and 1: sets (0, 1), (0) and ().
	nulled := [][]int{nil, {1}, {0, 1}}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"each change once per set", []string{"+ 1 2 3", "- 4 5 6"}, []string{
			"+ 1 2 3 0", "+ 1 NULL 3 1", "+ NULL NULL 3 2",
			"- 4 5 6 0", "- 4 NULL 6 1", "- NULL NULL 6 2"}},
		{"an update stays a pair in each set", []string{"U- 1 2 3", "U+ 1 9 3"}, []string{
			"U- 1 2 3 0", "U+ 1 9 3 0", "U- 1 NULL 3 1", "U+ 1 NULL 3 1", "U- NULL NULL 3 2", "U+ NULL NULL 3 2"}},
		{"lone halves pass", []string{"U+ 1 2 3"}, []string{"U+ 1 2 3 0", "U+ 1 NULL 3 1", "U+ NULL NULL 3 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := (&ExpandSpec{Nulled: nulled}).Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{ts}, []testStep{in(tt.in...).emits(tt.want...)})
		})
	}
}
