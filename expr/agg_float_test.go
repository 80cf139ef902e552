package expr

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestFloatSumAvg checks sum and avg of floats over rows in order against
// PostgreSQL 15's answers: each step that turns finite values infinite is
// an overflow (avg's sum of squares included).
func TestFloatSumAvg(t *testing.T) {
	tests := []struct {
		agg  string
		typ  types.T
		in   string
		want string // the result, or the error's SQLSTATE
	}{
		{"sum", types.TFloat8, "1e308 1e308", "22003"},
		{"avg", types.TFloat8, "1e308 1e308", "22003"},
		{"sum", types.TFloat8, "1e200 -1e200", "0"},
		{"avg", types.TFloat8, "1e200 -1e200", "22003"},
		{"sum", types.TFloat8, "-0", "-0"},
		{"avg", types.TFloat8, "-0", "0"},
		{"sum", types.TFloat8, "1e308 -Infinity 1e308", "-Infinity"},
		{"sum", types.TFloat8, "Infinity 1e308 1e308", "Infinity"},
		{"avg", types.TFloat8, "1e308 NaN 1e308", "NaN"},
		{"avg", types.TFloat8, "Infinity 1e200 -1e200", "Infinity"},
		{"sum", types.TFloat4, "3e38 3e38", "22003"},
		{"avg", types.TFloat4, "3e38 3e38", "3.0000000054977558e+38"},
	}
	for _, tt := range tests {
		t.Run(tt.agg+" "+tt.in, func(t *testing.T) {
			a, err := NewAgg(tt.agg, []Expr{&ColRef{Idx: 0, T: tt.typ}}, false, false)
			if err != nil {
				t.Fatal(err)
			}
			s := a.NewState()
			for _, f := range strings.Fields(tt.in) {
				v, err := types.ParseText(tt.typ, f)
				if err == nil {
					err = s.Add([]types.Datum{v})
				}
				if err != nil {
					if pgerror.Code(err) != tt.want {
						t.Fatalf("got %v, want %s", err, tt.want)
					}
					return
				}
			}
			v, err := s.Result()
			if got := string(types.FormatText(nil, a.T, v)); err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %s", got, err, tt.want)
			}
		})
	}
}
