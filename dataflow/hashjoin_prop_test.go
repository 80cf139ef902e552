package dataflow

import (
	"context"
	"slices"
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

// TestSemiJoinOracle checks semi and anti joins, with and without a
// residual condition, against a naive recomputation: the live left rows
// with (semi) or without (anti) a live right row of their non-NULL key
// that satisfies the condition.
func TestSemiJoinOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom([]exec.JoinKind{exec.Semi, exec.Anti}).Draw(rt, "kind")
		var cond expr.Expr
		if rapid.Bool().Draw(rt, "cond") {
			cond = binOp(rt, "<", colRef(2, types.TText), colRef(5, types.TText))
		}
		o := &oracle{
			keys: [][]int{{0}, {0}},
			row: func(t *rapid.T, _ int, id int64) []types.Datum {
				return []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, "1", "2", "3"),
					drawValue(t, types.TText, "a", "b", "c")}
			},
			want: func(live [][][]types.Datum) []string {
				var out [][]types.Datum
				for _, l := range live[0] {
					matched := false
					for _, r := range live[1] {
						if l[1].IsNull() || r[1].IsNull() || types.Compare(l[1], r[1]) != 0 {
							continue
						}
						if cond != nil {
							v, err := cond.Eval(expr.NewCtx(context.Background(), nil), append(slices.Clone(l), r...))
							if err != nil {
								rt.Fatal(err)
							}
							if v.IsNull() || !v.Bool() {
								continue
							}
						}
						matched = true
					}
					if matched == (kind == exec.Semi) {
						out = append(out, l)
					}
				}
				return sortedRows(out)
			},
		}
		o.check(rt, engine, joinSpec(kind, cond))
	})
}
