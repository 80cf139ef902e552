package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestOverWindowOracle checks the over-window operator, with or without
// partitions, over random inserts, updates and deletes (and recoveries),
// against exec.Window over the live rows. Without a tie-breaking order
// column only the functions whose values do not depend on the order of
// peers are drawn.
func TestOverWindowOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	v := colRef(3, types.TInt4)
	peerFree := []exec.WindowFunc{
		winFunc(t, "rank", nil), winFunc(t, "dense_rank", nil), winFunc(t, "percent_rank", nil),
		winFunc(t, "cume_dist", nil), winFunc(t, "sum", nil, v), winFunc(t, "count", nil),
		winFunc(t, "max", offsetFrame(exec.FrameGroups, 1, 0), v), winFunc(t, "avg", offsetFrame(exec.FrameGroups, 0, 1), v),
		winFunc(t, "min", &exec.Frame{Mode: exec.FrameRange,
			Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: expr.NewConst(types.NewInt(1), types.TInt4)},
			End:   exec.FrameBound{Kind: exec.OffsetFollowing, Offset: expr.NewConst(types.NewInt(2), types.TInt4)}}, v),
	}
	ordered := append([]exec.WindowFunc{
		winFunc(t, "row_number", nil), winFunc(t, "lag", nil, v),
		winFunc(t, "lead", nil, v, expr.NewConst(types.NewInt(2), types.TInt8), expr.NewConst(types.NewInt(-1), types.TInt4)),
		winFunc(t, "first_value", nil, v), winFunc(t, "last_value", offsetFrame(exec.FrameRows, 0, 1), v),
		winFunc(t, "sum", offsetFrame(exec.FrameRows, 1, 1), v),
	}, peerFree...)
	rapid.Check(t, func(rt *rapid.T) {
		var partition []int
		if rapid.Bool().Draw(rt, "partitioned") {
			partition = []int{1}
		}
		order := []SortKey{{Col: 2, Desc: rapid.Bool().Draw(rt, "desc"), NullsFirst: rapid.Bool().Draw(rt, "nullsFirst")}}
		pool := peerFree
		if rapid.Bool().Draw(rt, "tieBreak") {
			order, pool = append(order, SortKey{Col: 0}), ordered
		}
		n := rapid.IntRange(1, 3).Draw(rt, "funcs")
		funcs := make([]exec.WindowFunc, n)
		for i := range funcs {
			funcs[i] = rapid.SampledFrom(pool).Draw(rt, "func")
		}
		spec := &OverWindowSpec{Partition: partition, Order: order, Funcs: funcs, InputTypes: winTypes,
			FuncTypes: funcTypes(funcs), StreamKey: []int{0}, StateTable: freshTable()}
		o := &oracle{
			keys: [][]int{{0}},
			row: func(t *rapid.T, _ int, id int64) []types.Datum {
				return []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, "1", "2"),
					drawValue(t, types.TInt4, "1", "2", "3", "4"), drawValue(t, types.TInt4, "5", "7", "-3")}
			},
			want: func(live [][][]types.Datum) []string {
				return sortedRows(batch(rt, &exec.Window{Input: exec.Rows(live[0]), Partition: partition,
					Order: order, Funcs: funcs}))
			},
		}
		o.check(rt, engine, spec)
	})
}
