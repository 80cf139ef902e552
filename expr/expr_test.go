package expr

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestEqual(t *testing.T) {
	null := func(t types.T) Expr { return NewConst(types.Null, t) }
	col := &ColRef{Idx: 0, T: types.TInt4}
	cases := []struct {
		name string
		a, b Expr
		want bool
	}{
		{"same column", col, &ColRef{Idx: 0, T: types.TInt4}, true},
		{"other column", col, &ColRef{Idx: 1, T: types.TInt4}, false},
		{"NULLs of one type", null(types.TInt8), null(types.TInt8), true},
		{"NULLs of two types", null(types.TInt8), null(types.TText), false},
		{"untyped and typed NULL", null(types.TUnknown), null(types.TInt4), false},
		{"casts of NULL to two types", &Cast{E: col, To: types.TInt8}, &Cast{E: col, To: types.TInt2}, false},
		{"values of two types", NewConst(types.NewInt(1), types.TInt4), NewConst(types.NewInt(1), types.TInt8), false},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%s: Equal(%s, %s) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}
