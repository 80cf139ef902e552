package types

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestCast(t *testing.T) {
	num52 := T{Family: Numeric, Mod: NumericMod(5, 2)}
	tests := []struct {
		from   T
		in     string // ParseText input of the source value
		to     T
		want   string // FormatText of the result, or the error "CODE message"
		assign bool
	}{
		{TInt4, "40000", TInt2, "22003 smallint out of range", false},
		{TInt8, "3000000000", TInt4, "22003 integer out of range", false},
		{TInt2, "-5", TInt8, "-5", false},
		{TFloat8, "2.5", TInt4, "2", false},
		{TFloat8, "3.5", TInt4, "4", false},
		{TFloat8, "-2.5", TInt4, "-2", false},
		{TFloat8, "1e10", TInt4, "22003 integer out of range", false},
		{TFloat8, "NaN", TInt4, "22003 integer out of range", false},
		{TFloat8, "9.2233720368547758e18", TInt8, "22003 bigint out of range", false},
		{TFloat8, "-9.2233720368547758e18", TInt8, "-9223372036854775808", false},
		{TFloat4, "32767.6", TInt2, "22003 smallint out of range", false},
		{TNumeric, "2.5", TInt4, "3", false},
		{TNumeric, "-2.5", TInt4, "-3", false},
		{TNumeric, "NaN", TInt4, "0A000 cannot convert NaN to integer", false},
		{TNumeric, "-Infinity", TInt8, "0A000 cannot convert infinity to bigint", false},
		{TNumeric, "99999", TInt2, "22003 smallint out of range", false},
		{TNumeric, "1e30", TInt8, "22003 bigint out of range", false},
		{TInt4, "123", num52, "123.00", false},
		{TInt4, "1234", num52, "22003 numeric field overflow", false},
		{TNumeric, "12.345", T{Family: Numeric, Mod: NumericMod(3, 1)}, "12.3", false},
		{TFloat8, "0.1", TNumeric, "0.1", false},
		{TFloat8, "0.3333333333333333", TNumeric, "0.333333333333333", false},
		{TFloat8, "1e20", TNumeric, "100000000000000000000", false},
		{TFloat8, "1.5e-7", TNumeric, "0.00000015", false},
		{TFloat8, "-Infinity", TNumeric, "-Infinity", false},
		{TFloat4, "0.1", TNumeric, "0.1", false},
		{TFloat4, "3.14159274", TNumeric, "3.14159", false},
		{TFloat8, "1e300", TFloat4, "22003 value out of range: overflow", false},
		{TFloat8, "1e-300", TFloat4, "22003 value out of range: underflow", false},
		{TFloat8, "0.1", TFloat4, "0.1", false},
		{TFloat4, "0.1", TFloat8, "0.10000000149011612", false},
		{TNumeric, "0.1", TFloat8, "0.1", false},
		{TNumeric, "1e39", TFloat4, "22003 \"1000000000000000000000000000000000000000\" is out of range for type real", false},
		{TInt8, "16777217", TFloat4, "1.6777216e+07", false},
		{TInt4, "0", TBool, "f", false},
		{TInt4, "5", TBool, "t", false},
		{TBool, "t", TInt4, "1", false},
		{TBool, "t", TText, "true", false},
		{TBool, "f", TVarchar, "false", false},
		{TBool, "t", T{Family: Varchar, Mod: 2}, "tr", false},
		{TBool, "t", T{Family: Varchar, Mod: 2}, "22001 value too long for type character varying(2)", true},
		{T{Family: Bpchar, Mod: 5}, "ab", TText, "ab", false},
		{T{Family: Bpchar, Mod: 5}, "ab", TVarchar, "ab", false},
		{T{Family: Bpchar, Mod: 5}, "ab", T{Family: Bpchar, Mod: 3}, "ab ", false},
		{TText, "ab", T{Family: Bpchar, Mod: 5}, "ab   ", false},
		{TText, "abcdef", T{Family: Varchar, Mod: 3}, "abc", false},
		{TText, "abcdef", T{Family: Varchar, Mod: 3}, "22001 value too long for type character varying(3)", true},
		{TText, "abc   ", T{Family: Varchar, Mod: 3}, "abc", true},
		{TText, "abcdef", T{Family: Bpchar, Mod: 3}, "22001 value too long for type character(3)", true},
		{TText, "12", TInt4, "12", false},
		{TText, " 12 ", TInt4, "12", false},
		{TText, "x", TInt4, "22P02 invalid input syntax for type integer: \"x\"", false},
		{TVarchar, "2024-01-02", TDate, "2024-01-02", false},
		{TText, `\x01`, TBytea, `\x01`, false},
		{TUnknown, "7", TInt4, "7", false},
		{TText, `{"b":1,"a":2}`, TJsonb, `{"a": 2, "b": 1}`, false},
		{TInt4, "42", TText, "42", false},
		{TFloat4, "0.1", TText, "0.1", false},
		{TNumeric, "2.50", TText, "2.50", false},
		{TInterval, "1 day", TText, "1 day", false},
		{TBytea, `\x01`, TText, `\x01`, false},
		{TDate, "2024-01-02", TTimestamp, "2024-01-02 00:00:00", false},
		{TDate, "2024-01-02", TTimestampTZ, "2024-01-02 00:00:00+00", false},
		{TDate, "infinity", TTimestamp, "infinity", false},
		{TDate, "5874897-01-01", TTimestamp, "22008 date out of range for timestamp", false},
		{TTimestamp, "2024-01-02 23:00", TDate, "2024-01-02", false},
		{TTimestamp, "1969-12-31 23:00", TDate, "1969-12-31", false},
		{TTimestampTZ, "-infinity", TDate, "-infinity", false},
		{TTimestampTZ, "2024-01-02 03:04:05+02", TTimestamp, "2024-01-02 01:04:05", false},
		{TTimestamp, "2024-01-02 03:04:05.5", T{Family: Timestamp, Mod: 0}, "2024-01-02 03:04:06", false},
		{TTimestamp, "2024-01-02 03:04:05", TTime, "03:04:05", false},
		{TTimestamp, "1969-12-31 23:00", TTime, "23:00:00", false},
		{TTimestamp, "infinity", TTime, "", false},
		{TInterval, "25:30:00", TTime, "01:30:00", false},
		{TInterval, "-1 hour", TTime, "23:00:00", false},
		{TInterval, "1 day 02:00", TTime, "02:00:00", false},
		{TTime, "03:04:05", TInterval, "03:04:05", false},
		{TTime, "03:04:05.678", T{Family: Time, Mod: 1}, "03:04:05.7", false},
		{TJsonb, "1.6", TInt4, "2", false},
		{TJsonb, `"x"`, TInt4, "22023 cannot cast jsonb string to type integer", false},
		{TJsonb, "null", TInt8, "22023 cannot cast jsonb null to type bigint", false},
		{TJsonb, "true", TBool, "t", false},
		{TJsonb, "1", TBool, "22023 cannot cast jsonb number to type boolean", false},
		{TJsonb, "2.50", TNumeric, "2.50", false},
		{TJsonb, "2.555", num52, "2.56", false},
		{TJsonb, "0.1", TFloat8, "0.1", false},
		{TJsonb, "[1]", TFloat4, "22023 cannot cast jsonb array to type real", false},
		{TOid, "4294967295", TInt4, "-1", false},
		{TOid, "4294967295", TInt8, "4294967295", false},
		{TInt8, "-1", TOid, "22003 OID out of range", false},
		{TInt4, "-1", TOid, "4294967295", false},
		{TInt4, "1", TDate, "42846 cannot cast type integer to date", false},
		{TBool, "t", TInt8, "42846 cannot cast type boolean to bigint", false},
		{TDate, "2024-01-02", TTime, "42846 cannot cast type date to time without time zone", false},
		{TBytea, `\x01`, TInt4, "42846 cannot cast type bytea to integer", false},
	}
	for _, tt := range tests {
		d, err := ParseText(tt.from, tt.in)
		if err != nil {
			t.Fatalf("ParseText(%s, %q): %v", tt.from, tt.in, err)
		}
		cast := Cast
		if tt.assign {
			cast = CastAssign
		}
		got, err := cast(d, tt.from, tt.to)
		var gotText string
		if err != nil {
			pe := pgerror.From(err)
			gotText = pe.Code + " " + pe.Message
		} else {
			gotText = string(FormatText(nil, tt.to, got))
		}
		if gotText != tt.want {
			t.Errorf("cast %q::%s to %s (assign %v) = %q, want %q", tt.in, tt.from, tt.to, tt.assign, gotText, tt.want)
		}
	}
}

func TestCastNull(t *testing.T) {
	if d, err := Cast(Null, TInt4, TInt8); err != nil || !d.IsNull() {
		t.Errorf("NULL::int4::int8 = %v, %v; want NULL", d, err)
	}
	if _, err := Cast(Null, TInt4, TDate); pgerror.Code(err) != "42846" {
		t.Errorf("NULL::int4::date: error %v, want 42846", err)
	}
}
