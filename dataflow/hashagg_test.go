package dataflow

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

func TestHashAgg(t *testing.T) {
	i8, i4, num, txt, boo, f8, ivl := types.TInt8, types.TInt4, types.TNumeric, types.TText, types.TBool, types.TFloat8, types.TInterval
	x := func(tt types.T) expr.Expr { return colRef(1, tt) }
	comma := expr.NewConst(types.NewString(","), types.TText)
	tests := []struct {
		name       string
		input      []types.T
		group      []int
		aggs       func(t *testing.T) []*expr.AggFunc
		appendOnly bool
		emptySets  []int
		steps      []testStep
	}{
		{
			name: "grouped with retractions and updates", input: []types.T{i8, i4}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "count", false), newAgg(t, "sum", false, x(i4)),
					newAgg(t, "min", false, x(i4)), newAgg(t, "max", false, x(i4))}
			},
			steps: []testStep{
				in("+ 1 10", "+ 1 20", "+ 2 5", "+ NULL 7", "+ 1 NULL"),
				barrier().emits("+ 1 3 30 10 20", "+ 2 1 5 5 5", "+ NULL 1 7 7 7"),
				in("- 1 10"),
				barrier().emits("U- 1 3 30 10 20", "U+ 1 2 20 20 20"),
				in("U- 2 5", "U+ 2 6", "- 1 NULL"),
				barrier().emits("U- 2 1 5 5 5", "U+ 2 1 6 6 6", "U- 1 2 20 20 20", "U+ 1 1 20 20 20"),
				in("- 2 6"),
				barrier().emits("- 2 1 6 6 6"),
				in("+ 3 1", "- 3 1", "+ 1 30", "- 1 30"),
				barrier(),
				barrier(),
				in("+ 2 1"),
				barrier().emits("+ 2 1 1 1 1"),
			},
		},
		{
			name: "global over empty input and back", input: []types.T{i8, i4},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "count", false), newAgg(t, "sum", false, x(i4)), newAgg(t, "max", false, x(i4))}
			},
			steps: []testStep{
				barrier().emits("+ 0 NULL NULL"),
				barrier(),
				in("+ 0 5", "+ 0 NULL"),
				barrier().emits("U- 0 NULL NULL", "U+ 2 5 5"),
				in("- 0 5", "- 0 NULL"),
				barrier().emits("U- 2 5 5", "U+ 0 NULL NULL"),
			},
		},
		{
			// An Expand's (k, set) rows of GROUPING SETS ((k), ()): the
			// empty set's group has a row also without rows, as a global
			// aggregation does.
			name: "empty grouping set over empty input and back", input: []types.T{i8, i8, i4}, group: []int{0, 1}, emptySets: []int{1},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "count", false), newAgg(t, "sum", false, colRef(2, i4))}
			},
			steps: []testStep{
				barrier().emits("+ NULL 1 0 NULL"),
				barrier(),
				in("+ 7 0 5", "+ NULL 1 5"),
				barrier().emits("+ 7 0 1 5", "U- NULL 1 0 NULL", "U+ NULL 1 1 5"),
				in("- 7 0 5", "- NULL 1 5"),
				barrier().emits("- 7 0 1 5", "U- NULL 1 1 5", "U+ NULL 1 0 NULL"),
			},
		},
		{
			// SELECT 1 FROM t HAVING ...: one group, whose row has no columns.
			name: "global without aggregates", input: []types.T{i8, i4},
			aggs: func(t *testing.T) []*expr.AggFunc { return nil },
			steps: []testStep{
				barrier().emits("+"),
				in("+ 0 5"),
				barrier(),
				in("- 0 5"),
				barrier(),
			},
		},
		{
			name: "numeric sum and avg keep the live values' scale", input: []types.T{i8, num}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "sum", false, x(num)), newAgg(t, "avg", false, x(num))}
			},
			steps: []testStep{
				in("+ 1 1.5", "+ 1 2.250"),
				barrier().emits("+ 1 3.750 1.8750000000000000"),
				in("- 1 2.250"),
				barrier().emits("U- 1 3.750 1.8750000000000000", "U+ 1 1.5 1.50000000000000000000"),
				in("+ 1 NaN"),
				barrier().emits("U- 1 1.5 1.50000000000000000000", "U+ 1 NaN NaN"),
				in("- 1 NaN", "+ 1 Infinity", "+ 1 -Infinity"),
				barrier(), // NaN still
				in("- 1 -Infinity"),
				barrier().emits("U- 1 NaN NaN", "U+ 1 Infinity Infinity"),
				in("- 1 Infinity"),
				barrier().emits("U- 1 Infinity Infinity", "U+ 1 1.5 1.50000000000000000000"),
			},
		},
		{
			name: "integer sums overflow into numeric and back", input: []types.T{i8, i8}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "sum", false, x(i8)), newAgg(t, "avg", false, x(i8))}
			},
			steps: []testStep{
				in("+ 1 9223372036854775807", "+ 1 9223372036854775807", "+ 1 -1"),
				barrier().emits("+ 1 18446744073709551613 6148914691236517204"),
				in("- 1 9223372036854775807"),
				barrier().emits("U- 1 18446744073709551613 6148914691236517204",
					"U+ 1 9223372036854775806 4611686018427387903"),
			},
		},
		{
			// A sum out of range on the way is fine: only what is read out
			// must fit an interval. Results are PostgreSQL's for the live rows.
			name: "interval sums stay exact under retractions", input: []types.T{i8, ivl}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "sum", false, x(ivl)), newAgg(t, "avg", false, x(ivl))}
			},
			steps: []testStep{
				in("+ 1 P2147483647D", "+ 1 P1D", "- 1 P1D", "+ 1 P1M"),
				barrier().emits("+ 1 1 mon 2147483647 days 1073741838 days 12:00:00"),
				in("- 1 P2147483647D", "+ 1 PT2562047788H", "+ 1 PT2562047788H", "- 1 PT2562047788H"),
				barrier().emits("U- 1 1 mon 2147483647 days 1073741838 days 12:00:00",
					"U+ 1 1 mon 2562047788:00:00 15 days 1281023894:00:00"),
			},
		},
		{
			name: "float sums take specials out again", input: []types.T{i8, f8}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "sum", false, x(f8)), newAgg(t, "avg", false, x(f8))}
			},
			steps: []testStep{
				in("+ 1 1.5", "+ 1 Infinity"),
				barrier().emits("+ 1 Infinity Infinity"),
				in("- 1 Infinity", "+ 1 2"),
				barrier().emits("U- 1 Infinity Infinity", "U+ 1 3.5 1.75"),
			},
		},
		{
			name: "multiset aggregates", input: []types.T{i8, txt, boo}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "string_agg", false, x(txt), comma), newAgg(t, "string_agg", true, x(txt), comma),
					newAgg(t, "count", true, x(txt)), newAgg(t, "bool_and", false, colRef(2, boo)), newAgg(t, "bool_or", false, colRef(2, boo))}
			},
			steps: []testStep{
				in("+ 1 b true", "+ 1 a NULL", "+ 1 b false", "+ 1 NULL true"),
				barrier().emits("+ 1 a,b,b a,b 2 f t"),
				in("- 1 b false"),
				barrier().emits("U- 1 a,b,b a,b 2 f t", "U+ 1 a,b a,b 2 t t"),
				in("- 1 b true", "- 1 NULL true"),
				barrier().emits("U- 1 a,b a,b 2 t t", "U+ 1 a a 1 NULL NULL"),
			},
		},
		{
			name: "distinct sums count each value once", input: []types.T{i8, i4}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "sum", true, x(i4)), newAgg(t, "count", false, x(i4))}
			},
			steps: []testStep{
				in("+ 1 3", "+ 1 3", "+ 1 4"),
				barrier().emits("+ 1 7 3"),
				in("- 1 3"),
				barrier().emits("U- 1 7 3", "U+ 1 7 2"),
				in("- 1 3"),
				barrier().emits("U- 1 7 2", "U+ 1 4 1"),
			},
		},
		{
			name: "append-only keeps arrival order without a multiset", input: []types.T{i8, txt}, group: []int{0}, appendOnly: true,
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "string_agg", false, x(txt), comma), newAgg(t, "min", false, x(txt))}
			},
			steps: []testStep{
				in("+ 1 b", "+ 1 a"),
				barrier().emits("+ 1 b,a a"),
				in("+ 1 c"),
				barrier().emits("U- 1 b,a a", "U+ 1 b,a,c a"),
			},
		},
		{
			name: "array_agg keeps NULLs and orders a retractable input by value", input: []types.T{i8, i4}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{newAgg(t, "array_agg", false, x(i4)), newAgg(t, "array_agg", true, x(i4))}
			},
			steps: []testStep{
				in("+ 1 3", "+ 1 NULL", "+ 1 1", "+ 1 3"),
				barrier().emits("+ 1 {1,3,3,NULL} {1,3,NULL}"),
				in("- 1 3", "- 1 NULL"),
				barrier().emits("U- 1 {1,3,3,NULL} {1,3,NULL}", "U+ 1 {1,3} {1,3}"),
				in("- 1 1", "- 1 3"),
				barrier().emits("- 1 {1,3} {1,3}"),
			},
		},
		{
			name: "append-only array_agg keeps arrival order", input: []types.T{i8, i4}, group: []int{0}, appendOnly: true,
			aggs: func(t *testing.T) []*expr.AggFunc { return []*expr.AggFunc{newAgg(t, "array_agg", false, x(i4))} },
			steps: []testStep{
				in("+ 1 3", "+ 1 NULL", "+ 1 1"),
				barrier().emits("+ 1 {3,NULL,1}"),
				in("+ 1 2"),
				barrier().emits("U- 1 {3,NULL,1}", "U+ 1 {3,NULL,1,2}"),
			},
		},
		{
			name: "representation changes are emitted", input: []types.T{i8, num}, group: []int{0},
			aggs: func(t *testing.T) []*expr.AggFunc { return []*expr.AggFunc{newAgg(t, "sum", false, x(num))} },
			steps: []testStep{
				in("+ 1 1.5"),
				barrier().emits("+ 1 1.5"),
				in("+ 1 1.00", "- 1 1.00"),
				barrier(),
				in("+ 1 0.00"),
				barrier().emits("U- 1 1.5", "U+ 1 1.50"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			spec := &HashAggSpec{GroupKey: tt.group, Aggs: tt.aggs(t), InputTypes: tt.input,
				StateTable: 1, MultisetTable: 2, AppendOnly: tt.appendOnly, EmptySets: tt.emptySets}
			if tt.appendOnly {
				spec.MultisetTable = 0
			}
			op, err := spec.Build(env)
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{tt.input}, tt.steps)
		})
	}
}

func TestHashAggErrors(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt4}
	minX := func(t *testing.T) []*expr.AggFunc {
		return []*expr.AggFunc{newAgg(t, "min", false, colRef(1, types.TInt4))}
	}
	tests := []struct {
		name       string
		aggs       func(t *testing.T) []*expr.AggFunc
		appendOnly bool
		multiset   uint32
		rows       []string
		want       string
	}{
		{"retraction on append-only input", minX, true, 0, []string{"+ 1 1", "- 1 1"}, "append-only"},
		{"retraction of an absent row", minX, false, 2, []string{"- 1 1"}, "no live row"},
		{"retraction of an absent group", func(t *testing.T) []*expr.AggFunc { return nil }, false, 2, []string{"- 1 1"}, "no live row"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &HashAggSpec{GroupKey: []int{0}, Aggs: tt.aggs(t), InputTypes: ts, StateTable: 1, MultisetTable: tt.multiset, AppendOnly: tt.appendOnly}
			op, err := spec.Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			err = op.Process(0, parseChunk(t, ts, tt.rows...), nil)
			if err == nil {
				err = op.Barrier(&Barrier{Epoch: 1}, func(*Chunk) error { return nil })
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || pgerror.Code(err) != pgerror.CodeInternal {
				t.Fatalf("error %v, want an internal error about %q", err, tt.want)
			}
		})
	}
	spec := &HashAggSpec{Aggs: minX(t), InputTypes: ts, StateTable: 1}
	if _, err := spec.Build(newEnv(t)); err == nil {
		t.Fatal("min over a retractable input without a multiset table built")
	}
}

// A weighted aggregation (over a ConsolidateSpec's rows) counts each row
// as many times as its weight, for inserts and deletes; it takes nothing
// but counts, and min and max over append-only rows.
func TestHashAggWeighted(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt4, types.TInt8}
	counts := []*expr.AggFunc{newAgg(t, "count", false), newAgg(t, "count", false, colRef(1, types.TInt4))}
	spec := &HashAggSpec{GroupKey: []int{0}, Aggs: counts, InputTypes: ts, StateTable: 1, Weighted: true, Weight: 2}
	op, err := spec.Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, op, [][]types.T{ts}, []testStep{
		in("+ 1 10 3", "+ 1 NULL 2", "+ 2 5 1"),
		barrier().emits("+ 1 5 3", "+ 2 1 1"),
		in("- 1 10 2", "- 2 5 1", "+ 3 7 4"),
		barrier().emits("U- 1 5 3", "U+ 1 3 1", "- 2 1 1", "+ 3 4 4"),
		in("- 1 10 1", "- 1 NULL 2"),
		barrier().emits("- 1 3 1"),
	})
	// Over append-only rows a min or max reads one row as its copies.
	extremes := []*expr.AggFunc{newAgg(t, "count", false), newAgg(t, "max", false, colRef(1, types.TInt4)), newAgg(t, "min", false, colRef(1, types.TInt4))}
	spec = &HashAggSpec{GroupKey: []int{0}, Aggs: extremes, InputTypes: ts, StateTable: 1, AppendOnly: true, Weighted: true, Weight: 2}
	if op, err = spec.Build(newEnv(t)); err != nil {
		t.Fatal(err)
	}
	runSteps(t, op, [][]types.T{ts}, []testStep{
		in("+ 1 10 3", "+ 1 NULL 2", "+ 1 4 1"),
		barrier().emits("+ 1 6 10 4"),
		in("+ 1 12 5"),
		barrier().emits("U- 1 6 10 4", "U+ 1 11 12 4"),
	})
	for _, spec := range []*HashAggSpec{
		{GroupKey: []int{0}, Aggs: []*expr.AggFunc{newAgg(t, "sum", false, colRef(1, types.TInt4))}, InputTypes: ts, StateTable: 1, AppendOnly: true, Weighted: true, Weight: 2},
		{GroupKey: []int{0}, Aggs: []*expr.AggFunc{newAgg(t, "max", false, colRef(1, types.TInt4))}, InputTypes: ts, StateTable: 1, MultisetTable: 2, Weighted: true, Weight: 2},
		{GroupKey: []int{0}, Aggs: []*expr.AggFunc{newAgg(t, "count", true, colRef(1, types.TInt4))}, InputTypes: ts, StateTable: 1, MultisetTable: 2, Weighted: true, Weight: 2},
	} {
		if _, err := spec.Build(newEnv(t)); pgerror.Code(err) != pgerror.CodeInternal {
			t.Errorf("weighted %s built: %v", spec.Explain(), err)
		}
	}
}

// A sum or average of intervals read out of range is PostgreSQL's error.
func TestHashAggIntervalRange(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInterval}
	for _, name := range []string{"sum", "avg"} {
		spec := &HashAggSpec{GroupKey: []int{0}, Aggs: []*expr.AggFunc{newAgg(t, name, false, colRef(1, types.TInterval))}, InputTypes: ts, StateTable: 1}
		op, err := spec.Build(newEnv(t))
		if err != nil {
			t.Fatal(err)
		}
		err = op.Process(0, parseChunk(t, ts, "+ 1 PT2562047788H", "+ 1 PT2562047788H"), nil)
		if err == nil {
			err = op.Barrier(&Barrier{Epoch: 1}, func(*Chunk) error { return nil })
		}
		if pgerror.Code(err) != pgerror.CodeDatetimeFieldOverflow || pgerror.From(err).Message != "interval out of range" {
			t.Errorf("%s: error %v, want interval out of range", name, err)
		}
	}
}

// TestHashAggEmptySetOwner checks that only the actor owning the vnode of
// an empty grouping set's group keeps its row.
func TestHashAggEmptySetOwner(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt8}
	spec := &HashAggSpec{GroupKey: []int{0, 1}, Aggs: []*expr.AggFunc{newAgg(t, "count", false)}, InputTypes: ts, StateTable: 1, EmptySets: []int{1}}
	owners := 0
	for v := range testVNodes {
		env := newEnv(t)
		env.VNodes = NewBitmap(testVNodes)
		env.VNodes.Set(v)
		op, err := spec.Build(env)
		if err != nil {
			t.Fatal(err)
		}
		var got []*Chunk
		if err := op.Barrier(&Barrier{Epoch: 1, Checkpoint: true}, func(c *Chunk) error { got = append(got, c); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			owners++
			if s := got[0].String(); s != "+ NULL 1 0\n" {
				t.Errorf("vnode %d emits %q", v, s)
			}
		}
	}
	if owners != 1 {
		t.Errorf("%d actors keep the empty set's row, want 1", owners)
	}
}

// TestHashAggRising feeds a max grouped by g the changelog of counts per
// key (a key's count only rises: an insert, then updates) and checks the
// view against the max of the current counts, through checkpoints and
// recoveries, and through an upgrade: state written by a max that keeps
// every value (the multiset), read on by one that keeps the maximum alone.
func TestHashAggRising(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	ts := []types.T{types.TInt8, types.TInt4, types.TInt8}
	rapid.Check(t, func(rt *rapid.T) {
		aggs := []*expr.AggFunc{newAgg(rt, "max", false, colRef(2, types.TInt8)), newAgg(rt, "count", false)}
		tables := [2]uint32{freshTable(), freshTable()}
		spec := func(rising bool) *HashAggSpec {
			s := &HashAggSpec{GroupKey: []int{1}, Aggs: aggs, InputTypes: ts, StateTable: tables[0], MultisetTable: tables[1]}
			if rising {
				s.Rising = []bool{true, false}
			}
			return s
		}
		rising := rapid.Bool().Draw(rt, "rising")
		risingAlways := rising
		store := NewStore(engine)
		build := func() Operator { return mustBuild(rt, spec(rising), envOver(store)) }
		op := build()
		v := newView()
		emit := func(c *Chunk) error { return v.apply(c) }
		counts := map[int64]int64{}
		epoch := uint64(0)
		for range rapid.IntRange(1, 60).Draw(rt, "steps") {
			switch rapid.SampledFrom([]string{"count", "count", "count", "checkpoint"}).Draw(rt, "action") {
			case "count":
				c := &Chunk{}
				for range rapid.IntRange(1, 4).Draw(rt, "rows") {
					k := rapid.Int64Range(0, 6).Draw(rt, "key")
					g := types.NewInt(k % 3)
					old, seen := counts[k]
					counts[k] = old + rapid.Int64Range(1, 3).Draw(rt, "more")
					if seen {
						c.Append(UpdateDelete, []types.Datum{types.NewInt(k), g, types.NewInt(old)})
						c.Append(UpdateInsert, []types.Datum{types.NewInt(k), g, types.NewInt(counts[k])})
					} else {
						c.Append(Insert, []types.Datum{types.NewInt(k), g, types.NewInt(counts[k])})
					}
				}
				if err := op.Process(0, c, emit); err != nil {
					rt.Fatal(err)
				}
			default:
				epoch++
				if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
					rt.Fatal(err)
				}
				mustSeal(rt, store, epoch)
				if rapid.Bool().Draw(rt, "recover") {
					// Recovering, or upgraded to a max that keeps one value.
					rising = rising || rapid.Bool().Draw(rt, "upgrade")
					store = NewStore(engine)
					op = build()
				}
			}
		}
		epoch++
		if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
			rt.Fatal(err)
		}
		mustSeal(rt, store, epoch)
		maxes, rows := map[int64]int64{}, map[int64]int64{}
		for k, n := range counts {
			maxes[k%3] = max(maxes[k%3], n)
			rows[k%3]++
		}
		var want []string
		for g, m := range maxes {
			want = append(want, fmt.Sprintf("%d %d %d", g, m, rows[g]))
		}
		slices.Sort(want)
		if got := v.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("view\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// A rising max from the start keeps one multiset entry per group.
		if n := stored(rt, store, tables[1]); risingAlways && n != len(maxes) {
			rt.Fatalf("the multiset holds %d entries for %d groups", n, len(maxes))
		}
	})
}
