package datagen

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// durationUnits are the units of the humantime crate, which RisingWave
// parses max_past with. Months and years are 30.44 and 365.25 days.
var durationUnits = map[string]time.Duration{
	"nsec": time.Nanosecond, "ns": time.Nanosecond,
	"usec": time.Microsecond, "us": time.Microsecond, "µs": time.Microsecond,
	"msec": time.Millisecond, "ms": time.Millisecond,
	"seconds": time.Second, "second": time.Second, "secs": time.Second, "sec": time.Second, "s": time.Second,
	"minutes": time.Minute, "minute": time.Minute, "mins": time.Minute, "min": time.Minute, "m": time.Minute,
	"hours": time.Hour, "hour": time.Hour, "hrs": time.Hour, "hr": time.Hour, "h": time.Hour,
	"days": 24 * time.Hour, "day": 24 * time.Hour, "d": 24 * time.Hour,
	"weeks": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "w": 7 * 24 * time.Hour,
	"months": 2_630_016 * time.Second, "month": 2_630_016 * time.Second, "M": 2_630_016 * time.Second,
	"years": 31_557_600 * time.Second, "year": 31_557_600 * time.Second, "y": 31_557_600 * time.Second,
}

// parseDuration parses a humantime duration such as "1day", "2h 37min" or
// "10s": a sum of integers each followed by a unit, spaces optional.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	var total time.Duration
	for s != "" {
		digits := len(s) - len(strings.TrimLeft(s, "0123456789"))
		rest := strings.TrimLeft(s[digits:], " ")
		unitLen := len(rest) - len(strings.TrimLeftFunc(rest, isUnitRune))
		n, err := strconv.ParseInt(s[:digits], 10, 64)
		unit, ok := durationUnits[rest[:unitLen]]
		if err != nil || !ok {
			return 0, errors.New("expected a number followed by a unit such as ms, s, min, h or day")
		}
		if n > int64(math.MaxInt64/unit) || total > math.MaxInt64-time.Duration(n)*unit {
			return 0, errors.New("duration out of range")
		}
		total += time.Duration(n) * unit
		s = strings.TrimLeft(rest[unitLen:], " ")
	}
	return total, nil
}

// isUnitRune reports whether r may be part of a unit name.
func isUnitRune(r rune) bool { return r == 'µ' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
