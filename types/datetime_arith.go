package types

import (
	"math"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// Date/time arithmetic with PostgreSQL's range checks. Every operator and
// function that computes a date, timestamp or timestamptz goes through one
// of these (or MakeDate / MakeTimestamp / MakeTimestampTZ), so the range of
// each type is checked in one place.

// errDateRange is PostgreSQL's error for a date outside its range.
func errDateRange() error {
	return pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date out of range")
}

// ErrTimestampRange returns PostgreSQL's error for a timestamp outside its
// range ("timestamp out of range", 22008).
func ErrTimestampRange() error {
	return pgerror.New(pgerror.CodeDatetimeFieldOverflow, "timestamp out of range")
}

// ErrIntervalRange returns PostgreSQL's error for an interval field that
// overflows ("interval out of range", 22008).
func ErrIntervalRange() error {
	return pgerror.New(pgerror.CodeDatetimeFieldOverflow, "interval out of range")
}

// ValidDate reports whether days (since 1970-01-01) is a finite date in
// PostgreSQL's range, 4714-11-24 BC to 5874897-12-31 (IS_VALID_DATE).
func ValidDate(days int64) bool { return days >= minDateDays && days < endDateDays }

// ValidTimestamp reports whether micros (since 2000-01-01) is a finite
// timestamp in PostgreSQL's range, 4714-11-24 BC to 294276-12-31
// 23:59:59.999999 (IS_VALID_TIMESTAMP).
func ValidTimestamp(micros int64) bool { return micros >= minTimestamp && micros < endTimestamp }

// MakeDate returns the date of days since 1970-01-01, or "date out of
// range" outside PostgreSQL's range; infinities pass.
func MakeDate(days int64) (Datum, error) {
	if !ValidDate(days) && !isInfinity(days) {
		return Null, errDateRange()
	}
	return NewDate(days), nil
}

// MakeTimestamp returns the timestamp of micros since 2000-01-01, or
// "timestamp out of range" outside PostgreSQL's range; infinities pass.
func MakeTimestamp(micros int64) (Datum, error) {
	if err := checkTimestamp(micros); err != nil {
		return Null, err
	}
	return NewTimestamp(micros), nil
}

// MakeTimestampTZ is MakeTimestamp for timestamptz.
func MakeTimestampTZ(micros int64) (Datum, error) {
	if err := checkTimestamp(micros); err != nil {
		return Null, err
	}
	return NewTimestampTZ(micros), nil
}

func checkTimestamp(micros int64) error {
	if !ValidTimestamp(micros) && !isInfinity(micros) {
		return ErrTimestampRange()
	}
	return nil
}

func isInfinity(v int64) bool { return v == DateTimeInfinity || v == DateTimeNegInfinity }

// TimestampFromTime returns the timestamp (or timestamptz) value of t's
// instant, in microseconds since 2000-01-01 UTC.
func TimestampFromTime(t time.Time) int64 { return t.UnixMicro() + UnixEpochTimestamp }

// TimestampToTime returns the instant of a finite timestamptz value (a
// timestamp's wall clock read as UTC).
func TimestampToTime(micros int64) time.Time {
	secs := floorDiv(micros, usecsPerSec)
	return time.Unix(secs-UnixEpochTimestamp/usecsPerSec, (micros-secs*usecsPerSec)*1000).UTC()
}

// JoinTimestamp returns the timestamp tod microseconds (of any sign) after
// midnight of days since 1970-01-01, and false when it is outside
// PostgreSQL's timestamp range (tm2timestamp).
func JoinTimestamp(days, tod int64) (int64, bool) {
	micros, ok := MulInt64(days-pgEpochDays, usecsPerDay)
	if !ok {
		return 0, false
	}
	micros, ok = AddInt64(micros, tod)
	return micros, ok && ValidTimestamp(micros)
}

// DateToTimestamp returns the timestamp at midnight of a date
// (date2timestamp), keeping infinities: "date out of range for timestamp"
// past 294276-12-31.
func DateToTimestamp(days int64) (int64, error) {
	if isInfinity(days) {
		return days, nil
	}
	if days >= endTimestampDays {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date out of range for timestamp")
	}
	return (days - pgEpochDays) * usecsPerDay, nil
}

// DateAddDays is date + integer (date_pli): infinities stay, a result
// outside the date range is "date out of range".
func DateAddDays(days, n int64) (Datum, error) {
	if isInfinity(days) {
		return NewDate(days), nil
	}
	r, ok := AddInt64(days, n)
	if !ok {
		return Null, errDateRange()
	}
	return MakeDate(r)
}

// TimestampAddInterval is timestamp + interval (timestamp_pl_interval), for
// timestamp and timestamptz alike (the session time zone is UTC): months
// first, clamping the day to the month's end, then days on the calendar,
// then microseconds. Infinities stay; a result outside the timestamp range
// is "timestamp out of range".
func TimestampAddInterval(micros int64, iv IntervalValue) (int64, error) {
	return timestampAdd(micros, int64(iv.Months), int64(iv.Days), iv.Micros)
}

// TimestampTZAddInterval is timestamptz + interval in TimeZone loc
// (timestamptz_pl_interval): months and days move the wall clock in loc
// (one day across a DST change is 23 or 25 hours), then microseconds the
// instant; sign -1 subtracts the interval.
func TimestampTZAddInterval(loc *time.Location, micros int64, iv IntervalValue, sign int64) (int64, error) {
	if iv.Micros == math.MinInt64 && sign < 0 && !isInfinity(micros) {
		return 0, ErrTimestampRange()
	}
	if isInfinity(micros) {
		return micros, nil
	}
	if iv.Months != 0 || iv.Days != 0 {
		local, err := timestampAdd(ToLocal(loc, micros), sign*int64(iv.Months), sign*int64(iv.Days), 0)
		if err != nil {
			return 0, err
		}
		micros = FromLocal(loc, local)
	}
	return timestampAdd(micros, 0, 0, sign*iv.Micros)
}

// TimestampSubInterval is timestamp - interval (timestamp_mi_interval).
func TimestampSubInterval(micros int64, iv IntervalValue) (int64, error) {
	if iv.Micros == math.MinInt64 && !isInfinity(micros) {
		// 2^63 microseconds from any timestamp leaves the range.
		return 0, ErrTimestampRange()
	}
	return timestampAdd(micros, -int64(iv.Months), -int64(iv.Days), -iv.Micros)
}

func timestampAdd(micros, months, days, us int64) (int64, error) {
	if isInfinity(micros) {
		return micros, nil
	}
	if months != 0 || days != 0 {
		date, tod := SplitTimestamp(micros)
		ok := true
		if months != 0 {
			y, m, d := j2date(date + unixEpochJD)
			m += months - 1
			y += floorDiv(m, 12)
			m = m - floorDiv(m, 12)*12 + 1
			date = Date2J(y, m, min(d, daysInMonth(y, m))) - unixEpochJD
			_, ok = JoinTimestamp(date, tod) // each step must stay in range
		}
		if ok {
			micros, ok = JoinTimestamp(date+days, tod)
		}
		if !ok {
			return 0, ErrTimestampRange()
		}
	}
	r, ok := AddInt64(micros, us)
	if !ok || !ValidTimestamp(r) {
		return 0, ErrTimestampRange()
	}
	return r, nil
}

// TimestampSub is timestamp - timestamp (timestamp_mi): the difference in
// microseconds, wrapping past 64 bits as PostgreSQL 15 does, as days and
// time (justify_hours). Infinities are "cannot subtract infinite
// timestamps".
func TimestampSub(a, b int64) (IntervalValue, error) {
	if isInfinity(a) || isInfinity(b) {
		return IntervalValue{}, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "cannot subtract infinite timestamps")
	}
	d := a - b
	return IntervalValue{Days: int32(d / usecsPerDay), Micros: d % usecsPerDay}, nil
}
