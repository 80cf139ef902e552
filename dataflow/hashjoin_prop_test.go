package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestHashJoinOracle checks every join kind, with and without a residual
// condition, against exec.Join over the live rows of both inputs.
func TestHashJoinOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom([]exec.JoinKind{exec.Inner, exec.Left, exec.Right, exec.Full}).Draw(rt, "kind")
		var cond expr.Expr
		if rapid.Bool().Draw(rt, "cond") {
			cond = binOp(rt, "<", colRef(2, types.TText), colRef(5, types.TText))
		}
		spec := joinSpec(kind, cond)
		o := &oracle{
			keys: [][]int{{0}, {0}},
			row: func(t *rapid.T, _ int, id int64) []types.Datum {
				return []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, "1", "2", "3"),
					drawValue(t, types.TText, "a", "b", "c")}
			},
			want: func(live [][][]types.Datum) []string {
				key := []expr.Expr{colRef(1, types.TInt4)}
				return sortedRows(batch(rt, &exec.Join{Kind: kind, Left: exec.Rows(live[0]), Right: exec.Rows(live[1]),
					LeftKeys: key, RightKeys: key, On: cond, LeftWidth: 3, RightWidth: 3}))
			},
		}
		o.check(rt, engine, spec)
	})
}
