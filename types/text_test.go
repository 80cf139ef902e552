package types

import (
	"math"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestParseFormatText checks ParseText then FormatText against PostgreSQL
// 15's output for the same '...'::type literal.
// textCase is a value's text input for a type and its output as
// PostgreSQL 15 prints it.
type textCase struct {
	typ      T
	in, want string
}

// checkText parses each case's input and compares its formatted output.
func checkText(t *testing.T, tests []textCase) {
	t.Helper()
	for _, tt := range tests {
		d, err := ParseText(tt.typ, tt.in)
		if err != nil {
			t.Errorf("ParseText(%s, %q): %v", tt.typ, tt.in, err)
			continue
		}
		if got := string(FormatText(nil, tt.typ, d)); got != tt.want {
			t.Errorf("%q::%s = %q, want %q", tt.in, tt.typ, got, tt.want)
		}
	}
}

func TestParseFormatText(t *testing.T) {
	varchar3, char3 := T{Family: Varchar, Mod: 3}, T{Family: Bpchar, Mod: 3}
	num52, ts0, ts3 := T{Family: Numeric, Mod: NumericMod(5, 2)}, T{Family: Timestamp, Mod: 0}, T{Family: TimestampTZ, Mod: 3}
	tests := []textCase{
		{TBool, "t", "t"}, {TBool, " TRUE ", "t"}, {TBool, "tr", "t"}, {TBool, "yes", "t"}, {TBool, "on", "t"},
		{TBool, "1", "t"}, {TBool, "f", "f"}, {TBool, "FALSE", "f"}, {TBool, "n", "f"}, {TBool, "off", "f"},
		{TBool, "of", "f"}, {TBool, "0", "f"},
		{TInt2, "-32768", "-32768"}, {TInt4, " +42 ", "42"}, {TInt4, "-0", "0"},
		{TInt8, "9223372036854775807", "9223372036854775807"}, {TOid, "4294967295", "4294967295"}, {TOid, "-1", "4294967295"},
		{TFloat8, "0.1", "0.1"}, {TFloat8, "1e15", "1e+15"}, {TFloat8, "123456789012345", "123456789012345"},
		{TFloat8, "9007199254740992", "9.007199254740992e+15"}, {TFloat8, "1e-5", "1e-05"}, {TFloat8, "0.0001", "0.0001"},
		{TFloat8, "1e100", "1e+100"}, {TFloat8, "-0", "-0"}, {TFloat8, "  NaN", "NaN"}, {TFloat8, "infinity", "Infinity"},
		{TFloat8, "-inf", "-Infinity"}, {TFloat8, "1.7976931348623157e308", "1.7976931348623157e+308"},
		{TFloat8, "0.30000000000000004", "0.30000000000000004"}, {TFloat8, "5e-324", "5e-324"},
		{TFloat4, "0.1", "0.1"}, {TFloat4, "1000000", "1e+06"}, {TFloat4, "123456", "123456"},
		{TFloat4, "3.4028235e38", "3.4028235e+38"}, {TFloat4, "123.456", "123.456"}, {TFloat4, "1.17549435e-38", "1.1754944e-38"},
		{TNumeric, "2.50", "2.50"}, {TNumeric, " -1.5e3 ", "-1500"}, {TNumeric, "1.50e1", "15.0"}, {TNumeric, "-0.00", "0.00"},
		{TNumeric, "0e99999999", "0"}, {TNumeric, "1e-16383", "0." + strings.Repeat("0", 16382) + "1"},
		{TNumeric, ".5", "0.5"}, {TNumeric, "5.", "5"}, {TNumeric, "1e-3", "0.001"}, {TNumeric, "nan", "NaN"},
		{TNumeric, "-Infinity", "-Infinity"}, {TNumeric, "+inf", "Infinity"}, {TNumeric, "000123.4500", "123.4500"},
		{num52, "123.456", "123.46"}, {num52, "-123.455", "-123.46"}, {num52, "1", "1.00"}, {num52, "999.994", "999.99"},
		{num52, "NaN", "NaN"}, {T{Family: Numeric, Mod: NumericMod(3, 0)}, "2.5", "3"},
		{TText, " a b ", " a b "}, {varchar3, "abc", "abc"}, {varchar3, "abc   ", "abc"}, {varchar3, "日本語", "日本語"},
		{char3, "ab", "ab "}, {char3, "abc  ", "abc"}, {TBpchar, "ab  ", "ab  "},
		{TName, "0123456789012345678901234567890123456789012345678901234567890123456789",
			"012345678901234567890123456789012345678901234567890123456789012"},
		{TBytea, `\x0102FF`, `\x0102ff`}, {TBytea, `\x01 02`, `\x0102`}, {TBytea, `\x`, `\x`},
		{TBytea, `a\\b\001`, `\x615c6201`}, {TBytea, "abc", `\x616263`},
		{TDate, "1999-01-08", "1999-01-08"}, {TDate, "January 8, 1999", "1999-01-08"}, {TDate, "1/8/1999", "1999-01-08"},
		{TDate, "1999-Jan-08", "1999-01-08"}, {TDate, "Jan-08-1999", "1999-01-08"}, {TDate, "08-Jan-1999", "1999-01-08"},
		{TDate, "19990108", "1999-01-08"}, {TDate, "1/8/99", "1999-01-08"}, {TDate, "1/8/24", "2024-01-08"},
		{TDate, "Fri Jan 8 1999", "1999-01-08"}, {TDate, "2024-01-02 03:04:05+02", "2024-01-02"},
		{TDate, "0044-03-15 BC", "0044-03-15 BC"}, {TDate, "0001-01-01 BC", "0001-01-01 BC"}, {TDate, "2000-02-29", "2000-02-29"},
		{TDate, "4714-11-24 BC", "4714-11-24 BC"}, {TDate, "5874897-12-31", "5874897-12-31"},
		{TDate, "epoch", "1970-01-01"}, {TDate, "infinity", "infinity"}, {TDate, "-infinity", "-infinity"},
		{TTime, "04:05:06.789", "04:05:06.789"}, {TTime, "04:05 PM", "16:05:00"}, {TTime, "12:00 am", "00:00:00"},
		{TTime, "12:30 pm", "12:30:00"}, {TTime, "04:05:06+02", "04:05:06"}, {TTime, "allballs", "00:00:00"},
		{TTime, "2024-01-02 04:05:06", "04:05:06"}, {TTime, "24:00:00", "24:00:00"}, {TTime, "00:00:00.000001", "00:00:00.000001"},
		{T{Family: Time, Mod: 2}, "04:05:06.789", "04:05:06.79"},
		{TTimestamp, "2024-01-02 03:04:05", "2024-01-02 03:04:05"}, {TTimestamp, "2024-01-02", "2024-01-02 00:00:00"},
		{TTimestamp, "2024-01-02T03:04:05Z", "2024-01-02 03:04:05"}, {TTimestamp, "2024-01-02 03:04:05+05", "2024-01-02 03:04:05"},
		{TTimestamp, "2024-01-02 03:04:05.1234567", "2024-01-02 03:04:05.123457"},
		{TTimestamp, "2024-01-02 23:59:59.9999999", "2024-01-03 00:00:00"}, {TTimestamp, "2024-01-02 24:00", "2024-01-03 00:00:00"},
		{TTimestamp, "Jan 2 2024 3:04pm", "2024-01-02 15:04:00"}, {TTimestamp, "2024-01-02 12:00 AM", "2024-01-02 00:00:00"},
		{TTimestamp, "4714-11-24 00:00:00 BC", "4714-11-24 00:00:00 BC"}, {TTimestamp, "epoch", "1970-01-01 00:00:00"},
		{TTimestamp, "infinity", "infinity"}, {TTimestamp, "-infinity", "-infinity"},
		{ts0, "2024-01-02 03:04:05.5", "2024-01-02 03:04:06"},
		{TTimestampTZ, "1999-01-08 04:05:06 -8:00", "1999-01-08 12:05:06+00"},
		{TTimestampTZ, "2024-01-02 03:04:05+02:00", "2024-01-02 01:04:05+00"},
		{TTimestampTZ, "2024-01-02T03:04:05.5-0730", "2024-01-02 10:34:05.5+00"},
		{TTimestampTZ, "2024-01-02 03:04:05 UTC", "2024-01-02 03:04:05+00"},
		{TTimestampTZ, "2024-01-02 03:04:05", "2024-01-02 03:04:05+00"},
		{TTimestampTZ, "0001-01-01 00:00:00+01 BC", "0002-12-31 23:00:00+00 BC"},
		{ts3, "2024-01-02 03:04:05.123456+00", "2024-01-02 03:04:05.123+00"},
		{TInterval, "1 day", "1 day"}, {TInterval, "1 hour 30 minutes", "01:30:00"}, {TInterval, "2 years 3 mons", "2 years 3 mons"},
		{TInterval, "01:02:03", "01:02:03"}, {TInterval, "1 day 02:03:04", "1 day 02:03:04"}, {TInterval, "P1DT2H", "1 day 02:00:00"},
		{TInterval, "-1 week", "-7 days"}, {TInterval, "-1 day 02:03:04", "-1 days +02:03:04"},
		{TInterval, "-1 day -02:03:04", "-1 days -02:03:04"}, {TInterval, "1 mon -1 day", "1 mon -1 days"},
		{TInterval, "-1 mon 1 day", "-1 mons +1 day"}, {TInterval, "1.5 years", "1 year 6 mons"},
		{TInterval, "1.5 months", "1 mon 15 days"}, {TInterval, "1.5 weeks", "10 days 12:00:00"},
		{TInterval, "1.5 days", "1 day 12:00:00"}, {TInterval, "1 day ago", "-1 days"}, {TInterval, "@ 3 secs", "00:00:03"},
		{TInterval, "10min", "00:10:00"}, {TInterval, "1-2", "1 year 2 mons"}, {TInterval, "0", "00:00:00"},
		{TInterval, "1.5", "00:00:01.5"}, {TInterval, "100 hours", "100:00:00"}, {TInterval, "1 millisecond", "00:00:00.001"},
		{TInterval, "2 microseconds", "00:00:00.000002"}, {TInterval, "3 decades", "30 years"},
		{TInterval, "2 centuries", "200 years"}, {TInterval, "1 millennium", "1000 years"},
		{TInterval, "1 y 1 mon 1 d 1 h 1 m 1 s", "1 year 1 mon 1 day 01:01:01"},
		{TInterval, "1 year 1 month 1 day 1 hour 1 minute 1 second", "1 year 1 mon 1 day 01:01:01"},
		{TInterval, "P1Y2M3DT4H5M6S", "1 year 2 mons 3 days 04:05:06"}, {TInterval, "PT1.5S", "00:00:01.5"},
		{TInterval, "P1W", "7 days"}, {TInterval, "1:2", "01:02:00"}, {TInterval, "1 2:03", "1 day 02:03:00"},
		{TInterval, "-1 years -2 mons +3 days -04:05:06", "-1 years -2 mons +3 days -04:05:06"},
		{TInterval, "1 year -1 mons", "11 mons"},
		{TJsonb, `{"b": [1, 2], "a": 1, "aa": {"x": null}, "a": 2.50}`, `{"a": 2.50, "b": [1, 2], "aa": {"x": null}}`},
		{TJsonb, ` [1e2, -0, 1.0E-2, "x\u00e9\n\u001f", true,false ,null] `, `[100, 0, 0.010, "xé\n\u001f", true, false, null]`},
		{TJsonb, `"\ud83d\ude00 \/"`, `"😀 /"`}, {TJsonb, `{}`, `{}`}, {TJsonb, `[]`, `[]`}, {TJsonb, `  42 `, `42`},
	}
	checkText(t, tests)
}

func TestParseTextErrors(t *testing.T) {
	tests := []struct {
		typ       T
		in        string
		code, msg string
	}{
		{TInt4, "abc", "22P02", `invalid input syntax for type integer: "abc"`},
		{TInt4, "1.5", "22P02", `invalid input syntax for type integer: "1.5"`},
		{TInt4, "2147483648", "22003", `value "2147483648" is out of range for type integer`},
		{TInt2, "", "22P02", `invalid input syntax for type smallint: ""`},
		{TInt8, "99999999999999999999", "22003", `value "99999999999999999999" is out of range for type bigint`},
		{TOid, "4294967296", "22003", `value "4294967296" is out of range for type oid`},
		{TBool, "maybe", "22P02", `invalid input syntax for type boolean: "maybe"`},
		{TBool, "o", "22P02", `invalid input syntax for type boolean: "o"`},
		{TFloat8, "1e400", "22003", `"1e400" is out of range for type double precision`},
		{TFloat8, "1e-400", "22003", `"1e-400" is out of range for type double precision`},
		{TFloat8, "abc", "22P02", `invalid input syntax for type double precision: "abc"`},
		{TFloat4, "1e40", "22003", `"1e40" is out of range for type real`},
		{TNumeric, "1.2.3", "22P02", `invalid input syntax for type numeric: "1.2.3"`},
		{TNumeric, "1e131072", "22003", "value overflows numeric format"},
		{TNumeric, "1.5e-16383", "22003", "value overflows numeric format"},
		{TNumeric, "0e-20000", "22003", "value overflows numeric format"},
		{TNumeric, "1e1073741823", "22003", "value overflows numeric format"},
		{TNumeric, "1e-99999999999", "22003", "value overflows numeric format"},
		{T{Family: Numeric, Mod: NumericMod(5, 2)}, "1234.5", "22003", "numeric field overflow"},
		{T{Family: Numeric, Mod: NumericMod(5, 2)}, "Infinity", "22003", "numeric field overflow"},
		{T{Family: Varchar, Mod: 3}, "abcd", "22001", "value too long for type character varying(3)"},
		{T{Family: Bpchar, Mod: 3}, "abcd", "22001", "value too long for type character(3)"},
		{TText, "a\x00b", "22021", `invalid byte sequence for encoding "UTF8": 0x00`},
		{TText, "a\xffb", "22021", `invalid byte sequence for encoding "UTF8": 0xff`},
		{TBytea, `\xzz`, "22023", `invalid hexadecimal digit: "z"`},
		{TBytea, `\x123`, "22023", "invalid hexadecimal data: odd number of digits"},
		{TBytea, `\q`, "22P02", "invalid input syntax for type bytea"},
		{TDate, "2024-13-01", "22008", `date/time field value out of range: "2024-13-01"`},
		{TDate, "2023-02-29", "22008", `date/time field value out of range: "2023-02-29"`},
		{TDate, "0000-01-01", "22008", `date/time field value out of range: "0000-01-01"`},
		{TDate, "foo", "22007", `invalid input syntax for type date: "foo"`},
		{TDate, "", "22007", `invalid input syntax for type date: ""`},
		{TDate, "4714-11-23 BC", "22008", `date out of range: "4714-11-23 BC"`},
		{TTime, "12:60", "22008", `date/time field value out of range: "12:60"`},
		{TTime, "24:00:01", "22008", `date/time field value out of range: "24:00:01"`},
		{TTime, "13:00 pm", "22008", `date/time field value out of range: "13:00 pm"`},
		{TTimestamp, "2024-01-02 25:00", "22008", `date/time field value out of range: "2024-01-02 25:00"`},
		{TTimestamp, "03:04:05", "22007", `invalid input syntax for type timestamp: "03:04:05"`},
		{TTimestampTZ, "2024-01-02 03:04 +16", "22009", `time zone displacement out of range: "2024-01-02 03:04 +16"`},
		{TTimestampTZ, "junk", "22007", `invalid input syntax for type timestamp with time zone: "junk"`},
		{TInterval, "1 fortnight", "22007", `invalid input syntax for type interval: "1 fortnight"`},
		{TInterval, "1 day 1 day", "22007", `invalid input syntax for type interval: "1 day 1 day"`},
		{TInterval, "day", "22007", `invalid input syntax for type interval: "day"`},
		{TInterval, "1 ago", "22007", `invalid input syntax for type interval: "1 ago"`},
		{TInterval, "3000000000 days", "22015", `interval field value out of range: "3000000000 days"`},
		{TJsonb, `{"a" 1}`, "22P02", "invalid input syntax for type json"},
		{TJsonb, `[1,]`, "22P02", "invalid input syntax for type json"},
		{TJsonb, `nul`, "22P02", "invalid input syntax for type json"},
		{TJsonb, `01`, "22P02", "invalid input syntax for type json"},
		{TJsonb, `[1] 2`, "22P02", "invalid input syntax for type json"},
		{TJsonb, `"\u0000"`, "22P05", "unsupported Unicode escape sequence"},
		{TJsonb, `"\ud83d"`, "22P02", "invalid input syntax for type json"},
		{TJsonb, "\"a\nb\"", "22P02", "invalid input syntax for type json"},
	}
	for _, tt := range tests {
		_, err := ParseText(tt.typ, tt.in)
		pe := pgerror.From(err)
		if err == nil || pe.Code != tt.code || pe.Message != tt.msg {
			t.Errorf("ParseText(%s, %q) = %v, want %s %s", tt.typ, tt.in, err, tt.code, tt.msg)
		}
	}
}

func TestJSONErrorDetails(t *testing.T) {
	tests := []struct{ in, detail string }{
		{`{"a" 1}`, `Expected ":", but found "1".`},
		{`[1,]`, `Expected JSON value, but found "]".`},
		{`nul`, `Token "nul" is invalid.`},
		{`[1 2]`, `Expected "," or "]", but found "2".`},
		{`{"a": 1 "b"}`, `Expected "," or "}", but found """.`},
		{`{1: 2}`, `Expected string, but found "1".`},
		{`[1`, `The input string ended unexpectedly.`},
		{`1.`, `Token "1." is invalid.`},
		{`"\x"`, `Escape sequence "\x" is invalid.`},
		{"\"a\nb\"", `Character with value 0x0a must be escaped.`},
	}
	for _, tt := range tests {
		_, err := ParseText(TJsonb, tt.in)
		if got := pgerror.From(err).Detail; err == nil || got != tt.detail {
			t.Errorf("jsonb %q: detail %q, want %q", tt.in, got, tt.detail)
		}
	}
}

func TestNumericOverflowDetail(t *testing.T) {
	tests := []struct {
		typ        T
		in, detail string
	}{
		{T{Family: Numeric, Mod: NumericMod(5, 2)}, "1234.5", "A field with precision 5, scale 2 must round to an absolute value less than 10^3."},
		{T{Family: Numeric, Mod: NumericMod(2, 2)}, "1", "A field with precision 2, scale 2 must round to an absolute value less than 1."},
		{T{Family: Numeric, Mod: NumericMod(5, 2)}, "-Infinity", "A field with precision 5, scale 2 cannot hold an infinite value."},
	}
	for _, tt := range tests {
		_, err := ParseText(tt.typ, tt.in)
		if got := pgerror.From(err).Detail; err == nil || got != tt.detail {
			t.Errorf("%q::%s: detail %q, want %q", tt.in, tt.typ, got, tt.detail)
		}
	}
}

func TestFormatTextValues(t *testing.T) {
	tests := []struct {
		typ  T
		d    Datum
		want string
	}{
		{TFloat8, NewFloat(1.0 / 3), "0.3333333333333333"},
		{TFloat8, NewFloat(math.Inf(1)), "Infinity"},
		{TFloat4, NewFloat(float64(float32(1.0 / 3))), "0.33333334"},
		{TFloat8, NewFloat(float64(float32(0.1))), "0.10000000149011612"},
		{TInt2, NewInt(-7), "-7"},
		{TBytea, NewBytes(nil), `\x`},
		{TDate, NewDate(0), "1970-01-01"},
		{TDate, NewDate(-719162), "0001-01-01"},
		{TDate, NewDate(-719163), "0001-12-31 BC"},
		{TTime, NewTime(usecsPerDay), "24:00:00"},
		{TTimestamp, NewTimestamp(UnixEpochTimestamp - 1), "1969-12-31 23:59:59.999999"},
		{TTimestampTZ, NewTimestampTZ(1704164645123456 + UnixEpochTimestamp), "2024-01-02 03:04:05.123456+00"},
		{TInterval, NewInterval(IntervalValue{}), "00:00:00"},
		{TInterval, NewInterval(IntervalValue{Months: -13}), "-1 years -1 mons"},
		{TInterval, NewInterval(IntervalValue{Micros: -1}), "-00:00:00.000001"},
		{TInterval, NewInterval(IntervalValue{Days: -1, Micros: usecsPerHour}), "-1 days +01:00:00"},
		{TInterval, NewInterval(IntervalValue{Micros: math.MinInt64}), "-2562047788:00:54.775808"},
		{TText, Null, ""},
	}
	for _, tt := range tests {
		if got := string(FormatText(nil, tt.typ, tt.d)); got != tt.want {
			t.Errorf("FormatText(%s) = %q, want %q", tt.typ, got, tt.want)
		}
	}
}

func TestDatumString(t *testing.T) {
	tests := []struct {
		d    Datum
		want string
	}{
		{Null, "NULL"}, {NewBool(true), "t"}, {NewInt(5), "5"}, {NewFloat(0.5), "0.5"},
		{NewString("x"), "x"}, {NewDate(1), "1970-01-02"}, {NewJSON(`{"a": 1}`), `{"a": 1}`},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
