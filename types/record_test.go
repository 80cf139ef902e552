package types

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestRecords(t *testing.T) {
	inner := RecordOf([]Field{{"x", TInt4}, {"s", TText}})
	rt := RecordOf([]Field{{"a", TInt4}, {"b", TText}, {"c", TNumeric}, {"d", inner}, {"e", TText}})
	if again := RecordOf(rt.Fields()); again != rt {
		t.Fatalf("interning: %v != %v", again, rt)
	}
	dec, _, _ := apd.NewFromString("1.50")
	v := NewRecord([]Datum{NewInt(1), NewString("a b"), NewDecimal(dec),
		NewRecord([]Datum{NewInt(2), NewString(`x"y\z`)}), NewString("")})
	null := NewRecord([]Datum{Null, Null, Null, Null, Null})

	for _, tc := range []struct {
		v    Datum
		text string
	}{
		{v, `(1,"a b",1.50,"(2,""x""""y\\\\z"")","")`},
		{null, "(,,,,)"},
	} {
		if got := string(FormatText(nil, rt, tc.v)); got != tc.text {
			t.Errorf("text: got %s, want %s", got, tc.text)
		}
		// Rows and keys keep records whole.
		row, err := DecodeRow(AppendRow(nil, []Datum{tc.v}), []T{rt}, nil)
		if err != nil || !Identical(row[0], tc.v) {
			t.Errorf("row round trip of %s: %v %v", tc.text, row, err)
		}
		key, rest, err := DecodeKey(rt, AppendKey(nil, tc.v, true), true)
		if err != nil || len(rest) != 0 || Compare(key, tc.v) != 0 {
			t.Errorf("key round trip of %s: %v %v", tc.text, key, err)
		}
	}
	// Records order field by field, NULL fields last.
	a, b := NewRecord([]Datum{NewInt(1), Null}), NewRecord([]Datum{NewInt(1), NewInt(5)})
	if Compare(a, b) <= 0 || bytes.Compare(AppendKey(nil, a, false), AppendKey(nil, b, false)) <= 0 {
		t.Errorf("(1,NULL) should sort after (1,5)")
	}
	// record_send: field count, then each field's OID, length and value.
	bin, err := EncodeBinary(nil, RecordOf([]Field{{"a", TInt4}, {"b", TText}}), NewRecord([]Datum{NewInt(7), Null}))
	if want := "00000002" + "00000017" + "00000004" + "00000007" + "00000019" + "ffffffff"; err != nil || hex.EncodeToString(bin) != want {
		t.Errorf("binary: %x %v, want %s", bin, err, want)
	}
	if _, err := ParseText(rt, "(1,a)"); err == nil {
		t.Errorf("anonymous record input should be refused")
	}
	if _, err := rt.FieldIndex("zz"); err == nil {
		t.Errorf("unknown field found")
	}
	if i, err := rt.FieldIndex("c"); err != nil || i != 2 {
		t.Errorf("FieldIndex(c) = %d, %v", i, err)
	}
}
