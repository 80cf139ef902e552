package expr

import "testing"

// TestRegexBuiltins checks regexp_match against PostgreSQL 15.
func TestRegexBuiltins(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "regexp_match", args: args(txt("foobarbequebaz"), txt("bar.*que")), want: "{barbeque}"},
		{fn: "regexp_match", args: args(txt("foobarbequebaz"), txt("(bar)(beque)")), want: "{bar,beque}"},
		{fn: "regexp_match", args: args(txt("abc"), txt("x")), want: nullOut},
		{fn: "regexp_match", args: args(txt("b"), txt("(a)|(b)")), want: "{NULL,b}"},
		{fn: "regexp_match", args: args(txt("ABC"), txt("b"), txt("i")), want: "{B}"},
		{fn: "regexp_match", args: args(txt("ABC"), txt("b"), txt("ic")), want: nullOut},
		{fn: "regexp_match", args: args(txt("a.c"), txt("."), txt("q")), want: "{.}"},
		// The longest match unless a quantifier is non-greedy.
		{fn: "regexp_match", args: args(txt("ab"), txt("a|ab")), want: "{ab}"},
		{fn: "regexp_match", args: args(txt("aaa"), txt("a+?")), want: "{a}"},
		// . matches a newline and ^ only the start, unless newline-sensitive.
		{fn: "regexp_match", args: args(txt("x\nab"), txt("x.a")), want: "{\"x\na\"}"},
		{fn: "regexp_match", args: args(txt("x\nab"), txt("^ab")), want: nullOut},
		{fn: "regexp_match", args: args(txt("x\nab"), txt("^ab"), txt("n")), want: "{ab}"},
		{fn: "regexp_match", args: args(txt("x\nab"), txt("x.a"), txt("p")), want: nullOut},
		{fn: "regexp_match", args: args(txt("x\nab"), txt("^ab"), txt("w")), want: "{ab}"},
		{fn: "regexp_match", args: args(txt("https://www.nexmark.com/a/b/item.htm?query=1&channel_id=42&x=y"), txt("(&|^)channel_id=([^&]*)")), want: "{&,42}"},
		{fn: "regexp_match", args: args(txt("channel_id=7"), txt("(&|^)channel_id=([^&]*)")), want: "{\"\",7}"},
		{fn: "regexp_match", args: args(txt("NULL"), txt("a")), want: nullOut},
		{fn: "regexp_match", args: args(txt("a"), txt("a"), txt("g")), code: "22023", want: `regexp_match() does not support the "global" option`},
		{fn: "regexp_match", args: args(txt("a"), txt("a"), txt("z")), code: "22023", want: `invalid regular expression option: "z"`},
		{fn: "regexp_match", args: args(txt("a"), txt("(")), code: "2201B"},
	})
}
