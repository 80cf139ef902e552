package expr

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

func TestMonotone(t *testing.T) {
	ts := &ColRef{Idx: 2, T: types.TTimestamp}
	n := &ColRef{Idx: 1, T: types.TInt4}
	hour := NewConst(types.NewInterval(types.IntervalValue{Micros: 3600e6}), types.TInterval)
	one := NewConst(types.NewInt(1), types.TInt4)
	unit := NewConst(types.NewString("day"), types.TText)
	must := func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	tests := []struct {
		name string
		e    Expr
		col  int // -1: not monotone
	}{
		{"column", ts, 2},
		{"plus constant", must(NewBinary("+", ts, hour)), 2},
		{"constant plus", must(NewBinary("+", one, n)), 1},
		{"minus constant", must(NewBinary("-", ts, hour)), 2},
		{"constant minus", must(NewBinary("-", one, n)), -1},
		{"times", must(NewBinary("*", n, one)), -1},
		{"two columns", must(NewBinary("+", n, n)), -1},
		{"tumble_start", must(NewFunc("tumble_start", []Expr{ts, hour})), 2},
		{"tumble_end of a shifted column", must(NewFunc("tumble_end", []Expr{must(NewBinary("-", ts, hour)), hour})), 2},
		{"date_trunc", must(NewFunc("date_trunc", []Expr{unit, ts})), 2},
		{"widening cast", &Cast{E: n, To: types.TInt8}, 1},
		{"narrowing cast", &Cast{E: &ColRef{Idx: 0, T: types.TInt8}, To: types.TInt2}, -1},
		{"cast to text", &Cast{E: n, To: types.TText}, -1},
		{"constant", one, -1},
	}
	for _, tc := range tests {
		col, ok := Monotone(tc.e)
		if !ok {
			col = -1
		}
		if col != tc.col {
			t.Errorf("%s: Monotone(%s) = %d, want %d", tc.name, tc.e, col, tc.col)
		}
	}
}

func TestHopLowestStart(t *testing.T) {
	ts := &ColRef{Idx: 0, T: types.TTimestamp}
	iv := func(min int64) Expr {
		return NewConst(types.NewInterval(types.IntervalValue{Micros: min * 60e6}), types.TInterval)
	}
	f, err := NewSetFunc("hop_window_starts", []Expr{ts, iv(30), iv(60)})
	if err != nil {
		t.Fatal(err)
	}
	if col, ok := HopStartsColumn(f); !ok || col != 0 {
		t.Fatalf("HopStartsColumn = %d, %v", col, ok)
	}
	// For every watermark, the lowest start of a window holding a time at
	// or above it is the lowest start HOP yields for the watermark itself.
	for w := int64(-200); w <= 200; w += 7 {
		got, err := HopLowestStart(f, types.NewTimestamp(w*60e6))
		if err != nil {
			t.Fatal(err)
		}
		it, err := f.o.Set(nil, []types.Datum{types.NewTimestamp(w * 60e6), iv(30).(*Const).V, iv(60).(*Const).V})
		if err != nil {
			t.Fatal(err)
		}
		first, ok, err := it()
		if err != nil || !ok {
			t.Fatalf("no window for %d: %v", w, err)
		}
		if types.Compare(got, first) != 0 {
			t.Errorf("HopLowestStart(%d min) = %s, want %s", w, got, first)
		}
	}
	if _, ok := HopStartsColumn(&SetFunc{Name: "hop_window_starts", Args: []Expr{ts, ts, iv(60)}}); ok {
		t.Error("HopStartsColumn accepted a slide that is not constant")
	}
}

// Every time of a HOP pane lies in the windows of the pane's start, for
// slides that divide the size, that do not, and that leave gaps.
func TestHopPanes(t *testing.T) {
	sec := func(s int64) Expr {
		return NewConst(types.NewInterval(types.IntervalValue{Micros: s * 1e6}), types.TInterval)
	}
	windows := func(f *SetFunc, at types.Datum) []string {
		it, err := f.o.Set(nil, []types.Datum{at, f.Args[1].(*Const).V, f.Args[2].(*Const).V})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for {
			v, ok, err := it()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return out
			}
			out = append(out, v.String())
		}
	}
	for _, c := range []struct{ slide, size, pane int64 }{{2, 10, 2}, {40, 60, 20}, {120, 30, 30}, {7, 7, 7}, {3, 7, 1}} {
		f, err := NewSetFunc("hop_window_starts", []Expr{&ColRef{Idx: 0, T: types.TTimestamp}, sec(c.slide), sec(c.size)})
		if err != nil {
			t.Fatal(err)
		}
		width, ok := HopPaneWidth(f)
		if !ok || width != c.pane*1e6 {
			t.Fatalf("HopPaneWidth(slide %d s, size %d s) = %d, %v, want %d s", c.slide, c.size, width, ok, c.pane)
		}
		rapid.Check(t, func(t *rapid.T) {
			// Around the Unix epoch, where the panes are aligned, and
			// around the PostgreSQL epoch, where timestamps count from.
			v := rapid.Int64Range(-1e9, 1e9).Draw(t, "micros") + rapid.SampledFrom([]int64{0, types.UnixEpochTimestamp}).Draw(t, "around")
			at := types.NewTimestamp(v)
			start := HopPaneStart(at, width)
			if d := v - start.Int(); d < 0 || d >= width {
				t.Fatalf("pane of %s starts at %s", at, start)
			}
			if got, want := windows(f, start), windows(f, at); !slices.Equal(got, want) {
				t.Fatalf("windows of %s: %v; of its pane's start %s: %v", at, want, start, got)
			}
		})
	}
	for _, v := range []types.Datum{types.Null, types.NewTimestamp(types.DateTimeInfinity), types.NewTimestampTZ(types.DateTimeNegInfinity)} {
		if got := HopPaneStart(v, 1e6); got != v {
			t.Errorf("HopPaneStart(%s) = %s, want it unchanged", v, got)
		}
	}
	if got := HopPaneStart(types.NewTimestampTZ(1_500_000), 1e6); got.Kind() != types.KindTimestampTZ {
		t.Errorf("HopPaneStart of a timestamptz is a %v", got.Kind())
	}
}
