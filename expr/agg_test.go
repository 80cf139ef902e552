package expr

import (
	"math"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestFloatSumOverflow checks PostgreSQL's overflow rule for float sums and
// averages: an infinite running sum (or, for avg, sum of squares) of finite
// values is an error, even if later values would bring it back; infinite
// inputs are not.
func TestFloatSumOverflow(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		t    types.T
		vals []float64
		want string // the result, or the error's SQLSTATE
	}{
		{"sum", types.TFloat8, []float64{1e308, 1e308, -1e308}, pgerror.CodeNumericValueOutOfRange},
		{"sum", types.TFloat8, []float64{1e308, inf}, "Infinity"},
		{"sum", types.TFloat8, []float64{inf, 1e308, 1e308}, "Infinity"},
		{"sum", types.TFloat4, []float64{3e38, 3e38}, pgerror.CodeNumericValueOutOfRange},
		{"sum", types.TFloat4, []float64{3e38, -3e38, 1.5}, "1.5"},
		{"avg", types.TFloat8, []float64{1e308, -1e308}, pgerror.CodeNumericValueOutOfRange},
		{"avg", types.TFloat8, []float64{1e308, inf}, "Infinity"},
		{"avg", types.TFloat8, []float64{1, 2}, "1.5"},
	}
	for _, tt := range tests {
		args := []Expr{&ColRef{Idx: 0, T: tt.t}}
		a, err := NewAgg(tt.name, args, false, false)
		if err != nil {
			t.Fatal(err)
		}
		st := a.NewState()
		for _, v := range tt.vals {
			if tt.t == types.TFloat4 {
				v = float64(float32(v)) // a real's value
			}
			if err = st.Add([]types.Datum{types.NewFloat(v)}); err != nil {
				break
			}
		}
		got := pgerror.Code(err)
		if err == nil {
			r, err := st.Result()
			if err != nil {
				t.Fatal(err)
			}
			got = string(types.FormatText(nil, a.T, r))
		}
		if got != tt.want {
			t.Errorf("%s(%s %v) = %s, want %s", tt.name, tt.t, tt.vals, got, tt.want)
		}
	}
}
