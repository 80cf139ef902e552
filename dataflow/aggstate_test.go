package dataflow

import (
	"bytes"
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
