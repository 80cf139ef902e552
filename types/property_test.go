package types

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

func forEachFamily(t *testing.T, f func(t *rapid.T, typ T)) {
	for _, typ := range testFamilies {
		t.Run(typ.String(), rapid.MakeCheck(func(rt *rapid.T) { f(rt, typ) }))
	}
}

func TestPropertyTextRoundTrip(t *testing.T) {
	forEachFamily(t, func(rt *rapid.T, typ T) {
		d := genDatum(typ).Draw(rt, "d")
		text := string(FormatText(nil, typ, d))
		back, err := ParseText(typ, text)
		if err != nil {
			rt.Fatalf("ParseText(%s, %q): %v", typ, text, err)
		}
		if !identical(d, back) {
			rt.Fatalf("%s: %q read back as %q", typ, text, FormatText(nil, typ, back))
		}
	})
}

func TestPropertyBinaryRoundTrip(t *testing.T) {
	forEachFamily(t, func(rt *rapid.T, typ T) {
		d := genDatum(typ).Draw(rt, "d")
		b, err := EncodeBinary(nil, typ, d)
		if err != nil {
			rt.Fatalf("EncodeBinary: %v", err)
		}
		back, err := DecodeBinary(typ, b)
		if err != nil {
			rt.Fatalf("DecodeBinary(%s, %x): %v", typ, b, err)
		}
		if !identical(d, back) {
			rt.Fatalf("%s: %s read back as %s", typ, d, back)
		}
	})
}

func TestPropertyKeyOrder(t *testing.T) {
	forEachFamily(t, func(rt *rapid.T, typ T) {
		gen := rapid.OneOf(genDatum(typ), rapid.Just(Null))
		a, b := gen.Draw(rt, "a"), gen.Draw(rt, "b")
		want := Compare(a, b)
		if got := bytes.Compare(AppendKey(nil, a, false), AppendKey(nil, b, false)); got != want {
			rt.Fatalf("asc: key order %d, Compare %d for %s vs %s", got, want, a, b)
		}
		if got := bytes.Compare(AppendKey(nil, a, true), AppendKey(nil, b, true)); got != -want {
			rt.Fatalf("desc: key order %d, Compare %d for %s vs %s", got, want, a, b)
		}
	})
}

func TestPropertyKeyRoundTrip(t *testing.T) {
	forEachFamily(t, func(rt *rapid.T, typ T) {
		gen := rapid.OneOf(genDatum(typ), rapid.Just(Null))
		a, b := gen.Draw(rt, "a"), gen.Draw(rt, "b")
		desc := rapid.Bool().Draw(rt, "desc")
		key := AppendKey(AppendKey(nil, a, desc), b, !desc)
		gotA, rest, err := DecodeKey(typ, key, desc)
		if err != nil {
			rt.Fatalf("DecodeKey(%x): %v", key, err)
		}
		gotB, rest, err := DecodeKey(typ, rest, !desc)
		if err != nil || len(rest) != 0 {
			rt.Fatalf("DecodeKey second value: %v, %d bytes left", err, len(rest))
		}
		if Compare(a, gotA) != 0 || Compare(b, gotB) != 0 {
			rt.Fatalf("decoded %s, %s; want %s, %s", gotA, gotB, a, b)
		}
		if !bytes.Equal(AppendKey(nil, gotA, desc), AppendKey(nil, a, desc)) {
			rt.Fatalf("re-encoding %s changed its key", gotA)
		}
	})
}

func TestPropertyRowRoundTrip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(rt, "n")
		row := make([]Datum, n)
		types := make([]T, n+rapid.IntRange(0, 2).Draw(rt, "added"))
		for i := range types {
			types[i] = rapid.SampledFrom(testFamilies).Draw(rt, "type")
			if i < n {
				row[i] = rapid.OneOf(genDatum(types[i]), rapid.Just(Null)).Draw(rt, "d")
			}
		}
		src := AppendRow([]byte{0xee}, row)[1:]
		got, err := DecodeRow(src, types, nil)
		if err != nil {
			rt.Fatalf("DecodeRow: %v", err)
		}
		for i := range src {
			src[i] = 0 // decoded strings must not alias the buffer
		}
		if len(got) != len(types) {
			rt.Fatalf("got %d values, want %d", len(got), len(types))
		}
		for i := range types {
			want := Null
			if i < n {
				want = row[i]
			}
			if !identical(got[i], want) {
				rt.Fatalf("column %d: got %s, want %s", i, got[i], want)
			}
		}
	})
}

func TestPropertyCompareIsTotalOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		gen := rapid.Custom(func(rt *rapid.T) Datum {
			typ := rapid.SampledFrom([]T{TInt8, TFloat8, TNumeric, TDate, TTimestamp}).Draw(rt, "type")
			return rapid.OneOf(genDatum(typ), rapid.Just(Null)).Draw(rt, "d")
		})
		a, b, c := gen.Draw(rt, "a"), gen.Draw(rt, "b"), gen.Draw(rt, "c")
		if Compare(a, b) != -Compare(b, a) {
			rt.Fatalf("not antisymmetric: %s, %s", a, b)
		}
		if Compare(a, b) <= 0 && Compare(b, c) <= 0 && Compare(a, c) > 0 {
			rt.Fatalf("not transitive: %s <= %s <= %s but %s > %s", a, b, c, a, c)
		}
	})
}
