package expr

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestOrderedSetAggregates checks percentile_cont, percentile_disc and
// mode over rows of one column (fed in any order) against PostgreSQL 15.
func TestOrderedSetAggregates(t *testing.T) {
	f8arr, _ := types.ArrayOf(types.TFloat8)
	frac := func(s string) Expr { return lit(types.TFloat8, s) }
	tests := []struct {
		name  string
		frac  Expr // nil for mode
		t     types.T
		order AggOrder
		vals  []string
		want  string // the result as text, or the error's SQLSTATE
	}{
		{"percentile_cont", frac("0.5"), types.TInt4, AggOrder{}, []string{"4", "1", "NULL", "2", "4"}, "3"},
		{"percentile_cont", frac("0.3"), types.TFloat8, AggOrder{Desc: true}, []string{"1", "2", "4", "10"}, "4.6000000000000005"},
		{"percentile_cont", frac("0.3"), types.TInterval, AggOrder{}, []string{"1 day", "2 hours", "1 mon 3 days"}, "15:12:00"},
		{"percentile_cont", frac("0.5"), types.TInterval, AggOrder{}, []string{"1 year", "-178000000 years"}, "-88999999 years -6 mons"},
		{"percentile_cont", frac("0.5"), types.TFloat8, AggOrder{}, []string{"Infinity", "-Infinity"}, "NaN"},
		{"percentile_cont", frac("1"), types.TNumeric, AggOrder{}, []string{"1.5", "0.25"}, "1.5"},
		{"percentile_cont", frac("0.5"), types.TInt4, AggOrder{}, []string{"NULL"}, nullOut},
		{"percentile_cont", frac("NULL"), types.TInt4, AggOrder{}, []string{"1"}, nullOut},
		{"percentile_cont", frac("1.5"), types.TInt4, AggOrder{}, nil, pgerror.CodeNumericValueOutOfRange},
		{"percentile_cont", frac("NaN"), types.TInt4, AggOrder{}, []string{"1"}, pgerror.CodeNumericValueOutOfRange},
		{"percentile_cont", lit(f8arr, "{0,0.25,0.5,1,NULL}"), types.TInt4, AggOrder{}, []string{"10", "1", "4", "2"}, "{1,1.75,3,10,NULL}"},
		{"percentile_cont", lit(f8arr, "{}"), types.TInt4, AggOrder{}, []string{"1"}, "{}"},
		{"percentile_cont", lit(f8arr, "{2}"), types.TInt4, AggOrder{}, nil, nullOut},
		{"percentile_cont", lit(f8arr, "{0.5,2}"), types.TInt4, AggOrder{}, []string{"1"}, pgerror.CodeNumericValueOutOfRange},
		{"percentile_disc", frac("0.5"), types.TInt4, AggOrder{}, []string{"4", "1", "2", "4"}, "2"},
		{"percentile_disc", frac("0"), types.TText, AggOrder{}, []string{"b", "a", "c"}, "a"},
		{"percentile_disc", frac("1"), types.TText, AggOrder{Desc: true}, []string{"b", "a", "c"}, "a"},
		{"percentile_disc", lit(f8arr, "{0,0.25,0.5,1,NULL}"), types.TInt4, AggOrder{}, []string{"10", "1", "4", "2"}, "{1,1,2,10,NULL}"},
		{"mode", nil, types.TText, AggOrder{}, []string{"b", "a", "c", "c", "b", "NULL"}, "b"},
		{"mode", nil, types.TText, AggOrder{Desc: true}, []string{"b", "a", "c", "c", "b"}, "c"},
		{"mode", nil, types.TNumeric, AggOrder{}, []string{"1.0", "1.00", "2"}, "1.0"},
		{"mode", nil, types.TInt4, AggOrder{}, nil, nullOut},
	}
	for _, tt := range tests {
		var direct []Expr
		if tt.frac != nil {
			direct = []Expr{tt.frac}
		}
		a, err := NewOrderedSetAgg(tt.name, direct, &ColRef{Idx: 0, T: tt.t}, tt.order)
		if err != nil {
			t.Fatal(err)
		}
		if got := aggResult(t, a, tt.t, tt.vals); got != tt.want {
			t.Errorf("%s over %v = %s, want %s", a, tt.vals, got, tt.want)
		}
	}
}

// TestOrderedSetTypes checks the result types of the ordered-set
// aggregates and the argument types they refuse (42883).
func TestOrderedSetTypes(t *testing.T) {
	f8arr, _ := types.ArrayOf(types.TFloat8)
	i2arr, _ := types.ArrayOf(types.TInt2)
	col := func(t types.T) Expr { return &ColRef{Idx: 0, T: t} }
	half := lit(types.TNumeric, "0.5")
	tests := []struct {
		name   string
		direct []Expr
		key    types.T
		want   string // the result type, or "" for 42883
	}{
		{"percentile_cont", []Expr{half}, types.TInt2, "double precision"},
		{"percentile_cont", []Expr{half}, types.TNumeric, "double precision"},
		{"percentile_cont", []Expr{half}, types.TInterval, "interval"},
		{"percentile_cont", []Expr{lit(f8arr, "{0.5}")}, types.TInterval, "interval[]"},
		{"percentile_cont", []Expr{half}, types.TText, ""},
		{"percentile_cont", nil, types.TFloat8, ""},
		{"percentile_disc", []Expr{half}, types.TInt2, "smallint"},
		{"percentile_disc", []Expr{lit(f8arr, "{0.5}")}, types.TInt2, i2arr.String()},
		{"percentile_disc", []Expr{lit(types.TText, "a")}, types.TInt2, ""},
		{"mode", nil, types.TNumeric, "numeric"},
		{"mode", []Expr{half}, types.TNumeric, ""},
	}
	for _, tt := range tests {
		a, err := NewOrderedSetAgg(tt.name, tt.direct, col(tt.key), AggOrder{})
		switch {
		case tt.want == "" && pgerror.Code(err) != pgerror.CodeUndefinedFunction:
			t.Errorf("%s(%v) WITHIN GROUP (%s): %v, want 42883", tt.name, tt.direct, tt.key, err)
		case tt.want != "" && (err != nil || a.T.String() != tt.want):
			t.Errorf("%s(%v) WITHIN GROUP (%s) = %v, %v; want %s", tt.name, tt.direct, tt.key, a, err, tt.want)
		}
	}
	a, _ := NewOrderedSetAgg("percentile_cont", []Expr{half}, col(types.TInt4), AggOrder{Desc: true, NullsFirst: true})
	if got, want := a.String(), "percentile_cont('0.5'::double precision) WITHIN GROUP (ORDER BY ($0)::double precision DESC)"; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
