package types

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// dtErr is a date/time decoding failure, reported by the caller with the
// type name and the whole input, as PostgreSQL's DateTimeParseError does.
type dtErr uint8

const (
	dtOK dtErr = iota
	dtBadFormat
	dtFieldOverflow
	dtTZOverflow
)

// dateTimeError builds the user-facing error for a dtErr.
func dateTimeError(e dtErr, typ, s string) error {
	switch e {
	case dtFieldOverflow:
		if typ == "interval" {
			return pgerror.New(codeIntervalFieldOverflow, "interval field value out of range: \"%s\"", s)
		}
		return pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date/time field value out of range: \"%s\"", s)
	case dtTZOverflow:
		return pgerror.New(codeInvalidTimeZoneDisplacement, "time zone displacement out of range: \"%s\"", s)
	}
	return pgerror.New(pgerror.CodeInvalidDatetimeFormat, "invalid input syntax for type %s: \"%s\"", typ, s)
}

// dtValue is decoded date/time input.
type dtValue struct {
	hasDate, hasTime, hasTZ bool
	year, month, day        int64
	yearDigits              int // digits the year was written with
	bc                      bool
	hour, minute, sec, usec int64
	meridiem                int   // 0, or 1 for AM, 2 for PM
	tzOffset                int64 // seconds east of UTC
	special                 int
}

// decodeDateTime interprets the fields of date, time or timestamp input.
func decodeDateTime(fields []dtField) (v dtValue, e dtErr) {
	var pending []string // numbers of a date with a text month
	textMonth := false
	for _, f := range fields {
		switch f.kind {
		case dtDate:
			if v.hasDate || textMonth {
				return v, dtBadFormat
			}
			if e = v.decodeDateField(f.s, &pending, &textMonth); e != dtOK {
				return v, e
			}
		case dtNumber:
			switch {
			case strings.IndexByte(f.s, '.') >= 0:
				return v, dtBadFormat
			case len(f.s) == 8 && !v.hasDate && !textMonth && len(pending) == 0:
				v.hasDate = true
				v.year, _ = strconv.ParseInt(f.s[:4], 10, 64)
				v.month, _ = strconv.ParseInt(f.s[4:6], 10, 64)
				v.day, _ = strconv.ParseInt(f.s[6:], 10, 64)
				v.yearDigits = 4
			default:
				pending = append(pending, f.s)
			}
		case dtTime:
			if v.hasTime {
				return v, dtBadFormat
			}
			if e = v.decodeTime(f.s); e != dtOK {
				return v, e
			}
		case dtSigned:
			if v.hasTZ {
				return v, dtBadFormat
			}
			off, e := decodeZoneOffset(f.s)
			if e != dtOK {
				return v, e
			}
			v.hasTZ, v.tzOffset = true, off
		case dtSpecial:
			switch f.s {
			case "-infinity":
				v.special = specialNegInfinity
			case "+infinity":
				v.special = specialInfinity
			default:
				return v, dtBadFormat
			}
		case dtString:
			tok, ok := dateTokens[f.s]
			if !ok {
				return v, dtBadFormat
			}
			switch tok.kind {
			case tokMonth:
				if v.hasDate || textMonth {
					return v, dtBadFormat
				}
				textMonth, v.month = true, int64(tok.value)
			case tokAMPM:
				v.meridiem = tok.value
			case tokEra:
				v.bc = tok.value == 1
			case tokUTC:
				if v.hasTZ {
					return v, dtBadFormat
				}
				v.hasTZ = true
			case tokSpecial:
				if v.special != specialNone {
					return v, dtBadFormat
				}
				v.special = tok.value
			}
		}
	}
	if textMonth {
		if len(pending) != 2 {
			return v, dtBadFormat
		}
		y, d := pending[1], pending[0]
		if len(pending[0]) >= 3 {
			y, d = pending[0], pending[1]
		}
		v.hasDate = true
		v.year, _ = strconv.ParseInt(y, 10, 64)
		v.day, _ = strconv.ParseInt(d, 10, 64)
		v.yearDigits = len(y)
		if len(y) > 9 || len(d) > 2 {
			return v, dtFieldOverflow
		}
	} else if len(pending) > 0 {
		return v, dtBadFormat
	}
	if v.special != specialNone && len(fields) > 1 &&
		v.special != specialToday && v.special != specialTomorrow && v.special != specialYesterday {
		return v, dtBadFormat
	}
	return v, v.validate()
}

// decodeDateField decodes a delimited date: Y-M-D when the first number has
// three or more digits, otherwise M-D-Y (DateStyle MDY); a text month leaves
// its numbers pending for decodeDateTime.
func (v *dtValue) decodeDateField(s string, pending *[]string, textMonth *bool) dtErr {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	var nums []string
	for _, p := range parts {
		if isDigit(p[0]) {
			if skipDigits(p, 0) != len(p) {
				return dtBadFormat
			}
			nums = append(nums, p)
			continue
		}
		tok, ok := dateTokens[p]
		if !ok || tok.kind != tokMonth || *textMonth {
			return dtBadFormat
		}
		*textMonth, v.month = true, int64(tok.value)
	}
	if *textMonth {
		*pending = append(*pending, nums...)
		return dtOK
	}
	if len(nums) != 3 {
		return dtBadFormat
	}
	y, m, d := nums[2], nums[0], nums[1]
	if len(nums[0]) >= 3 {
		y, m, d = nums[0], nums[1], nums[2]
	}
	if len(y) > 9 || len(m) > 2 || len(d) > 2 {
		return dtFieldOverflow
	}
	v.hasDate = true
	v.year, _ = strconv.ParseInt(y, 10, 64)
	v.month, _ = strconv.ParseInt(m, 10, 64)
	v.day, _ = strconv.ParseInt(d, 10, 64)
	v.yearDigits = len(y)
	return dtOK
}

// decodeTime decodes hh:mm[:ss[.fff]], or mm:ss.fff.
func (v *dtValue) decodeTime(s string) dtErr {
	h, m, sec, usec, e := parseClock(s)
	if e == dtOK {
		v.hasTime, v.hour, v.minute, v.sec, v.usec = true, h, m, sec, usec
	}
	return e
}

// parseFraction converts ".ddd" to microseconds as PostgreSQL does
// (through a double, rounded half to even).
func parseFraction(frac string) (int64, dtErr) {
	if frac == "" || frac == "." {
		return 0, dtOK
	}
	if skipDigits(frac, 1) != len(frac) {
		return 0, dtBadFormat
	}
	f, err := strconv.ParseFloat("0"+frac, 64)
	if err != nil {
		return 0, dtBadFormat
	}
	return int64(math.RoundToEven(f * usecsPerSec)), dtOK
}

// decodeZoneOffset decodes +hh, +hhmm, +hh:mm or +hh:mm:ss into seconds
// east of UTC.
func decodeZoneOffset(s string) (int64, dtErr) {
	sign := int64(1)
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	var h, m, sec int64
	if strings.IndexByte(s, ':') >= 0 {
		parts := strings.Split(s, ":")
		if len(parts) > 3 {
			return 0, dtBadFormat
		}
		var n [3]int64
		for i, p := range parts {
			if p == "" || len(p) > 2 || skipDigits(p, 0) != len(p) {
				return 0, dtBadFormat
			}
			n[i], _ = strconv.ParseInt(p, 10, 64)
		}
		h, m, sec = n[0], n[1], n[2]
	} else {
		if skipDigits(s, 0) != len(s) || len(s) > 6 {
			return 0, dtBadFormat
		}
		v, _ := strconv.ParseInt(s, 10, 64)
		switch {
		case len(s) <= 2:
			h = v
		case len(s) <= 4:
			h, m = v/100, v%100
		default:
			h, m, sec = v/10000, v/100%100, v%100
		}
	}
	if h > 15 {
		return 0, dtTZOverflow
	}
	if m >= 60 || sec >= 60 {
		return 0, dtFieldOverflow
	}
	return sign * (h*3600 + m*60 + sec), dtOK
}

// validate checks field ranges and resolves eras, two-digit years and AM/PM.
func (v *dtValue) validate() dtErr {
	if v.hasDate {
		switch {
		case v.bc:
			if v.year <= 0 {
				return dtFieldOverflow
			}
			v.year = 1 - v.year
		case v.yearDigits <= 2:
			if v.year < 70 {
				v.year += 2000
			} else {
				v.year += 1900
			}
		case v.year == 0:
			return dtFieldOverflow
		}
		if v.month < 1 || v.month > 12 || v.day < 1 || v.day > daysInMonth(v.year, v.month) {
			return dtFieldOverflow
		}
	}
	if v.hasTime {
		switch v.meridiem {
		case 1, 2:
			if v.hour > 12 {
				return dtFieldOverflow
			}
			if v.hour == 12 {
				v.hour = 0
			}
			if v.meridiem == 2 {
				v.hour += 12
			}
		}
		if v.hour > 24 || v.minute > 59 || v.sec > 60 || v.usec > usecsPerSec ||
			v.hour == 24 && (v.minute > 0 || v.sec > 0 || v.usec > 0) {
			return dtFieldOverflow
		}
	} else if v.meridiem != 0 {
		return dtBadFormat
	}
	return dtOK
}

// timeOfDay returns the decoded time in microseconds since midnight.
func (v *dtValue) timeOfDay() int64 {
	return ((v.hour*60+v.minute)*60+v.sec)*usecsPerSec + v.usec
}

// days returns the decoded date in days since 1970, and false when it is
// outside PostgreSQL's date range.
func (v *dtValue) days() (int64, bool) {
	days := v.julianDays()
	return days, ValidDate(days)
}

// julianDays returns the decoded date in days since 1970, unchecked.
func (v *dtValue) julianDays() int64 { return Date2J(v.year, v.month, v.day) - unixEpochJD }

// relativeDay resolves today/tomorrow/yesterday to days since 1970 (UTC).
func relativeDay(special int) int64 {
	today := floorDiv(time.Now().Unix(), 86400)
	switch special {
	case specialTomorrow:
		return today + 1
	case specialYesterday:
		return today - 1
	}
	return today
}

// parseDateTimeFields splits and decodes date/time input, mapping failures
// to PostgreSQL's errors for type typ.
func parseDateTimeFields(s, typ string) (dtValue, error) {
	fields, ok := splitDateTime(s)
	if !ok || len(fields) == 0 {
		return dtValue{}, dateTimeError(dtBadFormat, typ, s)
	}
	v, e := decodeDateTime(fields)
	if e != dtOK {
		return v, dateTimeError(e, typ, s)
	}
	return v, nil
}

// parseDate is date_in.
func parseDate(s string) (int64, error) {
	v, err := parseDateTimeFields(s, "date")
	if err != nil {
		return 0, err
	}
	switch v.special {
	case specialInfinity:
		return DateTimeInfinity, nil
	case specialNegInfinity:
		return DateTimeNegInfinity, nil
	case specialEpoch:
		return 0, nil
	case specialNow, specialToday, specialTomorrow, specialYesterday:
		return relativeDay(v.special), nil
	case specialAllBalls:
		return 0, dateTimeError(dtBadFormat, "date", s)
	}
	if !v.hasDate {
		return 0, dateTimeError(dtBadFormat, "date", s)
	}
	days, ok := v.days()
	if !ok {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date out of range: \"%s\"", s)
	}
	return days, nil
}

// parseTime is time_in: the time of day of the input, ignoring any date
// and zone.
func parseTime(s string) (int64, error) {
	v, err := parseDateTimeFields(s, "time")
	if err != nil {
		return 0, err
	}
	switch v.special {
	case specialNone:
	case specialAllBalls:
		return 0, nil
	case specialNow:
		return time.Now().UnixMicro() % usecsPerDay, nil
	default:
		return 0, dateTimeError(dtBadFormat, "time", s)
	}
	if !v.hasTime {
		return 0, dateTimeError(dtBadFormat, "time", s)
	}
	tod := v.timeOfDay()
	if tod > usecsPerDay {
		return 0, dateTimeError(dtFieldOverflow, "time", s)
	}
	return tod, nil
}

// parseTimestamp is timestamp_in (withZone false: any zone in the input is
// ignored) and timestamptz_in (withZone true: the zone, UTC by default, is
// applied).
func parseTimestamp(s string, withZone bool, loc *time.Location) (int64, error) {
	if micros, ok := parseISOTimestamp(s); ok {
		if withZone {
			micros = FromLocal(loc, micros)
		}
		return micros, nil
	}
	return parseTimestampFields(s, withZone, loc)
}

// parseTimestampFields is parseTimestamp by the general parser of date
// and time fields.
func parseTimestampFields(s string, withZone bool, loc *time.Location) (int64, error) {
	typ := "timestamp"
	if withZone {
		typ = "timestamp with time zone"
	}
	v, err := parseDateTimeFields(s, typ)
	if err != nil {
		return 0, err
	}
	switch v.special {
	case specialInfinity:
		return DateTimeInfinity, nil
	case specialNegInfinity:
		return DateTimeNegInfinity, nil
	case specialEpoch:
		return UnixEpochTimestamp, nil
	case specialNow:
		return TimestampFromTime(time.Now()), nil
	case specialToday, specialTomorrow, specialYesterday:
		if v.hasDate {
			return 0, dateTimeError(dtBadFormat, typ, s)
		}
		micros, _ := JoinTimestamp(relativeDay(v.special), v.timeOfDay())
		return micros, nil
	case specialAllBalls:
		return 0, dateTimeError(dtBadFormat, typ, s)
	}
	if !v.hasDate {
		return 0, dateTimeError(dtBadFormat, typ, s)
	}
	tod := v.timeOfDay()
	if withZone {
		tod -= v.tzOffset * usecsPerSec
	}
	micros, ok := JoinTimestamp(v.julianDays(), tod)
	if !ok {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "timestamp out of range: \"%s\"", s)
	}
	if withZone && !v.hasTZ {
		micros = FromLocal(loc, micros)
	}
	return micros, nil
}

// parseISOTimestamp parses the form timestamps are written in most often,
// "YYYY-MM-DD HH:MM:SS[.ffffff]" (or with a T), without the general
// parser's field splitting (and its allocations); ok is false for any
// other input, which the general parser then reads.
func parseISOTimestamp(s string) (micros int64, ok bool) {
	if len(s) < 19 || len(s) > 26 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	digits := func(from, to int) (int64, bool) {
		n := int64(0)
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int64(c-'0')
		}
		return n, true
	}
	y, ok1 := digits(0, 4)
	mo, ok2 := digits(5, 7)
	d, ok3 := digits(8, 10)
	h, ok4 := digits(11, 13)
	mi, ok5 := digits(14, 16)
	sec, ok6 := digits(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	usec := int64(0)
	if len(s) > 19 {
		if s[19] != '.' || len(s) == 20 {
			return 0, false
		}
		frac, ok := digits(20, len(s))
		if !ok {
			return 0, false
		}
		for i := len(s) - 20; i < 6; i++ {
			frac *= 10
		}
		usec = frac
	}
	tod := ((h*60+mi)*60+sec)*usecsPerSec + usec
	return JoinTimestamp(Date2J(y, mo, d)-unixEpochJD, tod)
}
