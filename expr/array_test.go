package expr

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// arr is a constant of array type name ("int4[]") from its text.
func arr(name, s string) Expr {
	t, err := types.ParseTypeName(name)
	if err != nil {
		panic(err)
	}
	return lit(t, s)
}

// TestArrayBuiltins checks the array functions against PostgreSQL 15.
func TestArrayBuiltins(t *testing.T) {
	ints := func(s string) Expr { return arr("int4[]", s) }
	null := NewConst(types.Null, types.TUnknown)
	runFnCases(t, []fnCase{
		{fn: "array_length", args: args(ints("{1,2,3}"), i4("1")), want: "3"},
		{fn: "array_length", args: args(ints("{}"), i4("1")), want: nullOut},
		{fn: "array_length", args: args(ints("{1}"), i4("2")), want: nullOut},
		{fn: "array_length", args: args(unknown("{1}"), i4("1")), code: "42804"},
		{fn: "cardinality", args: args(ints("{1,NULL}")), want: "2"},
		{fn: "cardinality", args: args(ints("{}")), want: "0"},
		{fn: "array_lower", args: args(ints("{5,6}"), i4("1")), want: "1"},
		{fn: "array_upper", args: args(ints("{5,6}"), i4("1")), want: "2"},
		{fn: "array_upper", args: args(ints("{}"), i4("1")), want: nullOut},
		{fn: "array_ndims", args: args(ints("{5}")), want: "1"},
		{fn: "array_ndims", args: args(ints("{}")), want: nullOut},
		{fn: "array_dims", args: args(ints("{5,6}")), want: "[1:2]"},

		{fn: "array_append", args: args(ints("{1,2}"), i4("3")), want: "{1,2,3}"},
		{fn: "array_append", args: args(ints("{1}"), num("2.5")), want: "{1,2.5}"},
		{fn: "array_append", args: args(ints("{1}"), lit(types.TInt4, "NULL")), want: "{1,NULL}"},
		{fn: "array_append", args: args(null, i4("1")), want: "{1}"},
		{fn: "array_append", args: args(ints("{1}"), txt("x")), code: "42883"},
		{fn: "array_prepend", args: args(i4("0"), ints("{1}")), want: "{0,1}"},
		{fn: "array_prepend", args: args(unknown("a"), arr("text[]", "{b}")), want: "{a,b}"},
		{fn: "array_cat", args: args(ints("{1}"), ints("{2,3}")), want: "{1,2,3}"},
		{fn: "array_cat", args: args(null, ints("{1}")), want: "{1}"},
		{fn: "array_cat", args: args(ints("{1}"), unknown("{4}")), want: "{1,4}"},
		{fn: "array_cat", args: args(lit(types.TUnknown, "NULL"), null), code: "42804"},

		{fn: "array_position", args: args(ints("{1,2,3,2}"), i4("2")), want: "2"},
		{fn: "array_position", args: args(ints("{1,2,3,2}"), i4("2"), i4("3")), want: "4"},
		{fn: "array_position", args: args(ints("{1,NULL}"), null), want: "2"},
		{fn: "array_position", args: args(ints("{1}"), i4("5")), want: nullOut},
		{fn: "array_position", args: args(ints("{1}"), i4("1"), lit(types.TInt4, "NULL")), code: "22004"},
		{fn: "array_remove", args: args(ints("{1,2,NULL,2}"), i4("2")), want: "{1,NULL}"},
		{fn: "array_remove", args: args(ints("{1,NULL}"), null), want: "{1}"},

		{fn: "array_to_string", args: args(ints("{1,NULL,3}"), txt(",")), want: "1,3"},
		{fn: "array_to_string", args: args(ints("{1,NULL,3}"), txt(","), txt("*")), want: "1,*,3"},
		{fn: "array_to_string", args: args(ints("{1,NULL}"), txt(","), lit(types.TText, "NULL")), want: "1"},
		{fn: "array_to_string", args: args(arr("float4[]", "{0.1,1.5}"), txt(";")), want: "0.1;1.5"},
		{fn: "array_to_string", args: args(arr("bool[]", "{t,f}"), txt("")), want: "tf"},
		{fn: "string_to_array", args: args(txt("a,b,,c"), txt(",")), want: `{a,b,"",c}`},
		{fn: "string_to_array", args: args(txt("a,b,,c"), txt(","), txt("")), want: "{a,b,NULL,c}"},
		{fn: "string_to_array", args: args(txt("abc"), lit(types.TText, "NULL")), want: "{a,b,c}"},
		{fn: "string_to_array", args: args(txt("abc"), txt("")), want: "{abc}"},
		{fn: "string_to_array", args: args(txt(""), txt(",")), want: "{}"},

		{fn: "arraycontains", args: args(ints("{1,2}"), ints("{2,2}")), want: "t"},
		{fn: "arraycontains", args: args(ints("{1,NULL}"), ints("{NULL}")), want: "f"},
		{fn: "arraycontained", args: args(ints("{1,2}"), ints("{2,1,1}")), want: "t"},
		{fn: "arrayoverlap", args: args(ints("{1,2}"), ints("{3,2}")), want: "t"},
		{fn: "arrayoverlap", args: args(ints("{1,NULL}"), ints("{NULL}")), want: "f"},
		{fn: "pg_typeof", args: args(arr("numeric(5,2)[]", "{1}")), want: "numeric[]"},
	})
}

// evalConst evaluates e over no input.
func evalConst(t *testing.T, e Expr) string {
	t.Helper()
	v, err := e.Eval(&Ctx{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.IsNull() {
		return nullOut
	}
	return string(types.FormatText(nil, e.Type(), v))
}

func TestSubscript(t *testing.T) {
	a := arr("int4[]", "{1,2,3,4}")
	tests := []struct {
		lo, hi Expr
		want   string
	}{
		{i4("1"), nil, "1"}, {i4("4"), nil, "4"}, {i4("0"), nil, nullOut}, {i4("5"), nil, nullOut},
		{lit(types.TInt4, "NULL"), nil, nullOut},
		{i4("2"), i4("3"), "{2,3}"}, {i4("-5"), i4("2"), "{1,2}"}, {i4("3"), i4("9"), "{3,4}"},
		{i4("5"), i4("9"), "{}"}, {i4("3"), i4("2"), "{}"}, {i4("1"), lit(types.TInt4, "NULL"), nullOut},
	}
	for _, tt := range tests {
		e := &Subscript{Arr: a, Subs: []Expr{tt.lo}}
		if tt.hi != nil {
			e.Subs, e.Slice = append(e.Subs, tt.hi), true
		}
		if got := evalConst(t, e); got != tt.want {
			t.Errorf("%s = %s, want %s", e, got, tt.want)
		}
	}
}

// TestSubscriptMultiDim checks subscripts and slices of arrays with
// several dimensions and lower bounds against PostgreSQL 15.
func TestSubscriptMultiDim(t *testing.T) {
	m := arr("int4[]", "{{1,2,3},{4,5,6}}")
	b := arr("int4[]", "[0:1][5:6]={{1,2},{3,4}}")
	tests := []struct {
		a     Expr
		subs  []string
		slice bool
		want  string
	}{
		{m, []string{"2", "1"}, false, "4"}, {m, []string{"1", "3"}, false, "3"}, {m, []string{"2"}, false, nullOut},
		{m, []string{"3", "1"}, false, nullOut}, {m, []string{"1", "1", "1"}, false, nullOut},
		{b, []string{"0", "6"}, false, "2"}, {b, []string{"1", "1"}, false, nullOut},
		{m, []string{"1", "2", "2", "3"}, true, "{{2,3},{5,6}}"}, {m, []string{"2", "2"}, true, "{{4,5,6}}"},
		{m, []string{"1", "2", "9", "9"}, true, "{}"}, {b, []string{"1", "1", "6", "6"}, true, "{{4}}"},
		{m, []string{"1", "1", "1", "1", "1", "1"}, true, "{}"},
	}
	for _, tt := range tests {
		e := &Subscript{Arr: tt.a, Slice: tt.slice}
		for _, s := range tt.subs {
			e.Subs = append(e.Subs, i4(s))
		}
		if got := evalConst(t, e); got != tt.want {
			t.Errorf("%s = %s, want %s", e, got, tt.want)
		}
	}
}

func TestArrayCompare(t *testing.T) {
	tests := []struct {
		x, arr string
		op     string
		all    bool
		want   string
	}{
		{"1", "{1,2}", "=", false, "t"}, {"3", "{1,2}", "<>", true, "t"}, {"NULL", "{1}", "=", false, nullOut},
		{"1", "{2,NULL}", "=", false, nullOut}, {"1", "{1,NULL}", "=", false, "t"}, {"1", "{}", "=", false, "f"},
		{"1", "{}", "=", true, "t"}, {"1", "NULL", "=", false, nullOut}, {"2", "{1,2}", ">", true, "f"},
	}
	for _, tt := range tests {
		cmp, err := NewBinary(tt.op, &ColRef{Idx: 0, T: types.TInt4}, &ColRef{Idx: 1, T: types.TInt4})
		if err != nil {
			t.Fatal(err)
		}
		e := &ArrayCompare{X: i4(tt.x), Arr: arr("int4[]", tt.arr), Op: tt.op, Cmp: cmp, All: tt.all}
		if got := evalConst(t, e); got != tt.want {
			t.Errorf("%s = %s, want %s", e, got, tt.want)
		}
	}
}

func TestArrayOperators(t *testing.T) {
	ints := func(s string) Expr { return arr("int4[]", s) }
	tests := []struct {
		op   string
		l, r Expr
		want string // result text, or an SQLSTATE
	}{
		{"||", ints("{1,2}"), i4("3"), "{1,2,3}"},
		{"||", i4("0"), ints("{1}"), "{0,1}"},
		{"||", ints("{1}"), arr("numeric[]", "{2.5}"), "{1,2.5}"},
		{"||", ints("{1}"), NewConst(types.Null, types.TInt4), "{1,NULL}"},
		{"||", NewConst(types.Null, ints("{}").Type()), ints("{1}"), "{1}"},
		{"||", ints("{1}"), txt("x"), "42883"},
		{"=", ints("{1,NULL}"), ints("{1,NULL}"), "t"},
		{"<", ints("{1,2}"), ints("{1,2,3}"), "t"},
		{"=", ints("{1}"), arr("numeric[]", "{1}"), "42883"},
		{"@>", ints("{1,2}"), ints("{2}"), "t"},
		{"<@", ints("{1,2}"), ints("{2}"), "f"},
		{"&&", ints("{1,2}"), ints("{2}"), "t"},
		{"@>", ints("{1}"), arr("numeric[]", "{1}"), "42883"},
	}
	for _, tt := range tests {
		e, err := NewBinary(tt.op, tt.l, tt.r)
		if err != nil {
			if pgerror.Code(err) != tt.want {
				t.Errorf("%s %s %s: %v, want %s", tt.l, tt.op, tt.r, err, tt.want)
			}
			continue
		}
		if got := evalConst(t, e); got != tt.want {
			t.Errorf("%s = %s, want %s", e, got, tt.want)
		}
	}
}

func TestArrayAgg(t *testing.T) {
	x := &ColRef{Idx: 0, T: types.TInt4}
	tests := []struct {
		distinct bool
		in       []string
		want     string
	}{
		{false, []string{"3", "NULL", "1", "3"}, "{3,NULL,1,3}"},
		{true, []string{"3", "NULL", "1", "3", "NULL"}, "{1,3,NULL}"},
		{false, nil, nullOut},
		{false, []string{"NULL"}, "{NULL}"},
	}
	for _, tt := range tests {
		a, err := NewAgg("array_agg", []Expr{x}, tt.distinct, false)
		if err != nil {
			t.Fatal(err)
		}
		s := a.NewState()
		for _, v := range tt.in {
			if err := s.Add([]types.Datum{lit(types.TInt4, v).(*Const).V}); err != nil {
				t.Fatal(err)
			}
		}
		v, err := s.Result()
		got := nullOut
		if !v.IsNull() {
			got = string(types.FormatText(nil, a.T, v))
		}
		if err != nil || got != tt.want || a.T.String() != "integer[]" {
			t.Errorf("array_agg(distinct=%v) over %v = %s %s, %v; want %s", tt.distinct, tt.in, a.T, got, err, tt.want)
		}
	}
	if _, err := NewAgg("array_agg", []Expr{arr("int4[]", "{1}")}, false, false); pgerror.Code(err) != pgerror.CodeFeatureNotSupported {
		t.Errorf("array_agg of an array: %v", err)
	}
}
