package expr

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// compared draws a comparison of a column with a constant or another
// column of the same type, the shape CompileTest compiles, or of another
// type (a cast in between).
func (g exprGen) compared() Expr {
	var l Expr = g.col()
	if rapid.IntRange(0, 3).Draw(g.t, "any column") > 0 {
		// Mostly of the types compared as integers.
		i := rapid.SampledFrom([]int{0, 1, 5, 6, 7}).Draw(g.t, "int column")
		l = &ColRef{Idx: i, T: shipCols[i]}
	}
	var r Expr = &ColRef{Idx: rapid.SampledFrom([]int{0, 1, 5, 6, 7}).Draw(g.t, "other column")}
	r.(*ColRef).T = shipCols[r.(*ColRef).Idx]
	if rapid.Bool().Draw(g.t, "const") {
		typ := l.Type()
		if rapid.IntRange(0, 3).Draw(g.t, "other type") == 0 {
			typ = rapid.SampledFrom(shipCols).Draw(g.t, "const type")
		}
		r = NewConst(drawDatum(g.t, typ, "const"), typ)
	}
	if rapid.Bool().Draw(g.t, "swap") {
		l, r = r, l
	}
	return g.condFallback(NewBinary(rapid.SampledFrom(shipOps[7:]).Draw(g.t, "cmp"), l, r))
}

// test draws a condition of comparisons, AND, OR and NOT, and now and
// then any other condition.
func (g exprGen) test(depth int) Expr {
	if depth <= 0 {
		if rapid.IntRange(0, 4).Draw(g.t, "other") == 0 {
			return g.cond(1)
		}
		return g.compared()
	}
	d := depth - 1
	args := func() []Expr {
		out := make([]Expr, rapid.IntRange(2, 4).Draw(g.t, "nargs"))
		for i := range out {
			out[i] = g.test(d)
		}
		return out
	}
	switch rapid.IntRange(0, 4).Draw(g.t, "logic") {
	case 0:
		return &And{Args: args()}
	case 1:
		return &Or{Args: args()}
	case 2:
		return &Not{E: g.test(d)}
	case 3:
		return g.member()
	}
	return g.compared()
}

// member draws a column's membership in constants of its type (NULL now
// and then, as drawDatum draws), as an OR of equalities or a [NOT] IN
// list: mostly columns compared as integers, which CompileTest compiles
// into a set test, else one it does not.
func (g exprGen) member() Expr {
	i := rapid.SampledFrom([]int{0, 1, 5, 6, 7, 2, 4}).Draw(g.t, "member column")
	col := &ColRef{Idx: i, T: shipCols[i]}
	list := make([]Expr, rapid.IntRange(1, 20).Draw(g.t, "members"))
	for j := range list {
		list[j] = NewConst(drawDatum(g.t, col.T, "member"), col.T)
	}
	if rapid.Bool().Draw(g.t, "in list") {
		return &InList{E: col, List: list, Not: rapid.Bool().Draw(g.t, "not in")}
	}
	or := &Or{}
	for _, c := range list {
		or.Args = append(or.Args, g.condFallback(NewBinary("=", col, c)))
	}
	return or
}

// TestCompileTestAgreesWithEval checks that a compiled condition gives
// what evaluating it gives, value or error, over random rows.
func TestCompileTestAgreesWithEval(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := exprGen{t}.test(rapid.IntRange(0, 3).Draw(t, "depth"))
		test := CompileTest(e)
		c := NewCtx(context.Background(), nil)
		c.Now = time.Date(2024, 2, 29, 12, 0, 0, 0, time.UTC)
		for i := range 16 {
			row := drawRow(t, i)
			want, wantErr := e.Eval(c, row)
			got, gotErr := test(c, row)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || (wantErr == nil && got != truthOf(want)) {
				t.Fatalf("%s over %v: compiled gives %v, %v; Eval %v, %v", e, row, got, gotErr, want, wantErr)
			}
		}
	})
}

// TestCompileTestThreeValued checks the compiled logic's NULLs by hand:
// an OR with a NULL and no true is NULL, an AND with a false is false
// whatever else it holds, NOT NULL is NULL.
func TestCompileTestThreeValued(t *testing.T) {
	col := &ColRef{Idx: 0, T: types.TInt8}
	eq := func(v int64) Expr {
		e, err := NewBinary("=", col, NewConst(types.NewInt(v), types.TInt8))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	null := NewConst(types.Null, types.TBool)
	in := func(not bool, vals ...any) Expr {
		l := &InList{E: col, Not: not}
		for _, v := range vals {
			d := types.Null
			if v != nil {
				d = types.NewInt(int64(v.(int)))
			}
			l.List = append(l.List, NewConst(d, types.TInt8))
		}
		return l
	}
	for _, tt := range []struct {
		e    Expr
		row  types.Datum
		want Truth
	}{
		{&Or{Args: []Expr{eq(1), eq(2)}}, types.NewInt(2), True},
		{&Or{Args: []Expr{eq(1), eq(2)}}, types.NewInt(3), False},
		{&Or{Args: []Expr{eq(1), null}}, types.NewInt(3), Unknown},
		{&Or{Args: []Expr{null, eq(3)}}, types.NewInt(3), True},
		{&And{Args: []Expr{null, eq(1)}}, types.NewInt(3), False},
		{&And{Args: []Expr{null, eq(3)}}, types.NewInt(3), Unknown},
		{&Not{E: eq(1)}, types.Null, Unknown},
		{&Not{E: eq(1)}, types.NewInt(2), True},
		{eq(-7), types.NewInt(-7), True},
		// Membership: an OR of equalities or an IN list of constants.
		{&Or{Args: []Expr{eq(1), eq(2), eq(9)}}, types.NewInt(9), True},
		{&Or{Args: []Expr{eq(1), eq(2), eq(9)}}, types.NewInt(3), False},
		{&Or{Args: []Expr{eq(1), eq(2), eq(9)}}, types.Null, Unknown},
		{in(false, 1, 2), types.NewInt(2), True},
		{in(false, 1, 2), types.NewInt(3), False},
		{in(false, 1, nil), types.NewInt(3), Unknown},
		{in(false, 1, nil), types.NewInt(1), True},
		{in(true, 1, 2), types.NewInt(3), True},
		{in(true, 1, nil), types.NewInt(3), Unknown},
		{in(true, 1, nil), types.NewInt(1), False},
		{in(true, 1, 2), types.Null, Unknown},
		{in(false, 5, 3, 30, 8, 1, 13, 21, 34, 55, 89, 144, 2, 233, 377, 610, 987, 1597), types.NewInt(377), True},
		{in(false, 5, 3, 30, 8, 1, 13, 21, 34, 55, 89, 144, 2, 233, 377, 610, 987, 1597), types.NewInt(4), False},
	} {
		got, err := CompileTest(tt.e)(NewCtx(context.Background(), nil), []types.Datum{tt.row})
		if err != nil || got != tt.want {
			t.Errorf("%s over %v = %v, %v; want %v", tt.e, tt.row, got, err, tt.want)
		}
	}
}
