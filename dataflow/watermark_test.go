package dataflow

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

func TestWatermarkMin(t *testing.T) {
	type in struct {
		slot, col int
		val       int64
		want      int64 // 0: nothing passes
	}
	tests := []struct {
		name  string
		slots int
		steps []in
	}{
		{"one slot passes advances only", 1, []in{{0, 0, 5, 5}, {0, 0, 5, 0}, {0, 0, 3, 0}, {0, 0, 7, 7}}},
		{"waits for every slot", 3, []in{{0, 0, 5, 0}, {1, 0, 9, 0}, {2, 0, 7, 5}, {0, 0, 8, 7}, {2, 0, 20, 8}, {1, 0, 10, 0}}},
		{"columns are apart", 2, []in{{0, 0, 5, 0}, {1, 1, 5, 0}, {1, 0, 6, 5}, {0, 1, 4, 4}}},
		{"a slot regressing changes nothing", 2, []in{{0, 0, 5, 0}, {1, 0, 5, 5}, {0, 0, 2, 0}, {1, 0, 9, 0}, {0, 0, 6, 6}}},
	}
	for _, tc := range tests {
		m := newWatermarkMin(tc.slots)
		for i, s := range tc.steps {
			got, ok := m.add(s.slot, Watermark{Col: s.col, Val: types.NewInt(s.val)})
			switch {
			case ok != (s.want != 0):
				t.Errorf("%s: step %d passed %v, want %v", tc.name, i, ok, s.want != 0)
			case ok && (got.Val.Int() != s.want || got.Col != s.col):
				t.Errorf("%s: step %d passed %d on column %d, want %d on %d", tc.name, i, got.Val.Int(), got.Col, s.want, s.col)
			}
		}
	}
}

// TestWatermarkMinIdle checks that an idle slot does not hold back the
// merged watermark: marking one idle passes what the others merge to, on
// every column, in column order; nothing passes while every slot is idle;
// a watermark makes its slot count again, and the merged one never
// regresses.
func TestWatermarkMinIdle(t *testing.T) {
	m := newWatermarkMin(3)
	var got []Watermark
	collect := func(w Watermark) error { got = append(got, w); return nil }
	add := func(slot, col int, v int64) {
		t.Helper()
		if w, ok := m.add(slot, Watermark{Col: col, Val: types.NewInt(v)}); ok {
			got = append(got, w)
		}
	}
	idle := func(slot int) {
		t.Helper()
		if err := m.setIdle(slot, collect); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(step string, want ...int64) {
		t.Helper()
		var vals []int64
		for _, w := range got {
			vals = append(vals, int64(w.Col)*1000+w.Val.Int())
		}
		if !slices.Equal(vals, want) {
			t.Fatalf("%s: passed %v (column*1000 + value), want %v", step, vals, want)
		}
		got = nil
	}
	add(0, 0, 5)
	add(1, 0, 9)
	add(0, 1, 3)
	expect("slot 2 sent none")
	idle(2)
	expect("slot 2 idle", 5) // column 1 waits for slot 1
	idle(2)
	expect("slot 2 idle again")
	add(1, 1, 4)
	expect("slot 1 on column 1", 1003)
	idle(0)
	expect("slot 0 idle too", 9, 1004)
	idle(1)
	expect("every slot idle")
	add(2, 0, 7)
	expect("slot 2 back below the merged watermark")
	add(2, 0, 12)
	expect("slot 2 back above it", 12)
	add(0, 0, 10)
	expect("slot 0 back below the merged watermark")
	add(0, 0, 20)
	expect("slot 0 back above it")
	add(2, 0, 30)
	expect("slot 2 above slot 0", 20)
}

func TestProjectWatermark(t *testing.T) {
	env := newEnv(t)
	ts := colRef(0, types.TTimestamp)
	hour := expr.NewConst(types.NewInterval(types.IntervalValue{Micros: 3600e6}), types.TInterval)
	start, err := expr.NewFunc("tumble_start", []expr.Expr{ts, hour})
	if err != nil {
		t.Fatal(err)
	}
	op, err := (&ProjectSpec{Exprs: []expr.Expr{colRef(1, types.TInt4), start, binOp(t, "+", ts, hour), ts}}).Build(env)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	out := func(w Watermark) error { got = append(got, w.Val.String()+"@"+string(rune('0'+w.Col))); return nil }
	at := func(s string) types.Datum {
		d, err := types.ParseText(types.TTimestamp, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, w := range []Watermark{{0, at("2024-01-01 10:20:00")}, {1, types.NewInt(3)}, {0, at("2024-01-01 10:40:00")}} {
		if err := op.(watermarker).Watermark(0, w, nil, out); err != nil {
			t.Fatal(err)
		}
	}
	// The window start does not move within the hour: it is sent once;
	// column 1 is output 0.
	want := "2024-01-01 10:00:00@1 2024-01-01 11:20:00@2 2024-01-01 10:20:00@3 3@0 2024-01-01 11:40:00@2 2024-01-01 10:40:00@3"
	if strings.Join(got, " ") != want {
		t.Errorf("watermarks\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// stored counts the sealed entries of a state table.
func stored(t tester, store *Store, table uint32) int {
	t.Helper()
	lower := storage.AppendKey(nil, table, 0, nil)
	upper := storage.AppendKey(nil, table+1, 0, nil)
	n := 0
	if err := store.Engine().Scan(lower, upper, math.MaxUint64, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWindowClose checks that window aggregations and EOWC buffers emit
// and delete the state of what a watermark closes, ignore rows arriving
// for it later, and pass the watermark on.
func TestWindowClose(t *testing.T) {
	cols := []types.T{types.TInt4, types.TInt8, types.TInt4}
	tests := []struct {
		name  string
		spec  func(table uint32) Spec
		steps [][]string // rows, then what the watermark 10 on column 0 emits
		after []string   // output of the late rows' epoch
	}{
		{
			name: "window aggregation",
			spec: func(table uint32) Spec {
				return &HashAggSpec{GroupKey: []int{0}, Aggs: []*expr.AggFunc{newAgg(t, "sum", false, colRef(2, types.TInt4))},
					InputTypes: cols, StateTable: table, AppendOnly: true, WindowKey: true}
			},
			// Its rows were emitted at the barrier.
			steps: [][]string{{"+ 0 1 5", "+ 10 2 7", "+ 0 3 1"}, nil},
			after: []string{"U- 10 7", "U+ 10 8"},
		},
		{
			name: "window aggregation emitting on close",
			spec: func(table uint32) Spec {
				return &HashAggSpec{GroupKey: []int{0}, Aggs: []*expr.AggFunc{newAgg(t, "sum", false, colRef(2, types.TInt4))},
					InputTypes: cols, StateTable: table, AppendOnly: true, WindowKey: true, EmitOnWindowClose: true}
			},
			steps: [][]string{{"+ 0 1 5", "+ 10 2 7", "+ 0 3 1"}, {"+ 0 6"}},
		},
		{
			name: "rows emitting on close",
			spec: func(table uint32) Spec {
				return &EowcSortSpec{Col: 0, StreamKey: []int{1}, Types: cols, StateTable: table}
			},
			steps: [][]string{{"+ 0 1 5", "+ 10 2 7", "+ 0 3 1", "- 0 3 1", "+ 5 4 1"}, {"+ 0 1 5", "+ 5 4 1"}},
		},
	}
	for _, tc := range tests {
		env := newEnv(t)
		table := freshTable()
		op, err := tc.spec(table).Build(env)
		if err != nil {
			t.Fatal(err)
		}
		var out collector
		var wms []Watermark
		if err := op.Process(0, parseChunk(t, cols, tc.steps[0]...), out.emit); err != nil {
			t.Fatal(err)
		}
		if err := op.Barrier(&Barrier{Epoch: 1, Checkpoint: true}, out.emit); err != nil {
			t.Fatal(err)
		}
		out.take()
		err = op.(watermarker).Watermark(0, Watermark{Col: 0, Val: types.NewInt(10)}, out.emit, func(w Watermark) error { wms = append(wms, w); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if got := out.take(); strings.Join(got, "\n") != strings.Join(tc.steps[1], "\n") {
			t.Errorf("%s: the watermark emitted\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.steps[1], "\n"))
		}
		if len(wms) != 1 || wms[0].Col != 0 || wms[0].Val.Int() != 10 {
			t.Errorf("%s: passed watermarks %v, want 10 on column 0", tc.name, wms)
		}
		if err := op.Process(0, parseChunk(t, cols, "+ 5 8 100", "+ 10 9 1"), out.emit); err != nil {
			t.Fatal(err)
		}
		if err := op.Barrier(&Barrier{Epoch: 2, Checkpoint: true}, out.emit); err != nil {
			t.Fatal(err)
		}
		if got := out.take(); strings.Join(got, "\n") != strings.Join(tc.after, "\n") {
			t.Errorf("%s: after the watermark\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.after, "\n"))
		}
		if err := env.Store.Seal(2, nil, true); err != nil {
			t.Fatal(err)
		}
		// Only what is open stays in state: the group or row at 10.
		want := 1
		if _, ok := op.(*eowcSort); ok {
			want = 2 // the rows (10, 2) and (10, 9)
		}
		if n := stored(t, env.Store, table); n != want {
			t.Errorf("%s: %d entries in state, want %d", tc.name, n, want)
		}
	}
}
