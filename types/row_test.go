package types

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestRowEncoding(t *testing.T) {
	row := []Datum{NewInt(-1), Null, NewString("ab"), NewBool(true)}
	got := hex.EncodeToString(AppendRow(nil, row))
	// count 4; int zigzag(-1)=1; NULL; string len 2 "ab"; bool true
	if want := "04" + "0201" + "00" + "05026162" + "0101"; got != want {
		t.Errorf("AppendRow = %s, want %s", got, want)
	}
}

// TestRowUnchanged round-trips Unchanged in a row of any column types.
func TestRowUnchanged(t *testing.T) {
	row := []Datum{NewInt(1), Unchanged, Unchanged}
	got, err := DecodeRow(AppendRow(nil, row), []T{TInt4, TText, TNumeric}, nil)
	if err != nil || len(got) != 3 || !got[1].IsUnchanged() || !got[2].IsUnchanged() || got[0].Int() != 1 {
		t.Fatalf("DecodeRow = %v, %v; want [1 UNCHANGED UNCHANGED]", got, err)
	}
}

func TestDecodeRowErrors(t *testing.T) {
	types := []T{TInt4, TText}
	tests := []string{
		"",           // no count
		"03000000",   // more values than columns
		"0105",       // a string where an integer belongs
		"0102",       // truncated varint
		"01020101",   // trailing bytes
		"020200050a", // string longer than the row
		"0140",       // unknown kind
	}
	for _, tt := range tests {
		src, _ := hex.DecodeString(tt)
		if _, err := DecodeRow(src, types, nil); pgerror.Code(err) != pgerror.CodeInternal {
			t.Errorf("DecodeRow(%s): error %v, want XX000", tt, err)
		}
	}
}

func TestDecodeRowAllocations(t *testing.T) {
	types := []T{TInt8, TFloat8, TText, TTimestamp, TVarchar, TBool}
	src := AppendRow(nil, []Datum{NewInt(7), NewFloat(1.5), NewString("some text"), NewTimestamp(99),
		NewString("more"), NewBool(false)})
	dst := make([]Datum, 0, len(types))
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if dst, err = DecodeRow(src, types, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Errorf("DecodeRow allocates %.0f times per row, want at most 1 (the strings' copy)", allocs)
	}
}

func TestDecodeRowBlock(t *testing.T) {
	types := []T{TInt8, TText}
	rows := [][]Datum{{NewInt(1), NewString("a")}, {NewInt(2), Null}, {NewInt(3)}}
	var block []byte
	for _, r := range rows {
		block = AppendRow(block, r)
	}
	var got []string
	err := DecodeRowBlock(block, types, func(row []Datum) error {
		got = append(got, string(FormatText(FormatText(nil, TInt8, row[0]), TText, row[1])))
		return nil
	})
	// NULL formats as nothing; a row written with fewer columns decodes
	// with NULLs for the rest.
	if want := []string{"1a", "2", "3"}; err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("DecodeRowBlock = %v, %v; want %v", got, err, want)
	}
	for _, bad := range [][]byte{block[:len(block)-1], append(slices.Clone(block), 0x40)} {
		if err := DecodeRowBlock(bad, types, func([]Datum) error { return nil }); pgerror.Code(err) != pgerror.CodeInternal {
			t.Errorf("DecodeRowBlock(%x): error %v, want XX000", bad, err)
		}
	}
}

func TestIdentical(t *testing.T) {
	tests := []struct {
		typ  T
		a, b string
		want bool
	}{
		{TNumeric, "1.50", "1.50", true},
		{TNumeric, "1.50", "1.500", false},
		{TNumeric, "NaN", "NaN", true},
		{TNumeric, "Infinity", "-Infinity", false},
		{TFloat8, "0", "-0", false},
		{TFloat8, "NaN", "NaN", true},
		{TInterval, "1 day", "24 hours", false},
		{TInterval, "1 day", "1 day", true},
		{TText, "a", "a ", false},
		{TTimestamp, "2020-01-01", "2020-01-01", true},
	}
	for _, tt := range tests {
		a, err := ParseText(tt.typ, tt.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseText(tt.typ, tt.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := Identical(a, b); got != tt.want {
			t.Errorf("Identical(%s %q, %q) = %v, want %v", tt.typ, tt.a, tt.b, got, tt.want)
		}
	}
	if !Identical(Null, Null) || Identical(Null, NewInt(0)) {
		t.Error("NULL is identical to NULL only")
	}
}
