package expr

import (
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

func bytea(s string) Expr { return lit(types.TBytea, s) }

func TestStringBuiltins(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "length", args: args(txt("jose")), want: "4"},
		{fn: "length", args: args(txt("héllo")), want: "5"},
		{fn: "length", args: args(unknown("")), want: "0"},
		{fn: "length", args: args(bytea(`\x0102`)), want: "2"},
		{fn: "length", args: args(lit(types.T{Family: types.Bpchar, Mod: 5}, "ab")), want: "2"},
		{fn: "char_length", args: args(txt("NULL")), want: nullOut},
		{fn: "character_length", args: args(txt("ab")), want: "2"},
		{fn: "octet_length", args: args(txt("héllo")), want: "6"},
		{fn: "octet_length", args: args(bytea(`\x010203`)), want: "3"},
		{fn: "bit_length", args: args(txt("jose")), want: "32"},

		{fn: "lower", args: args(txt("TOM Été")), want: "tom été"},
		{fn: "upper", args: args(txt("tom été")), want: "TOM ÉTÉ"},
		{fn: "initcap", args: args(txt("hi THOMAS")), want: "Hi Thomas"},
		{fn: "initcap", args: args(txt("hello-world foo_bar 3RD élan")), want: "Hello-World Foo_Bar 3rd Élan"},

		{fn: "substr", args: args(txt("alphabet"), i4("3")), want: "phabet"},
		{fn: "substr", args: args(txt("alphabet"), i4("3"), i4("2")), want: "ph"},
		{fn: "substring", args: args(txt("Thomas"), i4("2"), i4("3")), want: "hom"},
		{fn: "substring", args: args(txt("Thomas"), i4("0"), i4("3")), want: "Th"},
		{fn: "substring", args: args(txt("Thomas"), i4("-5"), i4("3")), want: ""},
		{fn: "substring", args: args(txt("Thomas"), i4("5")), want: "as"},
		{fn: "substring", args: args(txt("Thomas"), i4("-1")), want: "Thomas"},
		{fn: "substring", args: args(txt("Thomas"), i4("10")), want: ""},
		{fn: "substring", args: args(txt("Thomas"), i4("2"), i4("-1")), code: "22011", want: "negative substring length not allowed"},
		{fn: "substring", args: args(txt("héllo"), i4("2"), i4("2")), want: "él"},
		{fn: "substring", args: args(bytea(`\x0102030405`), i4("2"), i4("3")), want: `\x020304`},
		{fn: "substr", args: args(bytea(`\x0102`), i4("0")), want: `\x0102`},

		{fn: "overlay", args: args(txt("Txxxxas"), txt("hom"), i4("2"), i4("4")), want: "Thomas"},
		{fn: "overlay", args: args(txt("Txxxxas"), txt("hom"), i4("2")), want: "Thomxas"},
		{fn: "overlay", args: args(txt("abc"), txt("X"), i4("5")), want: "abcX"},
		{fn: "overlay", args: args(txt("abc"), txt("X"), i4("2"), i4("-1")), want: "aXabc"},
		{fn: "overlay", args: args(txt("héllo"), txt("É"), i4("2"), i4("1")), want: "hÉllo"},
		{fn: "overlay", args: args(bytea(`\x010203`), bytea(`\xff`), i4("2"), i4("5")), want: `\x01ff`},
		{fn: "overlay", args: args(txt("abc"), txt("X"), i4("0")), code: "22011", want: "negative substring length not allowed"},
		{fn: "overlay", args: args(txt("abc"), txt("X"), i4("1"), i4("2147483647")), code: "22003", want: "integer out of range"},

		{fn: "strpos", args: args(txt("high"), txt("ig")), want: "2"},
		{fn: "strpos", args: args(txt("héllo"), txt("l")), want: "3"},
		{fn: "strpos", args: args(txt("abc"), txt("")), want: "1"},
		{fn: "strpos", args: args(txt("abc"), txt("z")), want: "0"},

		{fn: "replace", args: args(txt("abcdefabcdef"), txt("cd"), txt("XX")), want: "abXXefabXXef"},
		{fn: "replace", args: args(txt("abc"), txt(""), txt("x")), want: "abc"},

		{fn: "btrim", args: args(txt("xyxtrimyyx"), txt("xyz")), want: "trim"},
		{fn: "btrim", args: args(txt("  a  ")), want: "a"},
		{fn: "trim", args: args(txt("  a  ")), want: "a"},
		{fn: "ltrim", args: args(txt("zzzytest"), txt("xyz")), want: "test"},
		{fn: "ltrim", args: args(txt("  a ")), want: "a "},
		{fn: "rtrim", args: args(txt("testxxzx"), txt("xyz")), want: "test"},
		{fn: "rtrim", args: args(txt("ab"), txt("")), want: "ab"},

		{fn: "lpad", args: args(txt("hi"), i4("5"), txt("xy")), want: "xyxhi"},
		{fn: "rpad", args: args(txt("hi"), i4("5"), txt("xy")), want: "hixyx"},
		{fn: "lpad", args: args(txt("hi"), i4("5")), want: "   hi"},
		{fn: "lpad", args: args(txt("hello"), i4("2")), want: "he"},
		{fn: "rpad", args: args(txt("hello"), i4("2")), want: "he"},
		{fn: "lpad", args: args(txt("hi"), i4("-1")), want: ""},
		{fn: "lpad", args: args(txt("hi"), i4("5"), txt("")), want: "hi"},
		{fn: "rpad", args: args(txt("é"), i4("3"), txt("ü")), want: "éüü"},
		{fn: "lpad", args: args(txt("hi"), i4("1000000000")), code: "54000", want: "requested length too large"},

		{fn: "left", args: args(txt("abcde"), i4("2")), want: "ab"},
		{fn: "left", args: args(txt("abcde"), i4("-2")), want: "abc"},
		{fn: "left", args: args(txt("abc"), i4("-5")), want: ""},
		{fn: "left", args: args(txt("héllo"), i4("2")), want: "hé"},
		{fn: "right", args: args(txt("abcde"), i4("2")), want: "de"},
		{fn: "right", args: args(txt("abcde"), i4("-2")), want: "cde"},
		{fn: "right", args: args(txt("abc"), i4("5")), want: "abc"},
		{fn: "right", args: args(txt("abc"), i4("-5")), want: ""},

		{fn: "repeat", args: args(txt("Pg"), i4("4")), want: "PgPgPgPg"},
		{fn: "repeat", args: args(txt("x"), i4("-1")), want: ""},
		{fn: "repeat", args: args(txt("xx"), i4("1000000000")), code: "54000"},
		{fn: "reverse", args: args(txt("abcdé")), want: "édcba"},

		{fn: "split_part", args: args(txt("abc~@~def~@~ghi"), txt("~@~"), i4("2")), want: "def"},
		{fn: "split_part", args: args(txt("abc,def,ghi,jkl"), txt(","), i4("-2")), want: "ghi"},
		{fn: "split_part", args: args(txt("a,b"), txt(","), i4("1")), want: "a"},
		{fn: "split_part", args: args(txt("a,b"), txt(","), i4("5")), want: ""},
		{fn: "split_part", args: args(txt("a,b"), txt(","), i4("-3")), want: ""},
		{fn: "split_part", args: args(txt("a,b"), txt(","), i4("0")), code: "22023", want: "field position must not be zero"},
		{fn: "split_part", args: args(txt("abc"), txt(""), i4("-1")), want: "abc"},
		{fn: "split_part", args: args(txt("abc"), txt(""), i4("2")), want: ""},
		{fn: "split_part", args: args(txt(""), txt(","), i4("1")), want: ""},

		{fn: "concat", args: args(txt("abcde"), i4("2"), i4("NULL"), i4("22")), want: "abcde222"},
		{fn: "concat", args: args(txt("NULL")), want: ""},
		{fn: "concat", args: args(unknown("x"), num("1.50"), date("2020-01-02"), lit(types.TBool, "t"), f8("0.1")), want: "x1.502020-01-02t0.1"},
		{fn: "concat_ws", args: args(txt(","), txt("abcde"), i4("2"), i4("NULL"), i4("22")), want: "abcde,2,22"},
		{fn: "concat_ws", args: args(txt("NULL"), txt("a")), want: nullOut},

		{fn: "md5", args: args(txt("abc")), want: "900150983cd24fb0d6963f7d28e17f72"},
		{fn: "md5", args: args(bytea(`\x616263`)), want: "900150983cd24fb0d6963f7d28e17f72"},
		{fn: "ascii", args: args(txt("x")), want: "120"},
		{fn: "ascii", args: args(txt("é")), want: "233"},
		{fn: "ascii", args: args(txt("")), want: "0"},
		{fn: "chr", args: args(i4("65")), want: "A"},
		{fn: "chr", args: args(i4("233")), want: "é"},
		{fn: "chr", args: args(i4("0")), code: "54000", want: "null character not permitted"},
		{fn: "chr", args: args(i4("-1")), code: "54000", want: "character number must be positive"},
		{fn: "chr", args: args(i4("1114112")), code: "54000", want: "requested character too large for encoding: 1114112"},
		{fn: "chr", args: args(i4("55296")), code: "54000", want: "requested character not valid for encoding: 55296"},
		{fn: "to_hex", args: args(i4("2147483647")), want: "7fffffff"},
		{fn: "to_hex", args: args(i4("-1")), want: "ffffffff"},
		{fn: "to_hex", args: args(i8("-1")), want: "ffffffffffffffff"},
		{fn: "to_hex", args: args(i2("255")), want: "ff"},
		{fn: "translate", args: args(txt("12345"), txt("143"), txt("ax")), want: "a2x5"},
		{fn: "translate", args: args(txt("aab"), txt("aa"), txt("xy")), want: "xxb"},
		{fn: "starts_with", args: args(txt("alphabet"), txt("alph")), want: "t"},
		{fn: "starts_with", args: args(txt("alphabet"), txt("beta")), want: "f"},
		// quote_ident quotes keywords other than unreserved ones.
		{fn: "quote_ident", args: args(txt("select")), want: `"select"`},
		{fn: "quote_ident", args: args(txt("between")), want: `"between"`},
		{fn: "quote_ident", args: args(txt("left")), want: `"left"`},
		{fn: "quote_ident", args: args(txt("abort")), want: "abort"},
		{fn: "quote_ident", args: args(txt("a1")), want: "a1"},
		{fn: "quote_ident", args: args(txt("1a")), want: `"1a"`},
		{fn: "quote_ident", args: args(txt(`Fo"o`)), want: `"Fo""o"`},
		{fn: "quote_literal", args: args(txt("O'Reilly")), want: "'O''Reilly'"},
		{fn: "quote_literal", args: args(txt(`C:\Windows`)), want: `E'C:\\Windows'`},
		{fn: "quote_nullable", args: args(txt("NULL")), want: "NULL"},
		{fn: "quote_nullable", args: args(txt("a")), want: "'a'"},
	})
}

// TestSubstringMatchesRunes checks substring against its definition on
// characters: positions start..start+count-1, clipped to the string.
func TestSubstringMatchesRunes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.RuneFrom([]rune{'a', 'b', 'é', '€', '😀'})).Draw(t, "s")
		start := rapid.IntRange(-5, 10).Draw(t, "start")
		count := rapid.IntRange(0, 10).Draw(t, "count")
		runes := []rune(s)
		var want []rune
		for p := start; p < start+count; p++ {
			if p >= 1 && p <= len(runes) {
				want = append(want, runes[p-1])
			}
		}
		_, v, err := call("substring", args(txt(s), i4(strconv.Itoa(start)), i4(strconv.Itoa(count))))
		if err != nil || v.Str() != string(want) {
			t.Fatalf("substring(%q, %d, %d) = %q, %v; want %q", s, start, count, v.Str(), err, string(want))
		}
	})
}

// TestPadLength checks that lpad and rpad always return n characters, and
// keep the string at its end or start.
func TestPadLength(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.RuneFrom([]rune{'a', 'é', '😀'})).Draw(t, "s")
		fill := rapid.StringOfN(rapid.RuneFrom([]rune{'x', 'ü'}), 1, 3, -1).Draw(t, "fill")
		n := rapid.IntRange(0, 12).Draw(t, "n")
		for _, fn := range []string{"lpad", "rpad"} {
			_, v, err := call(fn, args(txt(s), i4(strconv.Itoa(n)), txt(fill)))
			if err != nil || utf8.RuneCountInString(v.Str()) != n {
				t.Fatalf("%s(%q, %d, %q) = %q, %v", fn, s, n, fill, v.Str(), err)
			}
			if keep := []rune(s)[:min(n, len([]rune(s)))]; fn == "rpad" && string([]rune(v.Str())[:len(keep)]) != string(keep) {
				t.Fatalf("rpad(%q, %d, %q) = %q", s, n, fill, v.Str())
			}
		}
	})
}
