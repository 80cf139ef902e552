package dataflow

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestOverWindowOracle checks the over-window operator, with or without
// partitions, over random inserts, updates and deletes (and recoveries),
// against exec.Window over the live rows, for each pool of functions.
// Without a tie-breaking order column only the functions whose values do
// not depend on the order of peers (peerFree) are drawn.
func TestOverWindowOracle(t *testing.T) {
	v, o := colRef(3, types.TInt4), colRef(2, types.TInt4)
	int4 := func(n int64) expr.Expr { return expr.NewConst(types.NewInt(n), types.TInt4) }
	session := func(gap int64) *exec.Frame {
		return &exec.Frame{Mode: exec.FrameSession,
			Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: int4(gap)},
			End:   exec.FrameBound{Kind: exec.OffsetFollowing, Offset: int4(gap)}}
	}
	excluding := func(fr *exec.Frame, x exec.FrameExclusion) *exec.Frame {
		f := *fr
		f.Exclude = x
		return &f
	}
	rangeFrame := &exec.Frame{Mode: exec.FrameRange,
		Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: int4(1)},
		End:   exec.FrameBound{Kind: exec.OffsetFollowing, Offset: int4(2)}}
	whole := &exec.Frame{Mode: exec.FrameRows, Start: exec.FrameBound{Kind: exec.UnboundedPreceding}, End: exec.FrameBound{Kind: exec.UnboundedFollowing}}
	tests := []struct {
		name              string
		peerFree, ordered []exec.WindowFunc
		// untied: the pools need the order to be one column.
		untied bool
	}{
		{name: "ranking, offsets and frames",
			peerFree: []exec.WindowFunc{
				winFunc(t, "rank", nil), winFunc(t, "dense_rank", nil), winFunc(t, "percent_rank", nil),
				winFunc(t, "cume_dist", nil), winFunc(t, "sum", nil, v), winFunc(t, "count", nil),
				winFunc(t, "max", offsetFrame(exec.FrameGroups, 1, 0), v), winFunc(t, "avg", offsetFrame(exec.FrameGroups, 0, 1), v),
				winFunc(t, "min", rangeFrame, v),
			},
			ordered: []exec.WindowFunc{
				winFunc(t, "row_number", nil), winFunc(t, "lag", nil, v),
				winFunc(t, "lead", nil, v, expr.NewConst(types.NewInt(2), types.TInt8), int4(-1)),
				winFunc(t, "first_value", nil, v), winFunc(t, "last_value", offsetFrame(exec.FrameRows, 0, 1), v),
				winFunc(t, "sum", offsetFrame(exec.FrameRows, 1, 1), v),
			}},
		// A session's first and last ordering values do not depend on the
		// order of peers, which share them.
		{name: "session frames", untied: true,
			peerFree: []exec.WindowFunc{
				winFunc(t, "count", session(1)), winFunc(t, "sum", session(2), v), winFunc(t, "max", session(3), v),
				winFunc(t, "first_value", session(2), o), winFunc(t, "last_value", session(1), o),
				winFunc(t, "min", session(2), o),
			}},
		{name: "exclusions",
			peerFree: []exec.WindowFunc{
				winFunc(t, "sum", excluding(offsetFrame(exec.FrameGroups, 1, 1), exec.ExcludeCurrentRow), v),
				winFunc(t, "count", excluding(offsetFrame(exec.FrameGroups, 0, 1), exec.ExcludeGroup)),
				winFunc(t, "max", excluding(rangeFrame, exec.ExcludeTies), v),
				winFunc(t, "sum", excluding(&exec.Frame{Mode: exec.FrameRange, Start: exec.FrameBound{Kind: exec.UnboundedPreceding},
					End: exec.FrameBound{Kind: exec.CurrentRow}}, exec.ExcludeTies), v),
				winFunc(t, "min", excluding(whole, exec.ExcludeGroup), v),
			},
			ordered: []exec.WindowFunc{
				winFunc(t, "first_value", excluding(offsetFrame(exec.FrameRows, 1, 1), exec.ExcludeCurrentRow), v),
				winFunc(t, "last_value", excluding(offsetFrame(exec.FrameGroups, 1, 1), exec.ExcludeTies), v),
				winFunc(t, "nth_value", excluding(offsetFrame(exec.FrameRows, 2, 2), exec.ExcludeGroup), v, expr.NewConst(types.NewInt(2), types.TInt4)),
				winFunc(t, "sum", excluding(offsetFrame(exec.FrameRows, 2, 1), exec.ExcludeTies), v),
			}},
	}
	engine := newEnv(t).Store.Engine()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				var partition []int
				if rapid.Bool().Draw(rt, "partitioned") {
					partition = []int{1}
				}
				order := []SortKey{{Col: 2, Desc: rapid.Bool().Draw(rt, "desc"), NullsFirst: rapid.Bool().Draw(rt, "nullsFirst")}}
				pool := tt.peerFree
				if !tt.untied && rapid.Bool().Draw(rt, "tieBreak") {
					order, pool = append(order, SortKey{Col: 0}), slices.Concat(tt.ordered, tt.peerFree)
				}
				funcs := make([]exec.WindowFunc, rapid.IntRange(1, 3).Draw(rt, "funcs"))
				for i := range funcs {
					funcs[i] = rapid.SampledFrom(pool).Draw(rt, "func")
				}
				spec := &OverWindowSpec{Partition: partition, Order: order, Funcs: funcs, InputTypes: winTypes,
					FuncTypes: funcTypes(funcs), StreamKey: []int{0}, StateTable: freshTable()}
				o := &oracle{
					keys: [][]int{{0}},
					row: func(t *rapid.T, _ int, id int64) []types.Datum {
						return []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, "1", "2"),
							drawValue(t, types.TInt4, "1", "2", "3", "4", "6", "9"), drawValue(t, types.TInt4, "5", "7", "-3")}
					},
					want: func(live [][][]types.Datum) []string {
						return sortedRows(batch(rt, &exec.Window{Input: exec.Rows(live[0]), Partition: partition,
							Order: order, Funcs: funcs}))
					},
				}
				o.check(rt, engine, spec)
			})
		})
	}
}
