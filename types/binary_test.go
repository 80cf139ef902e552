package types

import (
	"encoding/hex"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestBinaryFormat checks EncodeBinary against PostgreSQL's send output and
// DecodeBinary back.
func TestBinaryFormat(t *testing.T) {
	tests := []struct {
		typ  T
		text string
		wire string // hex
	}{
		{TBool, "t", "01"},
		{TInt2, "-2", "fffe"},
		{TInt4, "-2", "fffffffe"},
		{TInt8, "1", "0000000000000001"},
		{TOid, "4294967295", "ffffffff"},
		{TFloat4, "1.5", "3fc00000"},
		{TFloat8, "1.5", "3ff8000000000000"},
		{TNumeric, "1234.5678", "0002000000000004" + "04d2162e"},
		{TNumeric, "0.01", "0001ffff00000002" + "0064"},
		{TNumeric, "10000", "0001000100000000" + "0001"},
		{TNumeric, "-12345678.9", "0003000140000001" + "04d2162e2328"},
		{TNumeric, "2.50", "0002000000000002" + "00021388"},
		{TNumeric, "0.00", "0000000000000002"},
		{TNumeric, "0", "0000000000000000"},
		{TNumeric, "NaN", "00000000c0000000"},
		{TNumeric, "Infinity", "00000000d0000000"},
		{TNumeric, "-Infinity", "00000000f0000000"},
		{TNumeric, "100000000", "0001000200000000" + "0001"},
		{TNumeric, "0.00001", "0001fffe00000005" + "03e8"},
		{TText, "héllo", hex.EncodeToString([]byte("héllo"))},
		{TBytea, `\x00ff`, "00ff"},
		{TDate, "2000-01-01", "00000000"},
		{TDate, "1999-12-31", "ffffffff"},
		{TDate, "infinity", "7fffffff"},
		{TDate, "-infinity", "80000000"},
		{TTime, "00:00:01", "00000000000f4240"},
		{TTimestamp, "2000-01-01 00:00:01", "00000000000f4240"},
		{TTimestampTZ, "1999-12-31 23:59:59+00", "fffffffffff0bdc0"},
		{TTimestamp, "infinity", "7fffffffffffffff"},
		{TInterval, "1 mon 2 days 00:00:00.000003", "0000000000000003" + "00000002" + "00000001"},
		{TJsonb, `{"a":1}`, "01" + hex.EncodeToString([]byte(`{"a": 1}`))},
	}
	for _, tt := range tests {
		d, err := ParseText(tt.typ, tt.text)
		if err != nil {
			t.Fatalf("ParseText(%s, %q): %v", tt.typ, tt.text, err)
		}
		b, err := EncodeBinary(nil, tt.typ, d)
		if err != nil || hex.EncodeToString(b) != tt.wire {
			t.Errorf("EncodeBinary(%s %q) = %x, %v; want %s", tt.typ, tt.text, b, err, tt.wire)
			continue
		}
		back, err := DecodeBinary(tt.typ, b)
		if err != nil || !identical(back, d) {
			t.Errorf("DecodeBinary(%s, %x) = %s, %v; want %s", tt.typ, b, back, err, d)
		}
	}
}

func TestDecodeBinaryModifiersAndErrors(t *testing.T) {
	tests := []struct {
		typ  T
		wire string
		want string // text, or "CODE message"
	}{
		{TNumeric, "0001ffff00000001" + "04d2", "0.1"}, // digits beyond dscale are truncated
		{T{Family: Numeric, Mod: NumericMod(3, 1)}, "0002000000000002" + "00011388", "1.5"},
		{T{Family: Numeric, Mod: NumericMod(3, 2)}, "0001000100000000" + "0001", "22003 numeric field overflow"},
		{T{Family: Bpchar, Mod: 3}, "6162", "ab "},
		{T{Family: Varchar, Mod: 1}, "6162", "22001 value too long for type character varying(1)"},
		{TText, "ff", "22021 invalid byte sequence for encoding \"UTF8\": 0xff"},
		{TInt4, "000001", "22P03 incorrect binary data format"},
		{TInt8, "", "22P03 incorrect binary data format"},
		{TNumeric, "00010000", "22P03 incorrect binary data format"},
		{TNumeric, "0001000000000000", "22P03 incorrect binary data format"},
		{TNumeric, "0001000012340000" + "0001", "22P03 invalid sign in external \"numeric\" value"},
		{TNumeric, "0001000000000000" + "2710", "22P03 invalid digit in external \"numeric\" value"},
		{TTime, "ffffffffffffffff", "22008 time out of range"},
		{TDate, "7ffffff0", "22008 date out of range"},
		{TJsonb, "027b7d", "22P03 unsupported jsonb version number"},
		{TJsonb, "017b", "22P02 invalid input syntax for type json"},
	}
	for _, tt := range tests {
		b, _ := hex.DecodeString(tt.wire)
		d, err := DecodeBinary(tt.typ, b)
		got := string(FormatText(nil, tt.typ, d))
		if err != nil {
			pe := pgerror.From(err)
			got = pe.Code + " " + pe.Message
		}
		if got != tt.want {
			t.Errorf("DecodeBinary(%s, %s) = %q, want %q", tt.typ, tt.wire, got, tt.want)
		}
	}
}

func TestEncodeBinaryKindMismatch(t *testing.T) {
	for _, d := range []Datum{Null, NewString("1")} {
		if _, err := EncodeBinary(nil, TInt4, d); pgerror.Code(err) != pgerror.CodeInternal {
			t.Errorf("EncodeBinary(int4, %s): error %v, want XX000", d, err)
		}
	}
}
