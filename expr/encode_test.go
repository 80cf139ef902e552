package expr

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// shipCols are the column types of the rows TestEncodeRoundTrip
// evaluates expressions over.
var shipCols = func() []types.T {
	arr, _ := types.ArrayOf(types.TInt4)
	return []types.T{types.TInt4, types.TInt8, types.TNumeric, types.TFloat8, types.TText,
		types.TBool, types.TDate, types.TTimestamp, types.TInterval, arr, {Family: types.Varchar, Mod: 3}}
}()

// drawDatum draws a value of type t, NULL one time in eight; numbers
// include extremes that make arithmetic overflow.
func drawDatum(t *rapid.T, typ types.T, label string) types.Datum {
	if rapid.IntRange(0, 7).Draw(t, label+"null") == 0 {
		return types.Null
	}
	parse := func(s string) types.Datum {
		d, err := types.ParseText(typ, s)
		if err != nil {
			t.Fatalf("parse %q as %s: %v", s, typ, err)
		}
		return d
	}
	small := rapid.OneOf(rapid.Int64Range(-20, 20), rapid.SampledFrom([]int64{math.MaxInt32, math.MinInt32, math.MaxInt64}))
	switch typ.Family {
	case types.Int4:
		return types.NewInt(int64(int32(small.Draw(t, label))))
	case types.Int8:
		return types.NewInt(small.Draw(t, label))
	case types.Numeric:
		return parse(fmt.Sprintf("%d.%02d", small.Draw(t, label), rapid.IntRange(0, 99).Draw(t, label+"frac")))
	case types.Float8:
		return types.NewFloat(rapid.SampledFrom([]float64{0, -0.5, 1.5, 1e300, math.Inf(1), math.NaN()}).Draw(t, label))
	case types.Text, types.Varchar:
		return types.NewString(rapid.StringMatching(`[ab%_\\]{0,4}`).Draw(t, label))
	case types.Bool:
		return types.NewBool(rapid.Bool().Draw(t, label))
	case types.Date:
		return types.NewDate(rapid.Int64Range(-1000, 20000).Draw(t, label))
	case types.Timestamp:
		return types.NewTimestamp(rapid.Int64Range(-1e15, 1e15).Draw(t, label))
	case types.Interval:
		return parse(fmt.Sprintf("%d days %d hours", int32(small.Draw(t, label)), rapid.IntRange(-30, 30).Draw(t, label+"h")))
	case types.Array:
		elems := make([]types.Datum, rapid.IntRange(0, 3).Draw(t, label+"len"))
		for i := range elems {
			elems[i] = drawDatum(t, types.TInt4, fmt.Sprintf("%s[%d]", label, i))
		}
		return types.NewArray(elems)
	}
	t.Fatalf("no values of %s", typ)
	return types.Null
}

// drawRow draws the i-th row of values of shipCols.
func drawRow(t *rapid.T, i int) []types.Datum {
	row := make([]types.Datum, len(shipCols))
	for j, typ := range shipCols {
		row[j] = drawDatum(t, typ, fmt.Sprintf("row%d.c%d", i, j))
	}
	return row
}

// exprGen draws expressions over shipCols the way the binder builds
// them: through NewBinary, NewFunc, CastTo and the other constructors.
type exprGen struct{ t *rapid.T }

var (
	shipOps   = []string{"+", "-", "*", "/", "%", "^", "||", "=", "<>", "<", "<=", ">", ">="}
	shipFuncs = []string{"abs", "length", "lower", "upper", "substr", "round", "sqrt", "replace", "concat",
		"date_trunc", "array_length", "cardinality", "position", "now", "trim", "floor"}
	shipCasts = []types.T{types.TInt4, types.TInt8, types.TNumeric, types.TFloat8, types.TText, types.TBool, types.TDate, types.TTimestamp}
)

// fallback returns e, or a column when building e failed (a type error).
func (g exprGen) fallback(e Expr, err error) Expr {
	if err != nil {
		return g.col()
	}
	return e
}

// condFallback returns e, or a test of a column when building e failed.
func (g exprGen) condFallback(e Expr, err error) Expr {
	if err != nil {
		return &IsNull{E: g.col()}
	}
	return e
}

func (g exprGen) col() Expr {
	i := rapid.IntRange(0, len(shipCols)-1).Draw(g.t, "col")
	return &ColRef{Idx: i, T: shipCols[i], Name: fmt.Sprintf("c%d", i)}
}

// expr draws an expression of any type.
func (g exprGen) expr(depth int) Expr {
	if depth <= 0 {
		if rapid.Bool().Draw(g.t, "leaf col") {
			return g.col()
		}
		typ := rapid.SampledFrom(shipCols).Draw(g.t, "const type")
		return NewConst(drawDatum(g.t, typ, "const"), typ)
	}
	d := depth - 1
	switch rapid.IntRange(0, 9).Draw(g.t, "kind") {
	case 0:
		return g.expr(0)
	case 1:
		return g.fallback(NewBinary(rapid.SampledFrom(shipOps).Draw(g.t, "op"), g.expr(d), g.expr(d)))
	case 2:
		args := make([]Expr, rapid.IntRange(0, 3).Draw(g.t, "nargs"))
		for i := range args {
			args[i] = g.expr(d)
		}
		return g.fallback(NewFunc(rapid.SampledFrom(shipFuncs).Draw(g.t, "func"), args))
	case 3:
		e := g.expr(d)
		to := rapid.SampledFrom(shipCasts).Draw(g.t, "cast")
		if rapid.Bool().Draw(g.t, "assign") {
			return &Cast{E: e, To: to, Assign: true}
		}
		return g.fallback(CastTo(e, to))
	case 4:
		c := &Case{}
		then := g.expr(d)
		c.T = then.Type()
		for range rapid.IntRange(1, 2).Draw(g.t, "whens") {
			c.Whens = append(c.Whens, g.cond(d))
			c.Thens = append(c.Thens, g.as(g.expr(d), c.T))
		}
		if rapid.Bool().Draw(g.t, "else") {
			c.Else = then
		}
		return c
	case 5:
		first := g.expr(d)
		return &Coalesce{Args: []Expr{first, g.as(g.expr(d), first.Type())}, T: first.Type()}
	case 6:
		arr := &ColRef{Idx: 9, T: shipCols[9]}
		if rapid.Bool().Draw(g.t, "slice") {
			return &Subscript{Arr: arr, Subs: []Expr{g.as(g.expr(d), types.TInt4), g.as(g.expr(d), types.TInt4)}, Slice: true}
		}
		return &Subscript{Arr: arr, Subs: []Expr{g.as(g.expr(d), types.TInt4), g.as(g.expr(d), types.TInt4)}}
	case 7:
		return NewArrayCtor([]Expr{g.as(g.expr(d), types.TInt4), g.as(g.expr(d), types.TInt4)}, shipCols[9])
	default:
		return g.cond(d)
	}
}

// as returns e converted to typ, or a NULL of typ when it does not convert.
func (g exprGen) as(e Expr, typ types.T) Expr {
	c, err := CastTo(e, typ)
	if err != nil {
		return NewConst(types.Null, typ)
	}
	return c
}

// cond draws a boolean expression.
func (g exprGen) cond(depth int) Expr {
	if depth <= 0 {
		return g.condFallback(NewBinary(rapid.SampledFrom([]string{"=", "<", ">="}).Draw(g.t, "cmp"), g.expr(0), g.expr(0)))
	}
	d := depth - 1
	text := func() Expr { return g.as(g.expr(d), types.TText) }
	switch rapid.IntRange(0, 10).Draw(g.t, "cond kind") {
	case 0:
		return NewAnd(g.cond(d), g.cond(d))
	case 1:
		return &Or{Args: []Expr{g.cond(d), g.cond(d), g.cond(d)}}
	case 2:
		return &Not{E: g.cond(d)}
	case 3:
		return &IsNull{E: g.expr(d), Not: rapid.Bool().Draw(g.t, "not")}
	case 4:
		return &IsBool{E: g.cond(d), Value: rapid.Bool().Draw(g.t, "value"), Not: rapid.Bool().Draw(g.t, "not")}
	case 5:
		l := g.expr(d)
		return &NullSafeEq{L: l, R: g.as(g.expr(d), l.Type())}
	case 6:
		l := g.expr(d)
		return &InList{E: l, List: []Expr{g.as(g.expr(d), l.Type()), g.as(g.expr(d), l.Type())}, Not: rapid.Bool().Draw(g.t, "not")}
	case 7:
		l := &Like{E: text(), Pattern: text(), CaseInsensitive: rapid.Bool().Draw(g.t, "ilike"), Not: rapid.Bool().Draw(g.t, "not")}
		if rapid.Bool().Draw(g.t, "escape") {
			l.Escape = text()
		}
		return l
	case 8:
		return g.condFallback(NewRegexMatch(rapid.SampledFrom([]string{"~", "~*", "!~", "!~*"}).Draw(g.t, "re"), text(), text()))
	case 9:
		cmp, _ := NewBinary("<", &ColRef{Idx: 0, T: types.TInt4}, &ColRef{Idx: 1, T: types.TInt4})
		return &ArrayCompare{X: g.as(g.expr(d), types.TInt4), Arr: &ColRef{Idx: 9, T: shipCols[9]}, Op: "<", Cmp: cmp, All: rapid.Bool().Draw(g.t, "all")}
	default:
		return g.condFallback(NewBinary(rapid.SampledFrom(shipOps[7:]).Draw(g.t, "cmp"), g.expr(d), g.expr(d)))
	}
}

// TestEncodeRoundTrip checks that every expression the binder's
// constructors build ships, and that Decode(Encode(e)) renders as e and
// evaluates as e, value or error, over random rows.
func TestEncodeRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := exprGen{t}.expr(rapid.IntRange(0, 4).Draw(t, "depth"))
		b, ok := Encode(e)
		if !ok {
			t.Fatalf("Encode(%s) refused", e)
		}
		d, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode(Encode(%s)): %v", e, err)
		}
		if d.String() != e.String() || d.Type() != e.Type() {
			t.Fatalf("Decode(Encode(%s)) = %s of type %s, want type %s", e, d, d.Type(), e.Type())
		}
		c := NewCtx(context.Background(), nil)
		c.Now = time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)
		for i := range 4 {
			row := drawRow(t, i)
			want, wantErr := e.Eval(c, row)
			got, gotErr := d.Eval(c, row)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !types.Identical(got, want) {
				t.Fatalf("%s over %v: decoded gives %v, %v; want %v, %v", e, row, got, gotErr, want, wantErr)
			}
		}
	})
}

// TestEncodeRefuses checks that what reads more than the input row, or
// changes between calls, does not ship, and that parameters ship once
// WithParams gives their values.
func TestEncodeRefuses(t *testing.T) {
	col := &ColRef{Idx: 0, T: types.TInt4}
	param := &Param{Idx: 0, T: types.TInt4}
	random, err := NewFunc("random", nil)
	if err != nil {
		t.Fatal(err)
	}
	withParam, _ := NewBinary("=", col, param)
	for _, e := range []Expr{
		param,
		withParam,
		&OuterRef{Level: 1, Idx: 0, T: types.TInt4},
		&Subquery{Mode: SubExists, T: types.TBool},
		random,
		NewAnd(withParam, &IsNull{E: col}),
	} {
		if _, ok := Encode(e); ok {
			t.Errorf("Encode(%s) ships it", e)
		}
	}
	bound := WithParams(withParam, []types.Datum{types.NewInt(7)})
	b, ok := Encode(bound)
	if !ok {
		t.Fatalf("Encode(%s) refused", bound)
	}
	d, err := Decode(b)
	if err != nil || d.String() != "($0 = '7'::integer)" {
		t.Errorf("Decode(Encode(%s)) = %v, %v", bound, d, err)
	}
	if _, ok := Encode(WithParams(withParam, nil)); ok {
		t.Errorf("a parameter without a value ships")
	}
}

// TestDecodeRejects checks that Decode fails, without panicking, on
// another format version, truncated input and operators that do not
// resolve as encoded.
func TestDecodeRejects(t *testing.T) {
	e, _ := NewBinary("+", &ColRef{Idx: 0, T: types.TInt4}, NewConst(types.NewInt(1), types.TInt4))
	b, ok := Encode(e)
	if !ok {
		t.Fatalf("Encode(%s) refused", e)
	}
	bad := [][]byte{nil, {encodeVersion + 1}, append([]byte{}, b[:len(b)-1]...), append(append([]byte{}, b...), 0)}
	// The same operator claimed over int8 operands it does not take as
	// they are: resolution would add casts.
	w := encoder{b: []byte{encodeVersion, tagBinary}}
	w.str("+")
	w.typ(types.TInt8)
	w.exprs(&ColRef{Idx: 0, T: types.TInt4}, NewConst(types.NewInt(1), types.TInt8))
	bad = append(bad, w.b)
	for i := 1; i < len(b); i++ {
		bad = append(bad, b[:i])
	}
	for _, x := range bad {
		if d, err := Decode(x); err == nil {
			t.Errorf("Decode(%x) = %s, want an error", x, d)
		}
	}
}
