package types

import (
	"encoding/hex"
	"testing"
	"unsafe"

	"github.com/streamdb/streamdb/pgerror"
)

func mustArray(t *testing.T, elem T) T {
	t.Helper()
	a, err := ArrayOf(elem)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestArrayText checks array input and output against PostgreSQL 15's
// output for the same '...'::type[] literal.
func TestArrayText(t *testing.T) {
	ints, texts := mustArray(t, TInt4), mustArray(t, TText)
	tests := []textCase{
		{ints, "{1,2,NULL}", "{1,2,NULL}"}, {ints, " { 1 , 2 } ", "{1,2}"}, {ints, "{}", "{}"}, {ints, "{  }", "{}"},
		{ints, "{ NULL }", "{NULL}"}, {ints, "{nULl,3}", "{NULL,3}"},
		{texts, `{"a b", c , "" }`, `{"a b",c,""}`}, {texts, `{a b  ,  c d }`, `{"a b","c d"}`},
		{texts, `{a\,b,c\"d}`, `{"a,b","c\"d"}`}, {texts, `{NULL,null,"null",nULl}`, `{NULL,NULL,"null",NULL}`},
		{texts, `{a b\ }`, `{"a b "}`}, {texts, `{\NULL}`, `{"NULL"}`}, {texts, "{\ta\t}", "{a}"},
		{texts, `{"x\"y","a\\b","{","a,b","}"}`, `{"x\"y","a\\b","{","a,b","}"}`}, {texts, `{日本,"é è"}`, `{日本,"é è"}`},
		{mustArray(t, TBytea), `{"\\x01",NULL}`, `{"\\x01",NULL}`},
		{mustArray(t, TTimestamp), `{"2020-01-01 10:00"}`, `{"2020-01-01 10:00:00"}`},
		{mustArray(t, TJsonb), `{"{\"a\": 1}","[1, \"x\"]"}`, `{"{\"a\": 1}","[1, \"x\"]"}`},
		{mustArray(t, TBool), "{true,f}", "{t,f}"}, {mustArray(t, TFloat8), "{1.5,NaN,Infinity}", "{1.5,NaN,Infinity}"},
		{mustArray(t, TInterval), "{1 day}", `{"1 day"}`}, {mustArray(t, T{Family: Varchar, Mod: 2}), "{ab,c}", "{ab,c}"},
		{mustArray(t, T{Family: Numeric, Mod: NumericMod(4, 1)}), "{1.25,2}", "{1.3,2.0}"},
		// Dimensions and lower bounds.
		{ints, "{{1,2},{3,4}}", "{{1,2},{3,4}}"}, {ints, " { { 1 , 2 } , { 3 , 4 } } ", "{{1,2},{3,4}}"},
		{ints, "{{{1},{2}},{{3},{NULL}}}", "{{{1},{2}},{{3},{NULL}}}"},
		{ints, "[0:1]={1,2}", "[0:1]={1,2}"}, {ints, "[1:2]={1,2}", "{1,2}"}, {ints, "[3]={1,2,3}", "{1,2,3}"},
		{ints, "[0:1][2:3]={{1,2},{3,4}}", "[0:1][2:3]={{1,2},{3,4}}"}, {ints, "[-2:-2]={7}", "[-2:-2]={7}"},
		{texts, `{{"a b",NULL},{c,"}"}}`, `{{"a b",NULL},{c,"}"}}`},
	}
	checkText(t, tests)
}

func TestArrayTextErrors(t *testing.T) {
	ints, texts := mustArray(t, TInt4), mustArray(t, TText)
	tests := []struct {
		typ                T
		in, code, msg, det string
	}{
		{ints, "{1,2", "22P02", `malformed array literal: "{1,2"`, "Unexpected end of input."},
		{ints, "{", "22P02", `malformed array literal: "{"`, "Unexpected end of input."},
		{ints, "1,2", "22P02", `malformed array literal: "1,2"`, `Array value must start with "{" or dimension information.`},
		{ints, "", "22P02", `malformed array literal: ""`, `Array value must start with "{" or dimension information.`},
		{ints, "{1,,2}", "22P02", `malformed array literal: "{1,,2}"`, `Unexpected "," character.`},
		{ints, "{,}", "22P02", `malformed array literal: "{,}"`, `Unexpected "," character.`},
		{texts, "{a,}", "22P02", `malformed array literal: "{a,}"`, `Unexpected "}" character.`},
		{texts, `{"a"b}`, "22P02", `malformed array literal: "{"a"b}"`, "Unexpected array element."},
		{texts, `{"a" "b"}`, "22P02", `malformed array literal: "{"a" "b"}"`, "Unexpected array element."},
		{texts, `{a"}`, "22P02", `malformed array literal: "{a"}"`, "Unexpected array element."},
		{texts, `{"a`, "22P02", `malformed array literal: "{"a"`, "Unexpected end of input."},
		{texts, `{a\}`, "22P02", `malformed array literal: "{a\}"`, "Unexpected end of input."},
		{texts, "{a}x", "22P02", `malformed array literal: "{a}x"`, "Junk after closing right brace."},
		{texts, "{a}}", "22P02", `malformed array literal: "{a}}"`, "Junk after closing right brace."},
		{texts, "{a{}", "22P02", `malformed array literal: "{a{}"`, `Unexpected "{" character.`},
		{ints, "{a}", "22P02", `invalid input syntax for type integer: "a"`, ""},
		{ints, `{"NULL"}`, "22P02", `invalid input syntax for type integer: "NULL"`, ""},
		{ints, "{{1,2},{3}}", "22P02", `malformed array literal: "{{1,2},{3}}"`, "Multidimensional arrays must have sub-arrays with matching dimensions."},
		{ints, "{1,{2}}", "22P02", `malformed array literal: "{1,{2}}"`, `Unexpected "{" character.`},
		{ints, "{{1},2}", "22P02", `malformed array literal: "{{1},2}"`, "Unexpected array element."},
		{ints, "{{},{}}", "22P02", `malformed array literal: "{{},{}}"`, `Unexpected "}" character.`},
		{ints, "{{1,2}", "22P02", `malformed array literal: "{{1,2}"`, "Unexpected end of input."},
		{ints, "{{{{{{{1}}}}}}}", "54000", "number of array dimensions (7) exceeds the maximum allowed (6)", ""},
		{ints, "[0:2]={1,2}", "22P02", `malformed array literal: "[0:2]={1,2}"`, "Specified array dimensions do not match array contents."},
		{ints, "[1:2]={{1},{2}}", "22P02", `malformed array literal: "[1:2]={{1},{2}}"`, "Specified array dimensions do not match array contents."},
		{ints, "[1:1]={}", "22P02", `malformed array literal: "[1:1]={}"`, "Specified array dimensions do not match array contents."},
		{ints, "[1:2]{1,2}", "22P02", `malformed array literal: "[1:2]{1,2}"`, `Missing "=" after array dimensions.`},
		{ints, "[a:2]={1}", "22P02", `malformed array literal: "[a:2]={1}"`, `"[" must introduce explicitly-specified array dimensions.`},
		{ints, "[2:1]={}", "2202E", "upper bound cannot be less than lower bound", ""},
	}
	for _, tt := range tests {
		_, err := ParseText(tt.typ, tt.in)
		pe := pgerror.From(err)
		if err == nil || pe.Code != tt.code || pe.Message != tt.msg || pe.Detail != tt.det {
			t.Errorf("ParseText(%s, %q) = %v (detail %q), want %s %s (%s)", tt.typ, tt.in, err, pe.Detail, tt.code, tt.msg, tt.det)
		}
	}
}

// TestArrayBinary checks array_send's bytes for PostgreSQL's examples.
func TestArrayBinary(t *testing.T) {
	tests := []struct {
		typ  T
		text string
		hex  string
	}{
		{mustArray(t, TInt4), "{}", "00000000" + "00000000" + "00000017"},
		{mustArray(t, TInt4), "{1,NULL}", "00000001" + "00000001" + "00000017" + "00000002" + "00000001" +
			"00000004" + "00000001" + "ffffffff"},
		{mustArray(t, TText), `{ab}`, "00000001" + "00000000" + "00000019" + "00000001" + "00000001" + "00000002" + "6162"},
		{mustArray(t, TInt4), "[0:0][1:2]={{5,NULL}}", "00000002" + "00000001" + "00000017" + "00000001" + "00000000" +
			"00000002" + "00000001" + "00000004" + "00000005" + "ffffffff"},
	}
	for _, tt := range tests {
		d, err := ParseText(tt.typ, tt.text)
		if err != nil {
			t.Fatal(err)
		}
		b, err := EncodeBinary(nil, tt.typ, d)
		if err != nil || hex.EncodeToString(b) != tt.hex {
			t.Errorf("EncodeBinary(%s %s) = %x, %v; want %s", tt.typ, tt.text, b, err, tt.hex)
		}
		back, err := DecodeBinary(tt.typ, b)
		if err != nil || !identical(back, d) {
			t.Errorf("DecodeBinary(%s, %x) = %s, %v", tt.typ, b, back, err)
		}
	}
}

func TestArrayBinaryErrors(t *testing.T) {
	ints := mustArray(t, TInt4)
	tests := []struct{ hex, code string }{
		{"000000010000000000000017", "22P03"},                                              // no dimension
		{"000000010000000000000014000000010000000100000008" + "0000000000000001", "42804"}, // int8 elements
		{"00000007000000000000001700000001000000010000000400000001", "22P03"},              // seven dimensions
		{"00000001000000000000001700000001000000010000000200000001", "22P03"},              // short element
		{"000000010000000000000017000000010000000100000004000000010000", "22P03"},          // trailing bytes
	}
	for _, tt := range tests {
		b, _ := hex.DecodeString(tt.hex)
		if _, err := DecodeBinary(ints, b); pgerror.From(err).Code != tt.code {
			t.Errorf("DecodeBinary(%s): %v, want %s", tt.hex, err, tt.code)
		}
	}
}

func TestArrayCast(t *testing.T) {
	tests := []struct {
		from, to string
		in, want string
	}{
		{"numeric[]", "int[]", "{1.5,2,NULL}", "{2,2,NULL}"},
		{"text[]", "varchar(1)[]", "{x,yz}", "{x,y}"},
		{"int[]", "text", "{1,2}", "{1,2}"},
		{"text", "int[]", "{3}", "{3}"},
		{"int2[]", "int8[]", "{-1}", "{-1}"},
	}
	for _, tt := range tests {
		from, _ := ParseTypeName(tt.from)
		to, _ := ParseTypeName(tt.to)
		d, err := ParseText(from, tt.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Cast(d, from, to)
		if err != nil || string(FormatText(nil, to, got)) != tt.want {
			t.Errorf("%s::%s::%s = %s, %v; want %s", tt.in, tt.from, tt.to, FormatText(nil, to, got), err, tt.want)
		}
	}
	if CanCast(mustArray(t, TInt4), mustArray(t, TBytea)) || CanCast(mustArray(t, TInt4), TInt4) {
		t.Error("CanCast allows a cast PostgreSQL lacks")
	}
}

func TestArrayCompare(t *testing.T) {
	ints := mustArray(t, TInt4)
	tests := []struct {
		a, b string
		want int
	}{
		{"{1,2}", "{1,2,3}", -1}, {"{1,NULL}", "{1,NULL}", 0}, {"{1,NULL}", "{1,5}", 1}, {"{}", "{1}", -1},
		{"{2}", "{1,5}", 1}, {"{}", "{}", 0},
		// Then by dimensions and lower bounds, as array_cmp.
		{"{1,2,3,4}", "{{1,2},{3,4}}", -1}, {"{{1,2},{3,4}}", "{{1,2},{3,4}}", 0}, {"{{1,2},{3,4}}", "{{1,2,3,4}}", 1},
		{"{{1,2},{3,5}}", "{1,2,3,4,5}", 1}, {"[0:1]={1,2}", "{1,2}", -1}, {"[0:1]={1,2}", "[0:1]={1,2}", 0},
	}
	for _, tt := range tests {
		a, _ := ParseText(ints, tt.a)
		b, _ := ParseText(ints, tt.b)
		if got := Compare(a, b); got != tt.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestArrayDimsRoundTrip checks that arrays with dimensions survive the
// row and key encodings and keep one key per Compare class.
func TestArrayDimsRoundTrip(t *testing.T) {
	ints := mustArray(t, TInt4)
	var keys [][]byte
	for _, in := range []string{"{1,2,3,4}", "{{1,2},{3,4}}", "[0:1][5:6]={{1,2},{3,4}}", "[0:3]={1,2,3,4}", "{}", "{{NULL}}"} {
		d, err := ParseText(ints, in)
		if err != nil {
			t.Fatal(err)
		}
		row, err := DecodeRow(AppendRow(nil, []Datum{d, NewInt(7)}), []T{ints, TInt4}, nil)
		if err != nil || len(row) != 2 || !identical(row[0], d) || row[1].Int() != 7 {
			t.Errorf("row round trip of %s: %v, %v", in, row, err)
		}
		for _, desc := range []bool{false, true} {
			k := AppendKey(nil, d, desc)
			back, rest, err := DecodeKey(ints, k, desc)
			if err != nil || len(rest) != 0 || Compare(back, d) != 0 || string(FormatText(nil, ints, back)) != in {
				t.Errorf("key round trip of %s (desc %v): %s, %v", in, desc, FormatText(nil, ints, back), err)
			}
		}
		for _, k := range keys {
			if string(k) == string(AppendKey(nil, d, false)) {
				t.Errorf("%s shares a key with another array", in)
			}
		}
		keys = append(keys, AppendKey(nil, d, false))
	}
}

// TestDatumSize guards the size of Datum, which every row is made of.
func TestDatumSize(t *testing.T) {
	if size := unsafe.Sizeof(Datum{}); size != 40 {
		t.Errorf("Datum is %d bytes, want 40", size)
	}
	if size := unsafe.Sizeof(T{}); size != 8 {
		t.Errorf("T is %d bytes, want 8", size)
	}
}
