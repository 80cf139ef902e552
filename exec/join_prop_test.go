package exec_test

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// genRelation draws a small relation of (k, v) rows with small ints and NULLs.
func genRelation(t *rapid.T, label string) [][]types.Datum {
	cell := rapid.Custom(func(t *rapid.T) types.Datum {
		if rapid.IntRange(0, 4).Draw(t, "null") == 0 {
			return types.Null
		}
		return types.NewInt(int64(rapid.IntRange(0, 3).Draw(t, "v")))
	})
	n := rapid.IntRange(0, 6).Draw(t, label+" rows")
	rows := make([][]types.Datum, n)
	for i := range rows {
		rows[i] = []types.Datum{cell.Draw(t, label+" k"), cell.Draw(t, label+" v")}
	}
	return rows
}

// modelJoin is the join by definition: every pair whose keys are equal and
// non-NULL (and, with residual, l.v <= r.v), plus the NULL-extended rows
// the kind asks for.
func modelJoin(kind exec.JoinKind, residual bool, l, r [][]types.Datum) [][]types.Datum {
	match := func(a, b []types.Datum) bool {
		if a[0].IsNull() || b[0].IsNull() || a[0].Int() != b[0].Int() {
			return false
		}
		return !residual || (!a[1].IsNull() && !b[1].IsNull() && a[1].Int() <= b[1].Int())
	}
	nulls := []types.Datum{types.Null, types.Null}
	var out [][]types.Datum
	rMatched := make([]bool, len(r))
	for _, a := range l {
		matched := false
		for j, b := range r {
			if match(a, b) {
				out = append(out, append(append([]types.Datum{}, a...), b...))
				matched, rMatched[j] = true, true
			}
		}
		if !matched && (kind == exec.Left || kind == exec.Full) {
			out = append(out, append(append([]types.Datum{}, a...), nulls...))
		}
	}
	if kind == exec.Right || kind == exec.Full {
		for j, b := range r {
			if !rMatched[j] {
				out = append(out, append(append([]types.Datum{}, nulls...), b...))
			}
		}
	}
	return out
}

func TestJoinMatchesModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		l, r := genRelation(rt, "left"), genRelation(rt, "right")
		kind := exec.JoinKind(rapid.IntRange(int(exec.Inner), int(exec.Full)).Draw(rt, "kind"))
		residual := rapid.Bool().Draw(rt, "residual")

		eq, err := expr.NewBinary("=", col(0), col(2))
		if err != nil {
			rt.Fatal(err)
		}
		le, err := expr.NewBinary("<=", col(1), col(3))
		if err != nil {
			rt.Fatal(err)
		}
		hash := &exec.Join{Kind: kind, Left: source(l...), Right: source(r...), LeftWidth: 2, RightWidth: 2,
			LeftKeys: []expr.Expr{col(0)}, RightKeys: []expr.Expr{col(0)}}
		loop := &exec.Join{Kind: kind, Left: source(l...), Right: source(r...), LeftWidth: 2, RightWidth: 2, On: eq}
		if residual {
			hash.On = le
			loop.On = &expr.And{Args: []expr.Expr{eq, le}}
		}
		want := sorted(render(modelJoin(kind, residual, l, r)))
		for name, op := range map[string]exec.Op{"hash join": hash, "nested-loop join": loop} {
			rows, err := exec.Collect(newCtx(), op)
			if err != nil {
				rt.Fatal(err)
			}
			if got := sorted(render(rows)); !slices.Equal(got, want) {
				rt.Fatalf("%s:\n got  %q\n want %q", name, got, want)
			}
		}
	})
}
