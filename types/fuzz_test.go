package types

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// fuzzTypes are the types FuzzDatumText reads text as; the fuzzer's first
// argument picks one (modulo their count).
var fuzzTypes = func() []T {
	ts := []T{TBool, TInt2, TInt4, TInt8, TFloat4, TFloat8, TNumeric, TText, TBytea, TDate, TTime,
		TTimestamp, TTimestampTZ, TInterval, TJsonb, TOid}
	for _, elem := range []T{TInt8, TText, TNumeric, TTimestampTZ} {
		a, err := ArrayOf(elem)
		if err != nil {
			panic(err)
		}
		ts = append(ts, a)
	}
	return ts
}()

// FuzzDatumText parses arbitrary text as each type's input: it must never
// panic, errors are *pgerror.Error, and what parses round-trips: its text
// output parses again to a value with the same output.
func FuzzDatumText(f *testing.F) {
	for i, s := range []string{"t", "-32768", "2147483647", "-9223372036854775808", "1.5e-45", "-Infinity",
		"123456789012345678901234567890.000000001", "a\\b", `\x00ff`, "2024-02-29", "24:00:00",
		"2024-01-01 12:34:56.789", "2024-06-01 00:00:00+05:30", "1 year 2 mons -3 days 04:05:06.7",
		`{"a": [1, 2.50, null, "x\u00e9"]}`, "4294967295", `{1,NULL,3}`, `{"a,b",NULL,"\""}`, `{{1.5},{2}}`,
		`{"2024-01-01 00:00:00+00"}`} {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, pick uint8, s string) {
		typ := fuzzTypes[int(pick)%len(fuzzTypes)]
		d, err := ParseText(typ, s)
		if err != nil {
			if !errors.As(err, new(*pgerror.Error)) {
				t.Fatalf("%s %q: error %T %v is not a *pgerror.Error", typ, s, err, err)
			}
			return
		}
		out := string(FormatText(nil, typ, d))
		back, err := ParseText(typ, out)
		if err != nil {
			t.Fatalf("%s %q: its output %q does not parse: %v", typ, s, out, err)
		}
		if again := string(FormatText(nil, typ, back)); again != out {
			t.Fatalf("%s %q: output %q parses back as %q", typ, s, out, again)
		}
	})
}
