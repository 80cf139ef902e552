package expr

import (
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// nullOut is the expected output of a NULL result.
const nullOut = "<NULL>"

// fnCase is a call of a built-in with constant arguments and its expected
// result: PostgreSQL's text output, or an error's SQLSTATE (and message,
// when want is set).
type fnCase struct {
	fn   string
	args []Expr
	want string
	code string
}

// testNow is the statement time of the tests: a leap day, in the afternoon.
var testNow = time.Date(2024, 2, 29, 13, 45, 30, 123456000, time.UTC)

// lit returns a constant of type t from its PostgreSQL text ("NULL" for
// NULL).
func lit(t types.T, s string) Expr {
	if s == "NULL" {
		return NewConst(types.Null, t)
	}
	d, err := types.ParseText(t, s)
	if err != nil {
		panic(err)
	}
	return NewConst(d, t)
}

func i2(s string) Expr   { return lit(types.TInt2, s) }
func i4(s string) Expr   { return lit(types.TInt4, s) }
func i8(s string) Expr   { return lit(types.TInt8, s) }
func f8(s string) Expr   { return lit(types.TFloat8, s) }
func num(s string) Expr  { return lit(types.TNumeric, s) }
func txt(s string) Expr  { return lit(types.TText, s) }
func ts(s string) Expr   { return lit(types.TTimestamp, s) }
func tstz(s string) Expr { return lit(types.TTimestampTZ, s) }
func date(s string) Expr { return lit(types.TDate, s) }
func ival(s string) Expr { return lit(types.TInterval, s) }
func tm(s string) Expr   { return lit(types.TTime, s) }

// unknown is an untyped string literal.
func unknown(s string) Expr { return NewConst(types.NewString(s), types.TUnknown) }

func args(es ...Expr) []Expr { return es }

// call resolves and evaluates one built-in call at testNow.
func call(fn string, as []Expr) (Expr, types.Datum, error) {
	e, err := NewFunc(fn, as)
	if err != nil {
		return nil, types.Null, err
	}
	v, err := e.Eval(&Ctx{Now: testNow}, nil)
	return e, v, err
}

func runFnCases(t *testing.T, cases []fnCase) {
	t.Helper()
	for _, c := range cases {
		strs := make([]string, len(c.args))
		for i, a := range c.args {
			strs[i] = a.String()
		}
		name := c.fn + "(" + strings.Join(strs, ", ") + ")"
		t.Run(name, func(t *testing.T) {
			e, v, err := call(c.fn, c.args)
			if c.code != "" {
				if pgerror.Code(err) != c.code {
					t.Fatalf("got %v, %v; want error %s", v, err, c.code)
				}
				if c.want != "" && pgerror.From(err).Message != c.want {
					t.Fatalf("message %q, want %q", pgerror.From(err).Message, c.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			got := nullOut
			if !v.IsNull() {
				got = string(types.FormatText(nil, e.Type(), v))
			}
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestBuiltinResultTypes(t *testing.T) {
	for _, c := range []struct {
		fn   string
		args []Expr
		want string
	}{
		{"sqrt", args(i4("2")), "double precision"},
		{"round", args(i4("2")), "double precision"},
		{"ln", args(unknown("2")), "double precision"},
		{"round", args(i4("2"), i4("1")), "numeric"},
		{"abs", args(i2("-2")), "smallint"},
		{"abs", args(lit(types.T{Family: types.Numeric, Mod: types.NumericMod(10, 2)}, "1.50")), "numeric"},
		{"power", args(i4("2"), i4("3")), "double precision"},
		{"power", args(i4("2"), num("3")), "numeric"},
		{"mod", args(i2("7"), i4("3")), "integer"},
		{"length", args(unknown("abc")), "integer"},
		{"substr", args(lit(types.TBytea, `\x01`), i4("1")), "bytea"},
		{"date_trunc", args(txt("month"), date("2020-05-05")), "timestamp with time zone"},
		{"date_part", args(txt("year"), date("2020-05-05")), "double precision"},
		{"concat", args(i4("1"), txt("a")), "text"},
		{"current_user", nil, "name"},
	} {
		e, err := NewFunc(c.fn, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.fn, err)
			continue
		}
		if got := e.Type().String(); got != c.want {
			t.Errorf("%s: type %s, want %s", e, got, c.want)
		}
	}
}

func TestBuiltinResolutionErrors(t *testing.T) {
	for _, c := range []struct {
		fn   string
		args []Expr
	}{
		{"sqrt", args(txt("4"))},
		{"length", args(i4("4"))},
		{"concat", nil},
		{"concat_ws", args(txt(","))},
		{"substr", args(txt("abc"))},
		{"no_such_function", nil},
	} {
		if _, err := NewFunc(c.fn, c.args); pgerror.Code(err) != pgerror.CodeUndefinedFunction {
			t.Errorf("%s%v: got %v, want undefined function", c.fn, c.args, err)
		}
	}
}

func TestBuiltinVolatility(t *testing.T) {
	for fn, want := range map[string]bool{"random": true, "clock_timestamp": true, "now": false, "pi": false, "version": false} {
		e, err := NewFunc(fn, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.(*Func).Volatile(); got != want {
			t.Errorf("%s volatile = %v, want %v", fn, got, want)
		}
	}
}
