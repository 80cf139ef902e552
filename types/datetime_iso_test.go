package types

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestParseISOTimestamp checks the fast path of timestamp input against
// the general parser: on any string in or near the ISO form it either
// declines or gives the general parser's answer, and it takes every
// valid ISO timestamp.
func TestParseISOTimestamp(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		loc = time.FixedZone("EST", -5*3600)
	}
	rapid.Check(t, func(t *rapid.T) {
		y := rapid.IntRange(1, 9999).Draw(t, "y")
		mo := rapid.IntRange(0, 13).Draw(t, "mo")
		d := rapid.IntRange(0, 32).Draw(t, "d")
		h := rapid.IntRange(0, 25).Draw(t, "h")
		mi := rapid.IntRange(0, 60).Draw(t, "mi")
		sec := rapid.IntRange(0, 61).Draw(t, "sec")
		sep := rapid.SampledFrom([]string{" ", "T", "  ", "t"}).Draw(t, "sep")
		frac := rapid.SampledFrom([]string{"", ".", ".5", ".123456", ".1234567", ".12x", "+02", " BC"}).Draw(t, "frac")
		s := fmt.Sprintf("%04d-%02d-%02d%s%02d:%02d:%02d%s", y, mo, d, sep, h, mi, sec, frac)
		fast, ok := parseISOTimestamp(s)
		want, err := parseTimestampFields(s, false, nil)
		valid := mo >= 1 && mo <= 12 && d >= 1 && int64(d) <= daysInMonth(int64(y), int64(mo)) && h < 24 && mi < 60 && sec < 60 &&
			(sep == " " || sep == "T") && (frac == "" || frac == ".5" || frac == ".123456")
		switch {
		case ok && (err != nil || fast != want):
			t.Fatalf("%q: fast path %d, general parser %d, %v", s, fast, want, err)
		case valid && !ok:
			t.Fatalf("%q: the fast path declined a valid ISO timestamp", s)
		}
		// With a zone: the same instant the general parser gives.
		if ok {
			tz, err := parseTimestamp(s, true, loc)
			wantTZ, err2 := parseTimestampFields(s, true, loc)
			if err != nil || err2 != nil || tz != wantTZ {
				t.Fatalf("%q with zone: %d, %v; want %d, %v", s, tz, err, wantTZ, err2)
			}
		}
	})
}

func BenchmarkParseTimestamp(b *testing.B) {
	for _, s := range []string{"2015-07-15 00:00:00.001", "July 15, 2015 00:00:00"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseTimestamp(s, false, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
