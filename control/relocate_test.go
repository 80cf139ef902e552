package control

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
)

// TestGainedHoldings checks what a node that takes a job's first actor
// over copies: whole tables it did not hold, and the vnodes of
// partitioned ones it did not own, as key ranges.
func TestGainedHoldings(t *testing.T) {
	for _, tt := range []struct {
		name        string
		now, before []dataflow.Holding
		want        string
	}{
		{"nothing before", []dataflow.Holding{{Table: 7}, {Table: 8, VNodes: []int{3, 1, 2}}}, nil,
			"[table 7 vnodes [0, 256) table 8 vnodes [1, 4)]"},
		{"vnodes it owned already", []dataflow.Holding{{Table: 7}, {Table: 8, VNodes: []int{0, 1, 2, 9}}}, []dataflow.Holding{{Table: 8, VNodes: []int{1, 2}}},
			"[table 7 vnodes [0, 256) table 8 vnodes [0, 1) table 8 vnodes [9, 10)]"},
		{"the same", []dataflow.Holding{{Table: 7}, {Table: 8, VNodes: []int{4}}}, []dataflow.Holding{{Table: 7}, {Table: 8, VNodes: []int{4}}},
			"[]"},
		{"a table's writer", []dataflow.Holding{{Table: 5}, {Table: 6}}, nil,
			"[table 5 vnodes [0, 256) table 6 vnodes [0, 256)]"},
	} {
		if got := fmt.Sprint(holdingRanges(gained(tt.now, tt.before))); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
