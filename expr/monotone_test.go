package expr

import (
	"testing"

	"github.com/streamdb/streamdb/types"
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
