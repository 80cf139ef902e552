package dataflow

import (
	"bytes"
	"math"
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// TestAppendOrderKey checks that order keys sort as expr.CompareOrdered
// orders their values, ties going by the argument values.
func TestAppendOrderKey(t *testing.T) {
	i := func(v int64) types.Datum { return types.NewInt(v) }
	null := types.Null
	tests := []struct {
		order      expr.AggOrder
		a, b       types.Datum // ORDER BY values
		va, vb     types.Datum // argument values
		wantBefore bool        // a's key sorts before b's
	}{
		{order: expr.AggOrder{}, a: i(1), b: i(2), va: i(9), vb: i(0), wantBefore: true},
		{order: expr.AggOrder{Desc: true}, a: i(1), b: i(2), va: i(0), vb: i(0), wantBefore: false},
		{order: expr.AggOrder{}, a: null, b: i(2), va: i(0), vb: i(0), wantBefore: false},
		{order: expr.AggOrder{NullsFirst: true}, a: null, b: i(2), va: i(0), vb: i(0), wantBefore: true},
		{order: expr.AggOrder{Desc: true, NullsFirst: true}, a: null, b: i(-5), va: i(0), vb: i(0), wantBefore: true},
		{order: expr.AggOrder{Desc: true}, a: null, b: i(-5), va: i(0), vb: i(0), wantBefore: false},
		{order: expr.AggOrder{Desc: true}, a: i(3), b: i(3), va: i(1), vb: i(2), wantBefore: true},
		{order: expr.AggOrder{}, a: null, b: null, va: i(2), vb: null, wantBefore: true},
	}
	for _, tt := range tests {
		order := []expr.AggOrder{tt.order}
		ka := appendOrderKey(nil, order, []types.Datum{tt.a}, []types.Datum{tt.va})
		kb := appendOrderKey(nil, order, []types.Datum{tt.b}, []types.Datum{tt.vb})
		if got := bytes.Compare(ka, kb) < 0; got != tt.wantBefore {
			t.Errorf("%+v: (%v, %v) before (%v, %v) = %v, want %v", tt.order, tt.a, tt.va, tt.b, tt.vb, got, tt.wantBefore)
		}
		want := expr.CompareOrdered(tt.a, tt.b, tt.order.Desc, tt.order.NullsFirst)
		if want != 0 && (want < 0) != tt.wantBefore {
			t.Errorf("%+v: CompareOrdered disagrees", tt.order)
		}
	}
}

// TestFloatSum checks that a float sum overflows only while its live
// values do, and equals the float64 sum when that does not overflow.
func TestFloatSum(t *testing.T) {
	tests := []struct {
		adds []float64 // in order; a retraction is a negated value
		want float64
	}{
		{[]float64{1e308, 1e308, -1e308}, 1e308},
		{[]float64{1e308, 1e308}, math.Inf(1)},
		{[]float64{-0x1.8p1023, -0x1.8p1023, 0x1.8p1023, -0x1p1020}, -0x1.ap1023},
		{[]float64{-1.7e308, -1e307}, math.Inf(-1)},
		{[]float64{0.1, 0.2, 0.3}, 0.6000000000000001},
		{[]float64{5e-324, 5e-324}, 1e-323},
		{[]float64{1.5e308, 1.5e308, 1.5e308, -1.5e308, -1.5e308}, 1.5e308},
	}
	for _, tt := range tests {
		var s floatSum
		for _, v := range tt.adds {
			s.add(v)
		}
		if got := s.value(); got != tt.want {
			t.Errorf("sum of %v = %v, want %v", tt.adds, got, tt.want)
		}
	}
}
