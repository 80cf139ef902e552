package types

import (
	"bytes"
	"encoding/hex"
	"math"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestKeyEncodingEqualities(t *testing.T) {
	dec := func(s string) Datum {
		d, err := ParseText(TNumeric, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct{ a, b Datum }{
		{NewFloat(math.Copysign(0, -1)), NewFloat(0)},
		{NewFloat(math.NaN()), NewFloat(-math.NaN())},
		{dec("2.5"), dec("2.50")},
		{dec("100"), dec("1e2")},
		{dec("-0.0"), dec("0")},
		{NewInterval(IntervalValue{Months: 1}), NewInterval(IntervalValue{Days: 30})},
		{NewInterval(IntervalValue{Days: 1}), NewInterval(IntervalValue{Micros: usecsPerDay})},
	}
	for _, tt := range tests {
		ka, kb := AppendKey(nil, tt.a, false), AppendKey(nil, tt.b, false)
		if !bytes.Equal(ka, kb) {
			t.Errorf("keys of %s and %s differ: %x vs %x", tt.a, tt.b, ka, kb)
		}
	}
}

func TestKeyDecodesCanonically(t *testing.T) {
	tests := []struct {
		typ      T
		in, want string
	}{
		{TNumeric, "2.50", "2.5"},
		{TNumeric, "1e2", "100"},
		{TNumeric, "-0.00120", "-0.0012"},
		{TInterval, "45 days", "1 mon 15 days"},
		{TInterval, "1 day 25:00:00", "2 days 01:00:00"},
		{TInterval, "-1 hour", "-1 days +23:00:00"},
		{TText, "a\x00b", "a\x00b"},
	}
	for _, tt := range tests {
		d := NewString(tt.in)
		if tt.typ.Family != Text {
			var err error
			if d, err = ParseText(tt.typ, tt.in); err != nil {
				t.Fatal(err)
			}
		}
		got, rest, err := DecodeKey(tt.typ, AppendKey(nil, d, true), true)
		if err != nil || len(rest) != 0 || string(FormatText(nil, tt.typ, got)) != tt.want {
			t.Errorf("DecodeKey(AppendKey(%q)) = %q, %v; want %q", tt.in, FormatText(nil, tt.typ, got), err, tt.want)
		}
	}
}

func TestDecodeKeyErrors(t *testing.T) {
	tests := []struct {
		typ T
		key string // hex
	}{
		{TInt4, ""},
		{TInt4, "11000000"},
		{TInt4, "19610001"},    // a string under an integer column
		{TText, "196100"},      // unterminated
		{TText, "19610002"},    // bad escape
		{TNumeric, "16800000"}, // no digits
		{TNumeric, "168000000100"},
		{TInt4, "ee"},
	}
	for _, tt := range tests {
		key, _ := hex.DecodeString(tt.key)
		if _, _, err := DecodeKey(tt.typ, key, false); pgerror.Code(err) != pgerror.CodeInternal {
			t.Errorf("DecodeKey(%s, %s): error %v, want XX000", tt.typ, tt.key, err)
		}
	}
}
