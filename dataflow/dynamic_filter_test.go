package dataflow

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// dynTypes are a dynamic filter test's left rows: id (stream key), v; its
// right rows are one int4 column (rows of the prop test have an id
// first).
var dynTypes = []types.T{types.TInt8, types.TInt4}

// dynSpec filters dynTypes rows on v against right column col by op (<,
// <=, >, >=, = or "between": lower and upper inclusive, of columns col and
// col+1).
func dynSpec(op string, col int) *DynamicFilterSpec {
	s := &DynamicFilterSpec{Left: colRef(1, types.TInt4), T: types.TInt4, LeftTypes: dynTypes,
		LeftStreamKey: []int{0}, StateTable: freshTable()}
	right := colRef(col, types.TInt4)
	switch op {
	case ">", ">=":
		s.Lower = &DynamicBound{Right: right, Inclusive: op == ">="}
	case "<", "<=":
		s.Upper = &DynamicBound{Right: right, Inclusive: op == "<="}
	case "=":
		s.Lower = &DynamicBound{Right: right, Inclusive: true}
		s.Upper = &DynamicBound{Right: right, Inclusive: true}
	case "between":
		s.Lower = &DynamicBound{Right: right, Inclusive: true}
		s.Upper = &DynamicBound{Right: colRef(col+1, types.TInt4), Inclusive: true}
	}
	return s
}

func TestDynamicFilter(t *testing.T) {
	tests := []struct {
		name  string
		op    string
		right []types.T
		steps []testStep
	}{
		{
			name: "v > m: nothing passes before the right row", op: ">",
			steps: []testStep{
				in("+ 1 1", "+ 2 5", "+ 3 9", "+ 4 NULL"),
				barrier(),
				right("+ 4"),
				in("+ 5 7"), // the bounds move at the barrier
				barrier().emits("+ 2 5", "+ 5 7", "+ 3 9"),
				right("U- 4", "U+ 8"),
				barrier().emits("- 2 5", "- 5 7"),
				in("U- 3 9", "U+ 3 2").emits("- 3 9"),
				right("U- 8", "U+ 0"),
				barrier().emits("+ 1 1", "+ 3 2", "+ 2 5", "+ 5 7"),
				right("- 0"),
				barrier().emits("- 1 1", "- 3 2", "- 2 5", "- 5 7"),
			},
		},
		{
			name: "v <= m, insert before delete", op: "<=",
			steps: []testStep{
				right("+ 5"),
				in("+ 1 5", "+ 2 6"),
				barrier().emits("+ 1 5"),
				right("+ 6"), right("- 5"),
				barrier().emits("+ 2 6"),
				right("U- 6", "U+ NULL"),
				barrier().emits("- 1 5", "- 2 6"),
			},
		},
		{
			name: "v = m scans the two values only", op: "=",
			steps: []testStep{
				right("+ 5"),
				in("+ 1 5", "+ 2 6", "+ 3 7"),
				barrier().emits("+ 1 5"),
				right("U- 5", "U+ 7"),
				barrier().emits("- 1 5", "+ 3 7"),
				in("U- 3 7", "U+ 3 6").emits("- 3 7"),
			},
		},
		{
			name: "lo <= v <= hi", op: "between", right: []types.T{types.TInt4, types.TInt4},
			steps: []testStep{
				in("+ 1 1", "+ 2 3", "+ 3 5", "+ 4 7", "+ 5 9"),
				right("+ 2 6"),
				barrier().emits("+ 2 3", "+ 3 5"),
				right("U- 2 6", "U+ 5 9"),
				barrier().emits("- 2 3", "+ 4 7", "+ 5 9"),
				right("U- 5 9", "U+ 1 1"),
				barrier().emits("+ 1 1", "- 3 5", "- 4 7", "- 5 9"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One vnode: a barrier's rows go out in value order.
			env := newEnv(t)
			env.VNodes, env.VNodeCount = FullBitmap(1), 1
			op, err := dynSpec(tt.op, 0).Build(env)
			if err != nil {
				t.Fatal(err)
			}
			rt := tt.right
			if rt == nil {
				rt = []types.T{types.TInt4}
			}
			runSteps(t, op, [][]types.T{dynTypes, rt}, tt.steps)
		})
	}
}

// TestDynamicFilterRecovery checks that the bounds and rows come back from
// the committed state, twice from the same.
func TestDynamicFilterRecovery(t *testing.T) {
	env := newEnv(t)
	env.VNodes, env.VNodeCount = FullBitmap(1), 1
	spec := dynSpec(">", 0)
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, op, [][]types.T{dynTypes, {types.TInt4}}, []testStep{
		in("+ 1 1", "+ 2 5", "+ 3 9"), right("+ 4"), barrier().emits("+ 2 5", "+ 3 9"),
	})
	if err := env.Store.Seal(1, nil, true); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		env := envOver(NewStore(env.Store.Engine()))
		env.VNodes, env.VNodeCount = FullBitmap(1), 1
		op, err := spec.Build(env)
		if err != nil {
			t.Fatal(err)
		}
		runSteps(t, op, [][]types.T{dynTypes, {types.TInt4}}, []testStep{
			right("U- 4", "U+ 6"), barrier().emits("- 2 5"),
		})
	}
}

// TestDynamicFilterOracle checks each operator over random changes of
// both sides (the right one row at most), barriers and recoveries against
// the live left rows filtered by the live right row.
func TestDynamicFilterOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		op := rapid.SampledFrom([]string{"<", "<=", ">", ">=", "=", "between"}).Draw(rt, "op")
		spec := dynSpec(op, 1)
		vals := []string{"1", "2", "3", "4", "5"}
		o := &oracle{
			keys:    [][]int{{0}, {0}},
			maxRows: []int{0, 1},
			row: func(t *rapid.T, input int, id int64) []types.Datum {
				row := []types.Datum{types.NewInt(id), drawValue(t, types.TInt4, vals...)}
				if input == 1 {
					row = append(row, drawValue(t, types.TInt4, vals...))
				}
				return row
			},
			want: func(live [][][]types.Datum) []string {
				var out [][]types.Datum
				if len(live[1]) == 1 {
					r := live[1][0]
					for _, l := range live[0] {
						if dynPasses(op, l[1], r[1], r[2]) {
							out = append(out, l)
						}
					}
				}
				return sortedRows(out)
			},
		}
		o.check(rt, engine, spec)
	})
}

// dynPasses is the oracle's comparison of v with bounds a (and b for
// between).
func dynPasses(op string, v, a, b types.Datum) bool {
	if v.IsNull() || a.IsNull() || op == "between" && b.IsNull() {
		return false
	}
	c := types.Compare(v, a)
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "=":
		return c == 0
	}
	return c >= 0 && types.Compare(v, b) <= 0
}

func TestDynamicFilterExplain(t *testing.T) {
	got := dynSpec("between", 0).Explain()
	if !strings.HasPrefix(got, "DynamicFilter $1 >= right($0) AND $1 <= right($1) state=") {
		t.Fatal(got)
	}
}
