package types

import "strconv"

// appendInterval appends interval_out's text in IntervalStyle postgres:
// "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:03:04", "00:00:00".
func appendInterval(dst []byte, iv IntervalValue) []byte {
	t := iv.Micros
	hour := t / usecsPerHour
	t -= hour * usecsPerHour
	minute := t / usecsPerMinute
	t -= minute * usecsPerMinute
	isZero, isBefore := true, false
	dst = appendIntervalPart(dst, int64(iv.Months/12), "year", &isZero, &isBefore)
	dst = appendIntervalPart(dst, int64(iv.Months%12), "mon", &isZero, &isBefore)
	dst = appendIntervalPart(dst, int64(iv.Days), "day", &isZero, &isBefore)
	if !isZero && hour == 0 && minute == 0 && t == 0 {
		return dst
	}
	if !isZero {
		dst = append(dst, ' ')
	}
	if hour < 0 || minute < 0 || t < 0 {
		dst = append(dst, '-')
		hour, minute, t = -hour, -minute, -t
	} else if isBefore {
		dst = append(dst, '+')
	}
	dst = appendPadded(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, minute, 2)
	dst = append(dst, ':')
	return appendSeconds(dst, t)
}

// appendIntervalPart is PostgreSQL's AddPostgresIntPart: a nonzero field
// with its unit, plural unless 1, and a '+' after a negative field.
func appendIntervalPart(dst []byte, v int64, unit string, isZero, isBefore *bool) []byte {
	if v == 0 {
		return dst
	}
	if !*isZero {
		dst = append(dst, ' ')
	}
	if *isBefore && v > 0 {
		dst = append(dst, '+')
	}
	dst = strconv.AppendInt(dst, v, 10)
	dst = append(dst, ' ')
	dst = append(dst, unit...)
	if v != 1 {
		dst = append(dst, 's')
	}
	*isBefore, *isZero = v < 0, false
	return dst
}
