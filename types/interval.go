package types

import (
	"math"
	"strconv"

	"github.com/streamdb/streamdb/pgerror"
)

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

// Add is interval + interval (interval_pl): field by field, "interval out
// of range" when a field overflows.
func (a IntervalValue) Add(b IntervalValue) (IntervalValue, error) {
	micros, ok := AddInt64(a.Micros, b.Micros)
	return a.combine(b, 1, micros, ok)
}

// Sub is interval - interval (interval_mi).
func (a IntervalValue) Sub(b IntervalValue) (IntervalValue, error) {
	micros, ok := SubInt64(a.Micros, b.Micros)
	return a.combine(b, -1, micros, ok)
}

// Neg is -interval (interval_um): "interval out of range" when a field is
// at its type's minimum.
func (a IntervalValue) Neg() (IntervalValue, error) { return IntervalValue{}.Sub(a) }

// combine finishes Add (sign 1) or Sub (sign -1) given the microseconds
// and whether they did not overflow.
func (a IntervalValue) combine(b IntervalValue, sign, micros int64, ok bool) (IntervalValue, error) {
	months := int64(a.Months) + sign*int64(b.Months)
	days := int64(a.Days) + sign*int64(b.Days)
	if !ok || !fitsInt32(months) || !fitsInt32(days) {
		return IntervalValue{}, ErrIntervalRange()
	}
	return IntervalValue{Months: int32(months), Days: int32(days), Micros: micros}, nil
}

// Mul is interval * float8 (interval_mul): months and days are multiplied
// apart, their fractions cascading down into days and microseconds (30-day
// months, 24-hour days) with PostgreSQL's float arithmetic and rounding;
// "interval out of range" when a field overflows or the factor is NaN.
func (a IntervalValue) Mul(factor float64) (IntervalValue, error) {
	return a.scale(func(v float64) float64 { return v * factor })
}

// Div is interval / float8 (interval_div): like Mul with each field divided
// by the divisor; "division by zero" (22012) for 0.
func (a IntervalValue) Div(divisor float64) (IntervalValue, error) {
	if divisor == 0 {
		return IntervalValue{}, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	}
	return a.scale(func(v float64) float64 { return v / divisor })
}

// scale is interval_mul and interval_div, with f applying the factor.
func (a IntervalValue) scale(f func(float64) float64) (IntervalValue, error) {
	monthsF, daysF := f(float64(a.Months)), f(float64(a.Days))
	if !float64FitsInt32(monthsF) || !float64FitsInt32(daysF) {
		return IntervalValue{}, ErrIntervalRange()
	}
	months, days := int32(monthsF), int32(daysF)
	monthRemainderDays := tsRound((monthsF - float64(months)) * daysPerMonth)
	secRemainder := tsRound((daysF - float64(days) + monthRemainderDays - math.Trunc(monthRemainderDays)) * secsPerDay)
	ok := true
	if math.Abs(secRemainder) >= secsPerDay {
		whole := math.Trunc(secRemainder / secsPerDay)
		days, ok = addInt32(days, int32(whole))
		secRemainder -= whole * secsPerDay
	}
	days, ok2 := addInt32(days, int32(monthRemainderDays))
	micros := math.RoundToEven(f(float64(a.Micros)) + secRemainder*usecsPerSec)
	if !ok || !ok2 || !float64FitsInt64(micros) {
		return IntervalValue{}, ErrIntervalRange()
	}
	return IntervalValue{Months: months, Days: days, Micros: int64(micros)}, nil
}

// PostgreSQL's DAYS_PER_MONTH and SECS_PER_DAY, as floats.
const (
	daysPerMonth = 30.0
	secsPerDay   = 86400.0
)

// tsRound is PostgreSQL's TSROUND: rounding to microsecond precision, half
// to even.
func tsRound(f float64) float64 { return math.RoundToEven(f*usecsPerSec) / usecsPerSec }

// IntervalSum is an exact sum of intervals that values are added to and
// retracted from in any order, as streaming aggregates need: months and
// days in 64 bits, microseconds in 128 (a 64-bit part that wraps around
// and the count of its wraps). Only the sum read out has to fit an
// interval.
type IntervalSum struct {
	Months, Days, Micros, MicrosWraps int64
}

// Add adds iv to the sum, or takes it away when retract is set.
func (s *IntervalSum) Add(iv IntervalValue, retract bool) {
	months, days, micros := int64(iv.Months), int64(iv.Days), iv.Micros
	var ok, up bool // up: an overflow wraps past the maximum
	if retract {
		s.Months, s.Days = s.Months-months, s.Days-days
		s.Micros, ok = SubInt64(s.Micros, micros)
		up = micros < 0
	} else {
		s.Months, s.Days = s.Months+months, s.Days+days
		s.Micros, ok = AddInt64(s.Micros, micros)
		up = micros > 0
	}
	switch {
	case ok:
	case up:
		s.MicrosWraps++
	default:
		s.MicrosWraps--
	}
}

// Interval returns the sum, or "interval out of range" when a field does
// not fit.
func (s IntervalSum) Interval() (IntervalValue, error) {
	if s.MicrosWraps != 0 || !fitsInt32(s.Months) || !fitsInt32(s.Days) {
		return IntervalValue{}, ErrIntervalRange()
	}
	return IntervalValue{Months: int32(s.Months), Days: int32(s.Days), Micros: s.Micros}, nil
}
