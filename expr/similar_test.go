package expr

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestSimilar checks similar_to_escape, SQL regular expression substring
// and SIMILAR TO matching against PostgreSQL 15.
func TestSimilar(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "similar_to_escape", args: args(txt("a%b_c(d|e)")), want: "^(?:a.*b.c(?:d|e))$"},
		{fn: "similar_to_escape", args: args(txt(`a%b_c(d|e)[x%_\]]\.^$#"q#"z`), txt("#")), want: `^(?:a.*b.c(?:d|e)[x%_\\]]\\\.\^\$){1,1}?(q){1,1}(?:z)$`},
		{fn: "similar_to_escape", args: args(txt("[]a]%")), want: "^(?:[]a].*)$"},
		{fn: "similar_to_escape", args: args(txt("[^]a]#_"), txt("#")), want: `^(?:[^]a]\_)$`},
		{fn: "similar_to_escape", args: args(txt("a*b+c?{2}(x|y)"), txt("")), want: "^(?:a*b+c?{2}(?:x|y))$"},
		{fn: "similar_to_escape", args: args(txt(`a\%`)), want: `^(?:a\%)$`},
		{fn: "similar_to_escape", args: args(txt("a"), txt("xx")), code: "22025"},
		{fn: "similar_to_escape", args: args(txt(`a#"b#"c#"`), txt("#")), code: "2200C"},
		{fn: "substring", args: args(txt("foobar"), txt(`%#"o_b#"%`), txt("#")), want: "oob"},
		{fn: "substring", args: args(txt("aaa"), txt(`%#"a%#"%`), txt("#")), want: "aaa"},
		{fn: "substring", args: args(txt("xaaay"), txt(`%#"a*#"%`), txt("#")), want: ""},
		{fn: "substring", args: args(txt("abc"), txt(`a#"b`), txt("#")), want: nullOut},
		{fn: "substring", args: args(txt("abc"), txt("abc"), txt("#")), want: "abc"},
		{fn: "substring", args: args(txt("foobar"), txt("o.b")), want: "oob"},
		{fn: "substring", args: args(txt("foobar"), txt("o(.)b")), want: "o"},
		{fn: "substring", args: args(txt("foo"), txt("f(x)?")), want: nullOut},
	})
}

// TestSimilarMatch checks x SIMILAR TO pattern, a regex match of
// similar_to_escape, with constant and per-row patterns.
func TestSimilarMatch(t *testing.T) {
	for _, c := range []struct {
		s, pattern string
		want       bool
	}{
		{"abc", "a%", true},
		{"abc", "%(b|d)%", true},
		{"abc", "a_", false},
		{"a.b", "a.b", true},
		{"axb", "a.b", false},
		{"]", "[]a]", true},
		{"b", "[^]a]", true},
		{"a1", "[[:alpha:]][[:digit:]]", true},
		{"a\nb", "a_b", true},
		{"aaa", "a{2,}", true},
	} {
		pattern, err := NewFunc("similar_to_escape", []Expr{NewConst(types.NewString(c.pattern), types.TText)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Expr{pattern, &ColRef{Idx: 0, T: types.TText}} {
			m, err := NewRegexMatch("~", NewConst(types.NewString(c.s), types.TText), r)
			if err != nil {
				t.Fatal(err)
			}
			v, err := m.Eval(NewCtx(t.Context(), nil), []types.Datum{types.NewString(mustSimilar(t, c.pattern))})
			if err != nil || v.Bool() != c.want {
				t.Errorf("%q SIMILAR TO %q (%v) = %v, %v; want %v", c.s, c.pattern, r, v, err, c.want)
			}
		}
	}
}

func mustSimilar(t *testing.T, pattern string) string {
	t.Helper()
	s, err := similarToRegex(pattern, `\`, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
