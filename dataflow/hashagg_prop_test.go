package dataflow

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// aggCols are the columns of the aggregation property test's input.
var aggCols = []types.T{
	types.TInt8,    // 0 id (stream key)
	types.TInt4,    // 1 group
	types.TInt4,    // 2 x
	types.TNumeric, // 3 n
	types.TText,    // 4 s
	types.TBool,    // 5 b
	types.TFloat8,  // 6 f
	types.TInt8,    // 7 big
}

// aggValues are the values drawn for each column but the id. Values that
// compare equal have one representation (so that min, max and DISTINCT
// are deterministic), and float values add exactly.
var aggValues = [][]string{
	1: {"1", "2", "3"},
	2: {"-2", "0", "1", "5", "9"},
	3: {"1.5", "2.25", "-3", "0.10", "7", "100.001"},
	4: {"a", "b", "bb", "c"},
	5: {"true", "false"},
	6: {"0.5", "-1.25", "3", "Infinity", "-Infinity", "NaN"},
	7: {"9223372036854775807", "9223372036854775806", "-9223372036854775808", "-5", "7"},
}

// aggRow draws an input row with stream key id.
func aggRow(t *rapid.T, id int64) []types.Datum {
	row := []types.Datum{types.NewInt(id)}
	for i := 1; i < len(aggCols); i++ {
		row = append(row, drawValue(t, aggCols[i], aggValues[i]...))
	}
	return row
}

// drawValue draws NULL or one of vals, of type ty.
func drawValue(t *rapid.T, ty types.T, vals ...string) types.Datum {
	v := rapid.SampledFrom(append([]string{"NULL"}, vals...)).Draw(t, ty.String())
	if v == "NULL" {
		return types.Null
	}
	d, err := types.ParseText(ty, v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// aggCalls returns the aggregates of the property test; string_agg
// DISTINCT only for retractable inputs (append-only string_agg keeps
// arrival order, the DISTINCT one value order; array_agg DISTINCT sorts
// in both).
func aggCalls(t tester, appendOnly bool) []*expr.AggFunc {
	c := func(i int) expr.Expr { return colRef(i, aggCols[i]) }
	comma := expr.NewConst(types.NewString(","), types.TText)
	calls := []*expr.AggFunc{
		newAgg(t, "count", false), newAgg(t, "count", false, c(2)), newAgg(t, "sum", false, c(2)),
		newAgg(t, "avg", false, c(2)), newAgg(t, "min", false, c(2)), newAgg(t, "max", false, c(2)),
		newAgg(t, "sum", false, c(3)), newAgg(t, "avg", false, c(3)), newAgg(t, "min", false, c(3)),
		newAgg(t, "max", false, c(4)), newAgg(t, "string_agg", false, c(4), comma),
		newAgg(t, "bool_and", false, c(5)), newAgg(t, "bool_or", false, c(5)),
		newAgg(t, "count", true, c(2)), newAgg(t, "sum", true, c(3)), newAgg(t, "avg", true, c(2)),
		newAgg(t, "sum", false, c(6)), newAgg(t, "avg", false, c(6)), newAgg(t, "min", false, c(6)),
		newAgg(t, "sum", false, c(7)), newAgg(t, "avg", false, c(7)), newAgg(t, "max", false, c(7)),
		newAgg(t, "array_agg", false, c(4)), newAgg(t, "array_agg", true, c(2)),
	}
	dash := expr.NewConst(types.NewString("-"), types.TText)
	if !appendOnly {
		calls = append(calls, newAgg(t, "string_agg", true, c(4), dash))
	}
	// ORDER BY inside the call: the results do not depend on arrival order
	// (ties go by the argument values).
	asc, desc := expr.AggOrder{}, expr.AggOrder{Desc: true, NullsFirst: true}
	ordered := func(a *expr.AggFunc, keys []expr.Expr, order ...expr.AggOrder) *expr.AggFunc {
		a.WithOrder(keys, order)
		return a
	}
	return append(calls,
		ordered(newAgg(t, "string_agg", false, c(4), comma), []expr.Expr{c(2), c(3)}, desc, asc),
		ordered(newAgg(t, "string_agg", true, c(4), dash), []expr.Expr{c(4)}, desc),
		ordered(newAgg(t, "array_agg", false, c(2)), []expr.Expr{c(4)}, expr.AggOrder{NullsFirst: true}),
		ordered(newAgg(t, "first_value", false, c(4)), []expr.Expr{c(2)}, asc),
		ordered(newAgg(t, "last_value", false, c(3)), []expr.Expr{c(4), c(5)}, expr.AggOrder{Desc: true}, asc),
	)
}

// TestHashAggOracle checks the streaming aggregation against exec.HashAgg
// over the live input rows after every barrier, across recoveries.
func TestHashAggOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		global := rapid.Bool().Draw(rt, "global")
		appendOnly := rapid.Bool().Draw(rt, "appendOnly")
		calls := aggCalls(rt, appendOnly)
		if rapid.Bool().Draw(rt, "memoized") {
			// Without multiset aggregates, groups stay decoded between
			// epochs.
			calls = slices.DeleteFunc(calls, func(f *expr.AggFunc) bool {
				k, err := newAggKind(f, appendOnly)
				return err != nil || k.multiset
			})
		}
		spec := &HashAggSpec{Aggs: calls, InputTypes: aggCols,
			StateTable: freshTable(), MultisetTable: freshTable(), AppendOnly: appendOnly}
		var group []expr.Expr
		if !global {
			spec.GroupKey = []int{1}
			group = []expr.Expr{colRef(1, aggCols[1])}
		}
		o := &oracle{
			keys:       [][]int{{0}},
			row:        func(t *rapid.T, _ int, id int64) []types.Datum { return aggRow(t, id) },
			appendOnly: appendOnly,
			want: func(live [][][]types.Datum) []string {
				rows := slices.Clone(live[0])
				if !appendOnly {
					// Retractable string_agg and array_agg list values in value order.
					slices.SortStableFunc(rows, func(a, b []types.Datum) int { return types.Compare(a[4], b[4]) })
				}
				return sortedRows(batch(rt, &exec.HashAgg{Input: exec.Rows(rows), Group: group, Aggs: spec.Aggs}))
			},
		}
		o.check(rt, engine, spec)
	})
}
