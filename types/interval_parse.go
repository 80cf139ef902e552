package types

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// intervalUnit is a unit of interval input.
type intervalUnit uint8

const (
	unitNone intervalUnit = iota
	unitMicro
	unitMilli
	unitSecond
	unitMinute
	unitHour
	unitDay
	unitWeek
	unitMonth
	unitYear
	unitDecade
	unitCentury
	unitMillennium
	unitAgo // a number directly before "ago" has no unit
)

const (
	maskTime    = 1<<unitMicro | 1<<unitMilli | 1<<unitSecond | 1<<unitMinute | 1<<unitHour
	maskAllSecs = 1<<unitMicro | 1<<unitMilli | 1<<unitSecond
)

// intervalUnits are PostgreSQL's interval unit words (deltatktbl), matched
// on their first 10 characters as PostgreSQL does.
var intervalUnits = map[string]intervalUnit{
	"microsecon": unitMicro, "us": unitMicro, "usec": unitMicro, "usecs": unitMicro,
	"usecond": unitMicro, "useconds": unitMicro,
	"millisecon": unitMilli, "ms": unitMilli, "msec": unitMilli, "msecs": unitMilli,
	"msecond": unitMilli, "mseconds": unitMilli,
	"s": unitSecond, "sec": unitSecond, "secs": unitSecond, "second": unitSecond, "seconds": unitSecond,
	"m": unitMinute, "min": unitMinute, "mins": unitMinute, "minute": unitMinute, "minutes": unitMinute,
	"h": unitHour, "hr": unitHour, "hrs": unitHour, "hour": unitHour, "hours": unitHour,
	"d": unitDay, "day": unitDay, "days": unitDay,
	"w": unitWeek, "week": unitWeek, "weeks": unitWeek,
	"mon": unitMonth, "mons": unitMonth, "month": unitMonth, "months": unitMonth,
	"y": unitYear, "yr": unitYear, "yrs": unitYear, "year": unitYear, "years": unitYear,
	"dec": unitDecade, "decs": unitDecade, "decade": unitDecade, "decades": unitDecade,
	"c": unitCentury, "cent": unitCentury, "century": unitCentury, "centuries": unitCentury,
	"mil": unitMillennium, "mils": unitMillennium, "millennium": unitMillennium, "millennia": unitMillennium,
}

// intervalParts accumulates interval input as PostgreSQL's pg_itm_in does;
// days, months and years stay within int32.
type intervalParts struct {
	usec              int64
	days, mons, years int64
}

func (p *intervalParts) addMicros(val int64, fval float64, scale int64) bool {
	v, ok := MulInt64(val, scale)
	if !ok {
		return false
	}
	if p.usec, ok = AddInt64(p.usec, v); !ok {
		return false
	}
	return p.addFractMicros(fval, scale)
}

func (p *intervalParts) addFractMicros(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	usec := int64(frac)
	frac -= float64(usec)
	if frac > 0.5 {
		usec++
	} else if frac < -0.5 {
		usec--
	}
	var ok bool
	p.usec, ok = AddInt64(p.usec, usec)
	return ok
}

func (p *intervalParts) addFractDays(frac float64, scale int64) bool {
	if frac == 0 {
		return true
	}
	frac *= float64(scale)
	extra := int64(frac)
	if p.days += extra; !fitsInt32(p.days) {
		return false
	}
	return p.addFractMicros(frac-float64(extra), usecsPerDay)
}

func (p *intervalParts) addFractYears(frac float64, scale int64) bool {
	p.mons += int64(math.RoundToEven(frac * float64(scale) * 12))
	return fitsInt32(p.mons)
}

func (p *intervalParts) addDays(val, scale int64) bool {
	if !fitsInt32(val) || !fitsInt32(val*scale) {
		return false
	}
	p.days += val * scale
	return fitsInt32(p.days)
}

func (p *intervalParts) addMonths(val int64) bool {
	if !fitsInt32(val) {
		return false
	}
	p.mons += val
	return fitsInt32(p.mons)
}

func (p *intervalParts) addYears(val, scale int64) bool {
	if !fitsInt32(val) || !fitsInt32(val*scale) {
		return false
	}
	p.years += val * scale
	return fitsInt32(p.years)
}

// add applies val+fval of unit, with PostgreSQL's cascading of fractions
// into smaller units.
func (p *intervalParts) add(unit intervalUnit, val int64, fval float64) bool {
	switch unit {
	case unitMicro:
		return p.addMicros(val, fval, 1)
	case unitMilli:
		return p.addMicros(val, fval, 1000)
	case unitSecond:
		return p.addMicros(val, fval, usecsPerSec)
	case unitMinute:
		return p.addMicros(val, fval, usecsPerMinute)
	case unitHour:
		return p.addMicros(val, fval, usecsPerHour)
	case unitDay:
		return p.addDays(val, 1) && p.addFractMicros(fval, usecsPerDay)
	case unitWeek:
		return p.addDays(val, 7) && p.addFractDays(fval, 7)
	case unitMonth:
		return p.addMonths(val) && p.addFractDays(fval, 30)
	case unitYear:
		return p.addYears(val, 1) && p.addFractYears(fval, 1)
	case unitDecade:
		return p.addYears(val, 10) && p.addFractYears(fval, 10)
	case unitCentury:
		return p.addYears(val, 100) && p.addFractYears(fval, 100)
	case unitMillennium:
		return p.addYears(val, 1000) && p.addFractYears(fval, 1000)
	}
	return false
}

// parseInterval is interval_in with IntervalStyle postgres: PostgreSQL's
// unit syntax, falling back to ISO 8601 designators (P1DT2H). The typmod's
// field range gives a bare number its unit (interval year: '1' is a year)
// and makes hh:mm mean mm:ss for minute to second; the typmod is then
// applied (AdjustInterval).
func parseInterval(s string, mod int32) (IntervalValue, error) {
	var p intervalParts
	e := dtBadFormat
	if fields, ok := splitDateTime(s); ok && len(fields) > 0 {
		e = p.decode(fields, intervalFields(mod))
	}
	if e == dtBadFormat {
		p = intervalParts{}
		e = p.decodeISO8601(s)
	}
	if e != dtOK {
		return IntervalValue{}, dateTimeError(e, "interval", s)
	}
	months := p.years*12 + p.mons
	if !fitsInt32(months) {
		return IntervalValue{}, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "interval out of range")
	}
	return AdjustInterval(IntervalValue{Months: int32(months), Days: int32(p.days), Micros: p.usec}, mod), nil
}

// decode is PostgreSQL's DecodeInterval: fields are read right to left so a
// unit applies to the number before it; a bare number is seconds, or days
// when a time follows it; "ago" negates everything.
func (p *intervalParts) decode(fields []dtField, rng int32) dtErr {
	unit := unitNone
	var fmask int
	parsingUnit, ago := false, false
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		tmask := 0
		switch f.kind {
		case dtTime, dtSigned, dtDate, dtNumber:
			if f.kind == dtTime || f.kind == dtSigned && strings.IndexByte(f.s, ':') >= 0 {
				usec, e := decodeIntervalTime(f.s, rng == ivMinute|ivSecond)
				if e != dtOK {
					return e
				}
				var ok bool
				if p.usec, ok = AddInt64(p.usec, usec); !ok {
					return dtFieldOverflow
				}
				tmask, unit, parsingUnit = maskTime, unitDay, false
				break
			}
			switch unit {
			case unitNone:
				unit = defaultIntervalUnit(rng)
			case unitAgo:
				return dtBadFormat
			}
			val, fval, yearMonth, e := parseIntervalNumber(f.s)
			if e != dtOK {
				return e
			}
			if yearMonth {
				unit = unitMonth
			}
			if !p.add(unit, val, fval) {
				return dtFieldOverflow
			}
			tmask = 1 << unit
			switch {
			case unit == unitSecond && fval != 0:
				tmask = maskAllSecs
			case unit == unitHour:
				unit = unitDay
			}
			parsingUnit = false
		case dtString, dtSpecial:
			if parsingUnit {
				return dtBadFormat
			}
			if f.s == "ago" {
				if i != len(fields)-1 {
					return dtBadFormat
				}
				ago, unit = true, unitAgo
				continue
			}
			word := f.s
			if len(word) > 10 {
				word = word[:10]
			}
			u, ok := intervalUnits[word]
			if !ok {
				return dtBadFormat
			}
			unit, parsingUnit = u, true
		}
		if tmask&fmask != 0 {
			return dtBadFormat
		}
		fmask |= tmask
	}
	if fmask == 0 || parsingUnit {
		return dtBadFormat
	}
	if ago {
		if p.usec == math.MinInt64 || p.days == math.MinInt32 || p.mons == math.MinInt32 || p.years == math.MinInt32 {
			return dtFieldOverflow
		}
		p.usec, p.days, p.mons, p.years = -p.usec, -p.days, -p.mons, -p.years
	}
	return dtOK
}

// parseIntervalNumber reads a field of interval input: an integer, a
// decimal (its fraction returned apart), or SQL's years-months "Y-M" (then
// yearMonth is set and val is in months).
func parseIntervalNumber(s string) (val int64, fval float64, yearMonth bool, e dtErr) {
	neg := s[0] == '-'
	i := 0
	if s[0] == '-' || s[0] == '+' {
		i++
	}
	j := skipDigits(s, i)
	if j > i {
		v, err := strconv.ParseInt(s[:j], 10, 64) // with the sign: -2^63 fits
		if err != nil {
			return 0, 0, false, dtFieldOverflow
		}
		val = v
	}
	rest := s[j:]
	switch {
	case rest == "":
		if j == i {
			return 0, 0, false, dtBadFormat
		}
	case rest[0] == '-' && j > i:
		k := skipDigits(rest, 1)
		if k == 1 || k != len(rest) {
			return 0, 0, false, dtBadFormat
		}
		m, err := strconv.ParseInt(rest[1:], 10, 64)
		if err != nil || m >= 12 {
			return 0, 0, false, dtFieldOverflow
		}
		if neg {
			m = -m
		}
		months, ok := MulInt64(val, 12)
		if !ok {
			return 0, 0, false, dtFieldOverflow
		}
		if val, ok = AddInt64(months, m); !ok {
			return 0, 0, false, dtFieldOverflow
		}
		return val, 0, true, dtOK
	case rest[0] == '.':
		if skipDigits(rest, 1) != len(rest) {
			return 0, 0, false, dtBadFormat
		}
		if len(rest) > 1 {
			fval, _ = strconv.ParseFloat("0"+rest, 64)
		}
		if neg {
			fval = -fval
		}
	default:
		return 0, 0, false, dtBadFormat
	}
	return val, fval, false, dtOK
}

// decodeIntervalTime reads [+-]hh:mm[:ss[.fff]] or mm:ss.fff of interval
// input into microseconds; hours are unbounded. A signed time that does not
// decode is bad syntax, as PostgreSQL then reads it as a number. Unlike
// PostgreSQL, -2^63 microseconds is read (the sign applies before the sum),
// so that interval output always reads back.
func decodeIntervalTime(s string, minSec bool) (int64, dtErr) {
	sign := int64(1)
	switch s[0] {
	case '-':
		sign = -1
		fallthrough
	case '+':
		total, e := decodeClockMicros(s[1:], sign, minSec)
		if e != dtOK {
			e = dtBadFormat
		}
		return total, e
	}
	return decodeClockMicros(s, sign, minSec)
}

// decodeClockMicros reads an unsigned time of interval input into
// microseconds, with the given sign.
func decodeClockMicros(s string, sign int64, minSec bool) (int64, dtErr) {
	h, m, sec, usec, e := parseClock(s)
	if e != dtOK {
		return 0, e
	}
	if minSec && strings.Count(s, ":") == 1 && !strings.Contains(s, ".") {
		// interval minute to second reads hh:mm as mm:ss (mm:ss.fff is
		// always read so).
		h, m, sec = 0, h, m
	}
	if m > 59 || sec > 60 || usec > usecsPerSec {
		return 0, dtFieldOverflow
	}
	total, ok := MulInt64(h, sign*usecsPerHour)
	if !ok {
		return 0, dtFieldOverflow
	}
	if total, ok = AddInt64(total, sign*((m*60+sec)*usecsPerSec+usec)); !ok {
		return 0, dtFieldOverflow
	}
	return total, dtOK
}

// parseClock reads hh:mm[:ss[.fff]], or mm:ss.fff when there are two parts
// and a fraction.
func parseClock(s string) (h, m, sec, usec int64, e dtErr) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, 0, 0, dtBadFormat
	}
	frac := ""
	last := parts[len(parts)-1]
	if i := strings.IndexByte(last, '.'); i >= 0 {
		frac, parts[len(parts)-1] = last[i:], last[:i]
	}
	var n [3]int64
	for i, part := range parts {
		if part == "" || skipDigits(part, 0) != len(part) {
			return 0, 0, 0, 0, dtBadFormat
		}
		v, err := strconv.ParseInt(part, 10, 64)
		if err != nil || i > 0 && v > math.MaxInt32 {
			return 0, 0, 0, 0, dtFieldOverflow
		}
		n[i] = v
	}
	if usec, e = parseFraction(frac); e != dtOK {
		return 0, 0, 0, 0, e
	}
	if len(parts) == 2 && frac != "" {
		return 0, n[0], n[1], usec, dtOK
	}
	return n[0], n[1], n[2], usec, dtOK
}

// decodeISO8601 reads ISO 8601's format with designators: P1Y2M3W4DT5H6M7.5S.
func (p *intervalParts) decodeISO8601(s string) dtErr {
	if len(s) < 2 || s[0] != 'P' {
		return dtBadFormat
	}
	s = s[1:]
	datePart := true
	for len(s) > 0 {
		if s[0] == 'T' {
			datePart, s = false, s[1:]
			continue
		}
		val, fval, rest, e := parseISO8601Number(s)
		if e != dtOK {
			return e
		}
		if rest == "" {
			return dtBadFormat
		}
		unit := rest[0]
		s = rest[1:]
		var u intervalUnit
		switch {
		case datePart && unit == 'Y':
			u = unitYear
		case datePart && unit == 'M':
			u = unitMonth
		case datePart && unit == 'W':
			u = unitWeek
		case datePart && unit == 'D':
			u = unitDay
		case !datePart && unit == 'H':
			u = unitHour
		case !datePart && unit == 'M':
			u = unitMinute
		case !datePart && unit == 'S':
			u = unitSecond
		default:
			return dtBadFormat
		}
		if !p.add(u, val, fval) {
			return dtFieldOverflow
		}
	}
	return dtOK
}

// parseISO8601Number reads a decimal number of an ISO 8601 interval, split
// into its integer part and its fraction (same sign).
func parseISO8601Number(s string) (ipart int64, fpart float64, rest string, e dtErr) {
	i := 0
	if s[0] == '-' {
		i++
	}
	j := skipDigits(s, i)
	digits := j - i
	if j < len(s) && s[j] == '.' {
		k := skipDigits(s, j+1)
		digits += k - j - 1
		j = k
	}
	if digits == 0 {
		return 0, 0, "", dtBadFormat
	}
	v, err := strconv.ParseFloat(s[:j], 64)
	if err != nil || v < -1e15 || v > 1e15 {
		return 0, 0, "", dtFieldOverflow
	}
	ipart = int64(v)
	return ipart, v - float64(ipart), s[j:], dtOK
}
