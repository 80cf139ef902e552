package expr

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestOrderedAggregates checks aggregates with ORDER BY inside the call
// over rows (x text, d text, k int4): PostgreSQL 15's results for
// string_agg and array_agg (ties in k, which PostgreSQL leaves in arrival
// order, go by value), RisingWave's for first_value and last_value.
func TestOrderedAggregates(t *testing.T) {
	x := &ColRef{Idx: 0, T: types.TText}
	d := &ColRef{Idx: 1, T: types.TText}
	k := &ColRef{Idx: 2, T: types.TInt4}
	rows := [][]string{{"b", "-", "2"}, {"a", "+", "NULL"}, {"c", "*", "1"}, {"NULL", "/", "3"}, {"a", "+", "2"}}
	asc, desc := AggOrder{}, AggOrder{Desc: true, NullsFirst: true}
	tests := []struct {
		name     string
		args     []Expr
		distinct bool
		keys     []Expr
		order    []AggOrder
		want     string
	}{
		{name: "string_agg", args: []Expr{x, d}, keys: []Expr{k}, order: []AggOrder{asc}, want: "c+a-b+a"},
		{name: "string_agg", args: []Expr{x, d}, keys: []Expr{k}, order: []AggOrder{desc}, want: "a+a-b*c"},
		{name: "string_agg", args: []Expr{x, d}, keys: []Expr{k}, order: []AggOrder{{NullsFirst: true}}, want: "a*c+a-b"},
		{name: "string_agg", args: []Expr{x, d}, distinct: true, keys: []Expr{x}, order: []AggOrder{desc}, want: "c-b+a"},
		{name: "array_agg", args: []Expr{x}, keys: []Expr{k, x}, order: []AggOrder{asc, desc}, want: "{c,b,a,NULL,a}"},
		{name: "array_agg", args: []Expr{x}, distinct: true, keys: []Expr{x}, order: []AggOrder{desc}, want: "{NULL,c,b,a}"},
		{name: "first_value", args: []Expr{x}, keys: []Expr{k}, order: []AggOrder{desc}, want: "a"},
		{name: "first_value", args: []Expr{x}, keys: []Expr{d}, order: []AggOrder{asc}, want: "c"},
		{name: "last_value", args: []Expr{x}, keys: []Expr{k}, order: []AggOrder{asc}, want: "a"},
		{name: "last_value", args: []Expr{x}, keys: []Expr{k}, order: []AggOrder{{}}, want: "a"},
		{name: "last_value", args: []Expr{d}, keys: []Expr{x}, order: []AggOrder{{NullsFirst: true}}, want: "*"},
		// Order-insensitive aggregates ignore ORDER BY.
		{name: "count", args: []Expr{x}, keys: []Expr{k}, order: []AggOrder{asc}, want: "4"},
	}
	for _, tt := range tests {
		a, err := NewAgg(tt.name, append([]Expr(nil), tt.args...), tt.distinct, false)
		if err != nil {
			t.Fatal(err)
		}
		a.WithOrder(tt.keys, tt.order)
		s := a.NewState()
		for _, r := range rows {
			vals := []types.Datum{lit(types.TText, r[0]).(*Const).V, lit(types.TText, r[1]).(*Const).V, lit(types.TInt4, r[2]).(*Const).V}
			args := make([]types.Datum, len(a.Args))
			for i, e := range a.Args {
				if args[i], err = e.Eval(nil, vals); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Add(args); err != nil {
				t.Fatal(err)
			}
		}
		v, err := s.Result()
		got := nullOut
		if !v.IsNull() {
			got = string(types.FormatText(nil, a.T, v))
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %s, %v; want %s", a, got, err, tt.want)
		}
	}
}

// TestAggString checks how calls with ORDER BY render (equal renderings
// are computed once).
func TestAggString(t *testing.T) {
	x := &ColRef{Idx: 0, T: types.TText}
	a, _ := NewAgg("string_agg", []Expr{x, NewConst(types.NewString(","), types.TText)}, false, false)
	a.WithOrder([]Expr{x, x}, []AggOrder{{Desc: true}, {NullsFirst: true}})
	if got := a.String(); !strings.HasSuffix(got, " ORDER BY $0 DESC NULLS LAST, $0 NULLS FIRST)") {
		t.Errorf("String() = %s", got)
	}
}
