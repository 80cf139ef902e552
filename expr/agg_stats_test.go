package expr

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// aggResult runs the aggregate a over rows of one column each (text
// values, "NULL" for NULL, of type t) and returns its result as text, or
// the error's SQLSTATE.
func aggResult(t *testing.T, a *AggFunc, typ types.T, vals []string) string {
	t.Helper()
	s := a.NewState()
	for _, v := range vals {
		row := []types.Datum{lit(typ, v).(*Const).V}
		args := make([]types.Datum, len(a.Args))
		for i, e := range a.Args {
			var err error
			if args[i], err = e.Eval(nil, row); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Add(args); err != nil {
			return pgerror.Code(err)
		}
	}
	r, err := s.Result()
	switch {
	case err != nil:
		return pgerror.Code(err)
	case r.IsNull():
		return nullOut
	}
	return string(types.FormatText(nil, a.T, r))
}

// TestVariances checks the variances and standard deviations against
// PostgreSQL 15: numeric results with its digits and scale over integers
// and numerics, float8 over floats (float8_accum's running computation).
func TestVariances(t *testing.T) {
	tests := []struct {
		name string
		t    types.T
		vals []string
		want string // the result as text, or the error's SQLSTATE
	}{
		{"stddev", types.TInt4, []string{"1", "2", "4"}, "1.5275252316519467"},
		{"variance", types.TInt4, []string{"1", "2", "4"}, "2.3333333333333333"},
		{"stddev_pop", types.TInt2, []string{"1", "2", "4"}, "1.2472191289246471"},
		{"var_pop", types.TInt8, []string{"1", "2", "NULL", "4"}, "1.5555555555555556"},
		{"var_pop", types.TNumeric, []string{"1.5", "2.25", "0.001"}, "0.87416688888888888889"},
		{"stddev_samp", types.TNumeric, []string{"1.5", "2.25", "0.001"}, "1.1450983946077880"},
		{"var_samp", types.TNumeric, []string{"0.00001", "0.00002", "0.00004"}, "0.0000000002333333333333333333"},
		{"var_pop", types.TInt8, []string{"9223372036854775807", "-9223372036854775807", "3"}, "56713727820156410564931271856155000835"},
		{"var_samp", types.TNumeric, []string{"5.00", "5"}, "0"},
		{"var_samp", types.TInt4, []string{"7"}, nullOut},
		{"var_pop", types.TInt4, []string{"7"}, "0"},
		{"stddev_pop", types.TInt4, nil, nullOut},
		{"var_pop", types.TNumeric, []string{"1", "NaN"}, "NaN"},
		{"var_samp", types.TNumeric, []string{"Infinity"}, nullOut},
		{"var_pop", types.TNumeric, []string{"Infinity"}, "NaN"},
		{"var_samp", types.TFloat8, []string{"1", "2", "4"}, "2.3333333333333335"},
		{"stddev_samp", types.TFloat4, []string{"1", "2", "4"}, "1.5275252316519468"},
		{"var_pop", types.TFloat8, []string{"1", "-Infinity"}, "NaN"},
		{"var_pop", types.TFloat8, []string{"1e300", "-1e300"}, pgerror.CodeNumericValueOutOfRange},
	}
	for _, tt := range tests {
		a, err := NewAgg(tt.name, []Expr{&ColRef{Idx: 0, T: tt.t}}, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := aggResult(t, a, tt.t, tt.vals); got != tt.want {
			t.Errorf("%s(%s %v) = %s, want %s", tt.name, tt.t, tt.vals, got, tt.want)
		}
	}
}

// TestBitAggregates checks bit_and, bit_or and bit_xor, which keep their
// integer type and skip NULLs.
func TestBitAggregates(t *testing.T) {
	tests := []struct {
		name string
		t    types.T
		vals []string
		want string
	}{
		{"bit_and", types.TInt4, []string{"12", "10", "NULL", "-1"}, "8"},
		{"bit_or", types.TInt4, []string{"12", "10", "NULL", "-1"}, "-1"},
		{"bit_xor", types.TInt4, []string{"12", "10", "NULL", "-1"}, "-7"},
		{"bit_xor", types.TInt2, []string{"32767", "5", "5"}, "32767"},
		{"bit_and", types.TInt8, []string{"-9223372036854775807", "7"}, "1"},
		{"bit_or", types.TInt8, []string{"NULL"}, nullOut},
	}
	for _, tt := range tests {
		a, err := NewAgg(tt.name, []Expr{&ColRef{Idx: 0, T: tt.t}}, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if a.T != tt.t {
			t.Errorf("%s(%s) is %s", tt.name, tt.t, a.T)
		}
		if got := aggResult(t, a, tt.t, tt.vals); got != tt.want {
			t.Errorf("%s(%s %v) = %s, want %s", tt.name, tt.t, tt.vals, got, tt.want)
		}
	}
	if _, err := NewAgg("bit_and", []Expr{&ColRef{Idx: 0, T: types.TNumeric}}, false, false); pgerror.Code(err) != pgerror.CodeUndefinedFunction {
		t.Errorf("bit_and(numeric): %v", err)
	}
}
