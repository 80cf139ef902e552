package parser

import (
	"strings"
	"testing"
)

func TestLex(t *testing.T) {
	tests := []struct {
		in   string
		want string // kind:val tokens, space separated
	}{
		{"SELECT Foo, \"Bar\"", "id:select id:foo p:, q:Bar"},
		{"a::int4[] $12 $tag$x$y$tag$", "id:a p::: id:int4 p:[ p:] $:12 s:x$y"},
		{"E'\\x41\\n\\'' 'it''s' N'n'", "s:A\n' s:it's s:n"},
		{"'a' -- c\n 'b' 'c'", "s:ab s:c"},
		{"1 1.5 .5 5. 1e3 1.5e-3 0x10 0b11 0o7 1_000 007", "i:1 n:1.5 n:.5 f:5. f:1e3 f:1.5e-3 i:16 i:3 i:7 i:1000 i:7"},
		{"a<>b a!=b a>=-1 a=-1 a||b a@-1 a*-1", "id:a o:<> id:b id:a o:!= id:b id:a o:>= o:- i:1 id:a o:= o:- i:1 id:a o:|| id:b id:a o:@- i:1 id:a o:* o:- i:1"},
		{"a+-- comment\n1 /* a /* nested */ b */ x", "id:a o:+ i:1 id:x"},
		{"x->>'k' #> ~~* !~~", "id:x o:->> s:k o:#> o:~~* o:!~~"},
		{"1..2", "i:1 p:. n:.2"},
		{"aé$1", "id:aé$1"},
		{"U&'\\0041\\+000042\\\\'", "s:AB\\"},
	}
	for _, tt := range tests {
		toks, err := lex(tt.in)
		if err != nil {
			t.Errorf("lex(%q): %v", tt.in, err)
			continue
		}
		var got []string
		for _, tk := range toks {
			if tk.kind == tkEOF {
				break
			}
			got = append(got, map[tokKind]string{tkIdent: "id", tkQIdent: "q", tkInt: "i", tkNumeric: "n",
				tkFloat: "f", tkString: "s", tkParam: "$", tkOp: "o", tkPunct: "p"}[tk.kind]+":"+tk.val)
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("lex(%q)\n got %q\nwant %q", tt.in, g, tt.want)
		}
	}
}

func TestLexIdentTruncation(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	toks, err := lex(long)
	if err != nil {
		t.Fatal(err)
	}
	if v := toks[0].val; len(v) != 62 || v != strings.Repeat("é", 31) {
		t.Errorf("truncated to %q (%d bytes)", v, len(v))
	}
}
