package types

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	// The IANA time zone database, embedded so that time zones work on a
	// machine without one.
	_ "time/tzdata"

	"github.com/streamdb/streamdb/pgerror"
)

// Time zones. A session's TimeZone decides how timestamptz values read
// and print and how calendar arithmetic on them runs, as in PostgreSQL: a
// *time.Location, nil meaning UTC.

// ParseZone reads a TimeZone setting or an AT TIME ZONE argument: UTC,
// an IANA name (any letter case), or a POSIX-style offset such as
// "UTC+3", "+05:30" or "<+05:30>-05:30", whose sign counts hours west of
// Greenwich as POSIX's does. It returns the zone and its name as SHOW
// TimeZone prints it.
func ParseZone(spec string) (*time.Location, string, error) {
	s := strings.TrimSpace(spec)
	switch strings.ToLower(s) {
	case "utc", "z", "zulu", "etc/utc", "universal":
		return time.UTC, "UTC", nil
	case "gmt", "etc/gmt":
		return time.UTC, "GMT", nil
	}
	if loc, err := loadZone(s); err == nil {
		return loc, loc.String(), nil
	}
	if off, ok := posixOffset(s); ok {
		return time.FixedZone(s, off), s, nil
	}
	return nil, "", pgerror.New(pgerror.CodeInvalidParameterValue, "time zone %q not recognized", spec)
}

//go:generate go run ./internal/zonegen

// zoneByLowerName maps each IANA zone name in lower case to its name.
var zoneByLowerName = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, len(zoneNames))
	for _, n := range zoneNames {
		m[strings.ToLower(n)] = n
	}
	return m
})

// loadZone loads an IANA zone by its name in any letter case, as
// PostgreSQL matches zone names (us/pacific is US/Pacific).
func loadZone(name string) (*time.Location, error) {
	canonical, ok := zoneByLowerName()[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("no time zone %q", name)
	}
	return time.LoadLocation(canonical)
}

// ZoneNames returns the names of the IANA time zones, sorted.
func ZoneNames() []string { return zoneNames[:] }

// posixOffset reads "[name]offset" with offset [+-]hh[:mm[:ss]] hours
// west of Greenwich (a name is letters or <...>) and returns seconds east.
func posixOffset(s string) (int, bool) {
	rest := s
	if strings.HasPrefix(rest, "<") {
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return 0, false
		}
		rest = rest[end+1:]
	} else {
		i := 0
		for i < len(rest) && (rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z') {
			i++
		}
		if i > 0 && i < 3 {
			return 0, false
		}
		rest = rest[i:]
	}
	secs, ok := parseOffsetClock(rest)
	return -secs, ok
}

// parseOffsetClock reads [+-]hh[:mm[:ss]] (up to 15 hours, as PostgreSQL's
// limit) into signed seconds.
func parseOffsetClock(s string) (int, bool) {
	sign := 1
	switch {
	case strings.HasPrefix(s, "-"):
		sign, s = -1, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	parts := strings.Split(s, ":")
	if s == "" || len(parts) > 3 {
		return 0, false
	}
	secs := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || i > 0 && n >= 60 {
			return 0, false
		}
		secs = secs*60 + n
	}
	for range 3 - len(parts) {
		secs *= 60
	}
	if secs > 15*3600 {
		return 0, false
	}
	return sign * secs, true
}

// ISOZone returns the TimeZone name of a fixed offset given the ISO way,
// hours east of Greenwich ("+05:30", "-7", "5.5"): SET TIME ZONE with a
// number or an INTERVAL. It prints as PostgreSQL prints it: <+05:30>-05:30.
func ISOZone(offset string) (string, error) {
	var secs int
	if f, err := strconv.ParseFloat(offset, 64); err == nil && !strings.Contains(offset, ":") {
		secs = int(f * 3600)
	} else if s, ok := parseOffsetClock(offset); ok {
		secs = s
	} else {
		return "", pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", offset)
	}
	if secs > 15*3600 || secs < -15*3600 {
		return "", pgerror.New(pgerror.CodeInvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", offset)
	}
	east := string(appendOffset(nil, secs))
	west := string(appendOffset(nil, -secs))
	if secs == 0 {
		west = "-00"
	}
	return "<" + east + ">" + west, nil
}

// ZoneOffset returns the offset in seconds east of UTC of loc at the
// instant micros (a timestamptz).
func ZoneOffset(loc *time.Location, micros int64) int {
	if loc == nil || loc == time.UTC || micros == DateTimeInfinity || micros == DateTimeNegInfinity {
		return 0
	}
	_, off := TimestampToTime(micros).In(loc).Zone()
	return off
}

// ToLocal returns the wall-clock time in loc (a timestamp) of the instant
// micros (a timestamptz).
func ToLocal(loc *time.Location, micros int64) int64 {
	if micros == DateTimeInfinity || micros == DateTimeNegInfinity {
		return micros
	}
	return micros + int64(ZoneOffset(loc, micros))*usecsPerSec
}

// FromLocal returns the instant (a timestamptz) of the wall-clock time
// local (a timestamp) in loc. As in PostgreSQL, a time that a jump forward
// skips takes the offset before the jump, and one that a jump back
// repeats the offset after it.
func FromLocal(loc *time.Location, local int64) int64 {
	if loc == nil || loc == time.UTC || local == DateTimeInfinity || local == DateTimeNegInfinity {
		return local
	}
	const day = 24 * 3600 * usecsPerSec
	before := int64(ZoneOffset(loc, local-day)) * usecsPerSec
	after := int64(ZoneOffset(loc, local+day)) * usecsPerSec
	if before == after {
		return local - before
	}
	ua, ub := local-after, local-before
	switch {
	case int64(ZoneOffset(loc, ua))*usecsPerSec == after:
		return ua
	case int64(ZoneOffset(loc, ub))*usecsPerSec == before:
		return ub
	}
	return ub
}

// appendOffset appends a UTC offset as PostgreSQL prints it: +05, -03:30,
// +00:53:28.
func appendOffset(dst []byte, secs int) []byte {
	sign := byte('+')
	if secs < 0 {
		sign, secs = '-', -secs
	}
	dst = append(dst, sign)
	dst = appendPadded(dst, int64(secs/3600), 2)
	if m, s := secs/60%60, secs%60; m != 0 || s != 0 {
		dst = append(dst, ':')
		dst = appendPadded(dst, int64(m), 2)
		if s != 0 {
			dst = append(dst, ':')
			dst = appendPadded(dst, int64(s), 2)
		}
	}
	return dst
}
