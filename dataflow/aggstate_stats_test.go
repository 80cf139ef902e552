package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// TestInvertibleStats feeds variances and bit aggregates inserts and
// retractions and checks that their result, also after a save and load,
// is the batch aggregate's over the live values.
func TestInvertibleStats(t *testing.T) {
	type op struct {
		v       string
		retract bool
	}
	ins := func(vs ...string) []op {
		out := make([]op, len(vs))
		for i, v := range vs {
			out[i] = op{v: v}
		}
		return out
	}
	del := func(vs ...string) []op {
		out := ins(vs...)
		for i := range out {
			out[i].retract = true
		}
		return out
	}
	cat := func(parts ...[]op) []op {
		var out []op
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name string
		t    types.T
		ops  []op
		live []string // the values left, for the batch aggregate
	}{
		{"stddev", types.TInt4, cat(ins("1", "2", "4", "100"), del("100")), []string{"1", "2", "4"}},
		{"var_pop", types.TInt8, cat(ins("9223372036854775807", "-9223372036854775807", "3", "NULL")), []string{"9223372036854775807", "-9223372036854775807", "3"}},
		{"var_samp", types.TNumeric, cat(ins("1.5", "2.25", "0.0000001", "0.001"), del("0.0000001")), []string{"1.5", "2.25", "0.001"}},
		{"stddev_pop", types.TNumeric, cat(ins("1", "NaN", "Infinity"), del("NaN")), []string{"1", "Infinity"}},
		{"var_pop", types.TNumeric, cat(ins("1", "NaN"), del("NaN")), []string{"1"}},
		{"variance", types.TNumeric, cat(ins("3.5"), del("3.5")), nil},
		{"var_samp", types.TFloat8, cat(ins("0.5", "2.5", "1e300", "-1e300"), del("1e300", "-1e300")), []string{"0.5", "2.5"}},
		{"stddev", types.TFloat8, cat(ins("1", "Infinity", "3"), del("Infinity")), []string{"1", "3"}},
		{"var_pop", types.TFloat8, ins("1", "-Infinity"), []string{"1", "-Infinity"}},
		{"bit_and", types.TInt4, cat(ins("12", "10", "NULL", "-1", "1"), del("1")), []string{"12", "10", "-1"}},
		{"bit_or", types.TInt2, cat(ins("-7", "8"), del("-7")), []string{"8"}},
		{"bit_xor", types.TInt8, cat(ins("-9223372036854775807", "7", "7", "5"), del("7")), []string{"-9223372036854775807", "7", "5"}},
		{"bit_or", types.TInt4, cat(ins("3"), del("3")), nil},
	}
	for _, tt := range tests {
		a, err := expr.NewAgg(tt.name, []expr.Expr{&expr.ColRef{Idx: 0, T: tt.t}}, false, false)
		if err != nil {
			t.Fatal(err)
		}
		k, err := newAggKind(a, false)
		if err != nil {
			t.Fatal(err)
		}
		acc := k.load(nil, nil)
		for _, o := range tt.ops {
			v, err := types.ParseText(tt.t, o.v)
			if o.v == "NULL" {
				v, err = types.Null, nil
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := acc.add([]types.Datum{v}, o.retract); err != nil {
				t.Fatal(err)
			}
		}
		batch := a.NewState()
		for _, v := range tt.live {
			d, _ := types.ParseText(tt.t, v)
			if err := batch.Add([]types.Datum{d}); err != nil {
				t.Fatal(err)
			}
		}
		want, err := batch.Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, acc := range []aggAcc{acc, k.load(acc.save(nil), nil)} {
			got, err := acc.result()
			if err != nil || !types.Identical(got, want) {
				t.Errorf("%s(%s) after %v = %v, %v; want %v", tt.name, tt.t, tt.ops, got, err, want)
			}
		}
	}
}

// TestExactDecimal checks that floats become the decimals they are.
func TestExactDecimal(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0.1, "0.1000000000000000055511151231257827021181583404541015625"},
		{-0.5, "-0.5"},
		{1e23, "99999999999999991611392"},
		{0x1p60, "1152921504606846976"},
		{0, "0"},
		{3, "3"},
	}
	for _, tt := range tests {
		if got := exactDecimal(tt.f).Text('f'); got != tt.want {
			t.Errorf("exactDecimal(%v) = %s, want %s", tt.f, got, tt.want)
		}
	}
	if d := exactDecimal(5e-324); d.NumDigits() != 751 || d.Exponent != -1074 {
		t.Errorf("exactDecimal(5e-324) = %d digits, exponent %d", d.NumDigits(), d.Exponent)
	}
}
