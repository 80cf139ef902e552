package expr

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestNewLogic checks that AND, OR and NOT of constants fold as
// PostgreSQL's eval_const_expressions folds them.
func TestNewLogic(t *testing.T) {
	a := &ColRef{Idx: 0, T: types.TBool, Name: "$0"}
	b := &ColRef{Idx: 1, T: types.TBool, Name: "b"}
	tr, fa := NewConst(types.NewBool(true), types.TBool), NewConst(types.NewBool(false), types.TBool)
	null := NewConst(types.Null, types.TBool)
	cases := []struct {
		got  Expr
		want string
	}{
		{NewAnd(a, b), "($0 AND $1)"},
		{NewAnd(NewAnd(a, b), a), "(($0 AND $1) AND $0)"},
		{NewAnd(a, fa), "'f'::boolean"},
		{NewAnd(a, tr), "$0"},
		{NewAnd(tr, tr), "'t'::boolean"},
		{NewAnd(a, null, b, null), "($0 AND $1 AND NULL::boolean)"},
		{NewAnd(NewOr(a, b), fa), "'f'::boolean"},
		{NewOr(a, tr), "'t'::boolean"},
		{NewOr(a, fa, b), "($0 OR $1)"},
		{NewOr(fa, fa), "'f'::boolean"},
		{NewOr(null, fa), "NULL::boolean"},
		{NewOr(NewOr(a, b), NewAnd(a, b)), "(($0 OR $1) OR ($0 AND $1))"},
		{NewNot(tr), "'f'::boolean"},
		{NewNot(null), "NULL::boolean"},
		{NewNot(a), "NOT $0"},
	}
	for _, c := range cases {
		if got := c.got.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}
