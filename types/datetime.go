package types

import (
	"math"
	"time"
)

// DateTimeInfinity and DateTimeNegInfinity are the stored values of
// 'infinity' and '-infinity' for date (in days), timestamp and timestamptz
// (in microseconds).
const (
	DateTimeInfinity    = math.MaxInt64
	DateTimeNegInfinity = math.MinInt64
)

// Time units in microseconds.
const (
	usecsPerSec    = 1_000_000
	usecsPerMinute = 60 * usecsPerSec
	usecsPerHour   = 60 * usecsPerMinute
	usecsPerDay    = 24 * usecsPerHour
)

// Epochs as Julian day numbers. Dates count days since the Unix epoch
// (1970-01-01); timestamps and timestamptz count microseconds since
// PostgreSQL's epoch (2000-01-01), as PostgreSQL stores them: its whole
// range fits 64 bits only from that epoch, and the binary wire format is
// the stored value.
const (
	unixEpochJD = 2440588
	pgEpochJD   = 2451545
	pgEpochDays = pgEpochJD - unixEpochJD
	// dateEndJD and timestampEndJD are PostgreSQL's DATE_END_JULIAN
	// (5874898-01-01) and TIMESTAMP_END_JULIAN (294277-01-01), exclusive.
	dateEndJD      = 2147483494
	timestampEndJD = 109203528
	// Dates: [minDateDays, endDateDays) in days since 1970; the timestamp
	// range ends before endTimestampDays.
	minDateDays      = -unixEpochJD
	endDateDays      = dateEndJD - unixEpochJD
	endTimestampDays = timestampEndJD - unixEpochJD
	// Timestamps: [minTimestamp, endTimestamp) in microseconds since 2000,
	// PostgreSQL's MIN_TIMESTAMP and END_TIMESTAMP (4714-11-24 BC to
	// 294277-01-01).
	minTimestamp = -pgEpochJD * usecsPerDay
	endTimestamp = (timestampEndJD - pgEpochJD) * usecsPerDay
)

// UnixEpochTimestamp is 1970-01-01 00:00:00 as a timestamp value.
const UnixEpochTimestamp = -pgEpochDays * usecsPerDay

// Date2J returns the Julian day number of a proleptic Gregorian date,
// with year 0 meaning 1 BC: PostgreSQL's date2j, its C divisions
// truncating as there, also for months and days out of their ranges (as
// to_char of an interval's fields gives them).
func Date2J(year, month, day int64) int64 {
	if month > 2 {
		month++
		year += 4800
	} else {
		month += 13
		year += 4799
	}
	century := year / 100
	julian := year*365 - 32167
	julian += year/4 - century + century/4
	return julian + 7834*month/256 + day
}

// j2date is the inverse of Date2J, for Julian days >= 0.
func j2date(jd int64) (year, month, day int64) {
	julian := uint64(jd) + 32044
	quad := julian / 146097
	extra := (julian-quad*146097)*4 + 3
	julian += 60 + quad*3 + extra/146097
	quad = julian / 1461
	julian -= quad * 1461
	y := julian * 4 / 1461
	if y != 0 {
		julian = (julian+305)%365 + 123
	} else {
		julian = (julian+306)%366 + 123
	}
	y += quad * 4
	year = int64(y) - 4800
	quad = julian * 2141 / 65536
	day = int64(julian - 7834*quad/256)
	month = int64((quad+10)%12 + 1)
	return year, month, day
}

// daysInMonth returns the length of a month; year 0 is 1 BC.
func daysInMonth(year, month int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// SplitTimestamp splits a finite timestamp or timestamptz into its date, in
// days since 1970-01-01 (a date value), and its time of day in
// microseconds.
func SplitTimestamp(micros int64) (days, tod int64) {
	days = floorDiv(micros, usecsPerDay)
	return days + pgEpochDays, micros - days*usecsPerDay
}

// appendDate appends date_out's ISO text: 2024-01-02, 0044-03-15 BC,
// infinity.
func appendDate(dst []byte, days int64) []byte {
	switch days {
	case DateTimeInfinity:
		return append(dst, "infinity"...)
	case DateTimeNegInfinity:
		return append(dst, "-infinity"...)
	}
	y, m, d := j2date(days + unixEpochJD)
	dst = appendYMD(dst, y, m, d)
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendYMD appends YYYY-MM-DD, writing BC years by their BC number.
func appendYMD(dst []byte, y, m, d int64) []byte {
	if y <= 0 {
		y = 1 - y
	}
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2)
}

// appendClock appends HH:MM:SS with the fraction of a second, trailing
// zeros trimmed, for a time of day (24:00:00 included).
func appendClock(dst []byte, micros int64) []byte {
	dst = appendPadded(dst, micros/usecsPerHour, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, micros/usecsPerMinute%60, 2)
	dst = append(dst, ':')
	return appendSeconds(dst, micros%usecsPerMinute)
}

// appendSeconds appends SS[.ffffff] for a non-negative count of
// microseconds below one minute, fraction trailing zeros trimmed.
func appendSeconds(dst []byte, micros int64) []byte {
	dst = appendPadded(dst, micros/usecsPerSec, 2)
	frac := micros % usecsPerSec
	if frac == 0 {
		return dst
	}
	width := 6
	for frac%10 == 0 {
		frac /= 10
		width--
	}
	dst = append(dst, '.')
	return appendPadded(dst, frac, width)
}

// appendTimestamp appends timestamp_out's or timestamptz_out's ISO text;
// timestamptz prints as the wall-clock time in loc with its offset.
func appendTimestamp(dst []byte, micros int64, tz bool, loc *time.Location) []byte {
	switch micros {
	case DateTimeInfinity:
		return append(dst, "infinity"...)
	case DateTimeNegInfinity:
		return append(dst, "-infinity"...)
	}
	off := 0
	if tz {
		off = ZoneOffset(loc, micros)
		micros += int64(off) * usecsPerSec
	}
	days, tod := SplitTimestamp(micros)
	y, m, d := j2date(days + unixEpochJD)
	dst = appendYMD(dst, y, m, d)
	dst = append(dst, ' ')
	dst = appendClock(dst, tod)
	if tz {
		dst = appendOffset(dst, off)
	}
	if y <= 0 {
		dst = append(dst, " BC"...)
	}
	return dst
}

// appendPadded appends a non-negative number zero-padded to width digits.
func appendPadded(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v >= 10 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	i--
	buf[i] = byte('0' + v)
	for len(buf)-i < width {
		i--
		buf[i] = '0'
	}
	return append(dst, buf[i:]...)
}

// dateFromTimestamp returns the date of a timestamp, keeping infinities.
func dateFromTimestamp(micros int64) int64 {
	switch micros {
	case DateTimeInfinity, DateTimeNegInfinity:
		return micros
	}
	days, _ := SplitTimestamp(micros)
	return days
}

// timePrecisionScales[p] is the unit, in microseconds, of precision p.
var timePrecisionScales = [...]int64{1_000_000, 100_000, 10_000, 1_000, 100, 10, 1}

// roundMicros rounds finite microseconds to the typmod precision of a time
// or timestamp type, half away from zero as AdjustTimestampForTypmod does.
func roundMicros(v int64, mod int32) int64 {
	if mod < 0 || mod >= 6 || v == DateTimeInfinity || v == DateTimeNegInfinity {
		return v
	}
	scale := timePrecisionScales[mod]
	if v >= 0 {
		return (v + scale/2) / scale * scale
	}
	return -((-v + scale/2) / scale * scale)
}
