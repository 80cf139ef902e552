package expr

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// A numeric constant times an integer column, computed in integers
// (Binary.mulScaled), is the decimal the general product gives: the same
// coefficient, exponent and sign, for either operand order, zeros,
// negatives, extremes and products beyond int64 included.
func TestMulScaled(t *testing.T) {
	ctx := NewCtx(context.Background(), nil)
	rapid.Check(t, func(t *rapid.T) {
		digits := rapid.StringMatching(`-?[0-9]{1,19}(\.[0-9]{1,12})?`).Draw(t, "constant")
		k, err := types.ParseText(types.TNumeric, digits)
		if err != nil {
			t.Fatal(err)
		}
		col := &ColRef{Idx: 0, T: rapid.SampledFrom([]types.T{types.TInt2, types.TInt4, types.TInt8}).Draw(t, "type")}
		var e Expr
		if rapid.Bool().Draw(t, "constant first") {
			e, err = NewBinary("*", NewConst(k, types.TNumeric), col)
		} else {
			e, err = NewBinary("*", col, NewConst(k, types.TNumeric))
		}
		if err != nil {
			t.Fatal(err)
		}
		b := e.(*Binary)
		x := rapid.OneOf(rapid.Int64Range(-1000, 1000), rapid.SampledFrom([]int64{0, math.MaxInt64, math.MinInt64, math.MaxInt32, -math.MaxInt32})).Draw(t, "x")
		row := []types.Datum{types.NewInt(x)}
		got, ok, err := b.mulScaled(ctx, row)
		if !ok || err != nil {
			t.Fatalf("%s over %d: not computed (%v)", b, x, err)
		}
		l, _ := b.L.Eval(ctx, row)
		r, _ := b.R.Eval(ctx, row)
		want, err := b.fn(ctx, l, r)
		if err != nil {
			t.Fatal(err)
		}
		g, w := got.Decimal(), want.Decimal()
		if g.Cmp(w) != 0 || g.Exponent != w.Exponent || g.Negative != w.Negative || got.String() != want.String() {
			t.Fatalf("%s over %d = %s (%+v), want %s (%+v)", b, x, got, *g, want, *w)
		}
	})
	// Other shapes are left to the general way, evaluating nothing.
	for _, e := range []Expr{
		mustBinary(t, "*", &ColRef{Idx: 0, T: types.TNumeric}, NewConst(types.NewInt(2), types.TInt8)),
		mustBinary(t, "*", &ColRef{Idx: 0, T: types.TInt8}, &ColRef{Idx: 0, T: types.TInt8}),
	} {
		if b, isBinary := e.(*Binary); isBinary {
			if _, ok, _ := b.mulScaled(ctx, []types.Datum{types.NewInt(3)}); ok {
				t.Errorf("%s computed as a scaled product", b)
			}
		}
	}
	if got, err := mustBinary(t, "*", NewConst(mustNumeric(t, "2"), types.TNumeric), &ColRef{Idx: 0, T: types.TInt8}).Eval(ctx, []types.Datum{types.Null}); err != nil || !got.IsNull() {
		t.Errorf("2 * NULL = %v, %v", got, err)
	}
}

func mustBinary(t *testing.T, op string, l, r Expr) Expr {
	t.Helper()
	e, err := NewBinary(op, l, r)
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", op, err))
	}
	return e
}

func mustNumeric(t *testing.T, s string) types.Datum {
	t.Helper()
	d, err := types.ParseText(types.TNumeric, s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
