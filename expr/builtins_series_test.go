package expr

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// TestSetBuiltins checks generate_series, range and unnest against
// PostgreSQL 15 (range is RisingWave's: generate_series without its stop
// value): the values as text joined by spaces, or an error's SQLSTATE and
// message.
func TestSetBuiltins(t *testing.T) {
	tests := []struct {
		fn        string
		args      []Expr
		typ, want string
		code, msg string
	}{
		{fn: "generate_series", args: args(i4("1"), i4("3")), typ: "integer", want: "1 2 3"},
		{fn: "generate_series", args: args(i4("3"), i4("1")), typ: "integer", want: ""},
		{fn: "generate_series", args: args(i4("5"), i4("1"), i4("-2")), typ: "integer", want: "5 3 1"},
		{fn: "generate_series", args: args(i4("2147483646"), i4("2147483647"), i4("5")), typ: "integer", want: "2147483646"},
		{fn: "generate_series", args: args(i4("-2147483647"), i4("-2147483648"), i4("-1")), typ: "integer", want: "-2147483647 -2147483648"},
		{fn: "generate_series", args: args(i4("1"), i8("2")), typ: "bigint", want: "1 2"},
		{fn: "generate_series", args: args(i8("9223372036854775806"), i8("9223372036854775807")), typ: "bigint", want: "9223372036854775806 9223372036854775807"},
		{fn: "generate_series", args: args(i4("1"), i4("2"), num("0.5")), typ: "numeric", want: "1 1.5 2.0"},
		{fn: "generate_series", args: args(num("1.5"), i4("3")), typ: "numeric", want: "1.5 2.5"},
		{fn: "generate_series", args: args(ts("2020-01-31"), ts("2020-03-31"), ival("1 month")), typ: "timestamp without time zone",
			want: "2020-01-31 00:00:00 2020-02-29 00:00:00 2020-03-29 00:00:00"},
		{fn: "generate_series", args: args(tstz("2020-01-02"), unknown("2020-01-01"), ival("-12 hours")), typ: "timestamp with time zone",
			want: "2020-01-02 00:00:00+00 2020-01-01 12:00:00+00 2020-01-01 00:00:00+00"},
		{fn: "generate_series", args: args(unknown("2020-01-01"), unknown("2020-01-01"), ival("1 day")), typ: "timestamp with time zone", want: "2020-01-01 00:00:00+00"},
		{fn: "generate_series", args: args(i4("1"), i4("NULL")), typ: "integer", want: ""},
		{fn: "generate_series", args: args(i4("1"), i4("3"), i4("0")), code: "22023", msg: "step size cannot equal zero"},
		{fn: "generate_series", args: args(num("1"), num("3"), num("0")), code: "22023", msg: "step size cannot equal zero"},
		{fn: "generate_series", args: args(num("NaN"), num("3")), code: "22023", msg: "start value cannot be NaN"},
		{fn: "generate_series", args: args(num("1"), num("Infinity")), code: "22023", msg: "stop value cannot be infinity"},
		{fn: "generate_series", args: args(ts("2020-01-01"), ts("2020-01-02"), ival("1 month -30 days")), code: "22023", msg: "step size cannot equal zero"},
		{fn: "generate_series", args: args(txt("a"), txt("b")), code: "42883"},
		{fn: "range", args: args(i4("1"), i4("3")), typ: "integer", want: "1 2"},
		{fn: "range", args: args(i4("3"), i4("1"), i4("-1")), typ: "integer", want: "3 2"},
		{fn: "range", args: args(num("1"), num("2"), num("0.5")), typ: "numeric", want: "1 1.5"},
		{fn: "range", args: args(ts("2020-01-01"), ts("2020-01-02"), ival("12 hours")), typ: "timestamp without time zone",
			want: "2020-01-01 00:00:00 2020-01-01 12:00:00"},
		{fn: "unnest", args: args(arr("text[]", "{a,NULL,b}")), typ: "text", want: "a NULL b"},
		{fn: "unnest", args: args(arr("int4[]", "{}")), typ: "integer", want: ""},
		{fn: "unnest", args: args(unknown("{1}")), code: "42804", msg: "could not determine polymorphic type because input has type unknown"},
		{fn: "regexp_matches", args: args(txt("abab"), txt("a(b)")), typ: "text[]", want: "{b}"},
		{fn: "regexp_matches", args: args(txt("abAb"), txt("a(b)"), txt("gi")), typ: "text[]", want: "{b} {b}"},
		{fn: "regexp_matches", args: args(txt("a1b22"), txt("[0-9]+"), txt("g")), typ: "text[]", want: "{1} {22}"},
		{fn: "regexp_matches", args: args(txt("ab"), txt("(x)?b"), txt("g")), typ: "text[]", want: "{NULL}"},
		{fn: "regexp_matches", args: args(txt("ab"), txt("z"), txt("g")), typ: "text[]", want: ""},
		{fn: "regexp_matches", args: args(txt("ab"), txt("a"), txt("gz")), code: "22023", msg: `invalid regular expression option: "z"`},
	}
	for _, tt := range tests {
		f, err := NewSetFunc(tt.fn, tt.args)
		var got []string
		if err == nil {
			var it SetIter
			if it, err = f.Start(&Ctx{Now: testNow}, nil); err == nil {
				for {
					v, ok, e := it()
					if err = e; !ok || err != nil {
						break
					}
					s := "NULL"
					if !v.IsNull() {
						s = string(types.FormatText(nil, f.T, v))
					}
					got = append(got, s)
				}
			}
		}
		name := tt.fn + "(" + joinStrings(tt.args, ", ") + ")"
		if tt.code != "" {
			if pgerror.Code(err) != tt.code || tt.msg != "" && pgerror.From(err).Message != tt.msg {
				t.Errorf("%s: got %v, want %s %s", name, err, tt.code, tt.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if f.T.String() != tt.typ || strings.Join(got, " ") != tt.want {
			t.Errorf("%s: %s %q, want %s %q", name, f.T, strings.Join(got, " "), tt.typ, tt.want)
		}
	}
}
