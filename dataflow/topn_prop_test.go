package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestTopNOracle checks Top-N, global or grouped, with random order keys,
// limits and offsets, with or without row numbers, against exec.Sort and
// exec.Limit per group over the live rows.
func TestTopNOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		var group []int
		if rapid.Bool().Draw(rt, "grouped") {
			group = []int{1}
		}
		var order []SortKey
		for _, c := range rapid.Permutation([]int{2, 3}).Draw(rt, "order")[:rapid.IntRange(1, 2).Draw(rt, "keys")] {
			order = append(order, SortKey{Col: c, Desc: rapid.Bool().Draw(rt, "desc"), NullsFirst: rapid.Bool().Draw(rt, "nullsFirst")})
		}
		limit := rapid.Int64Range(-1, 4).Draw(rt, "limit")
		offset := rapid.Int64Range(0, 2).Draw(rt, "offset")
		number := rapid.Bool().Draw(rt, "number")
		spec := &TopNSpec{GroupKey: group, Order: order, Limit: limit, Offset: offset, Number: number,
			InputTypes: topNTypes, StreamKey: []int{0}, StateTable: freshTable()}
		o := &oracle{
			keys: [][]int{{0}},
			row: func(t *rapid.T, _ int, id int64) []types.Datum {
				return []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, "1", "2"),
					drawValue(t, types.TInt4, "1", "2", "3", "4"), drawValue(t, types.TText, "a", "b")}
			},
			want: func(live [][][]types.Datum) []string {
				groups := map[string][][]types.Datum{}
				for _, r := range live[0] {
					k, _ := rowkey.AppendCols(nil, r, group)
					groups[string(k)] = append(groups[string(k)], r)
				}
				// Ties are broken by the stream key, ascending.
				keys := append(append([]SortKey(nil), order...), SortKey{Col: 0})
				var count expr.Expr
				if limit >= 0 {
					count = expr.NewConst(types.NewInt(limit), types.TInt8)
				}
				var rows [][]types.Datum
				for _, g := range groups {
					kept := batch(rt, &exec.Limit{
						Input: &exec.Sort{Input: exec.Rows(g), Keys: keys},
						Count: count, Offset: expr.NewConst(types.NewInt(offset), types.TInt8),
					})
					for i, r := range kept {
						if number {
							r = append(r[:len(r):len(r)], types.NewInt(offset+int64(i)+1))
						}
						rows = append(rows, r)
					}
				}
				return sortedRows(rows)
			},
		}
		o.check(rt, engine, spec)
	})
}
