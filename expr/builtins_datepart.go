package expr

import (
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// date_part(unit, value) returns float8; extract(unit, value), what
// EXTRACT(unit FROM value) calls since PostgreSQL 14, returns the same field
// as an exact numeric: integers for whole fields, 3 fractional digits for
// milliseconds, 6 for seconds and epochs.

func init() {
	// timestamptz comes first: PostgreSQL prefers it for an argument of
	// unknown type.
	for _, f := range []types.Family{types.TimestampTZ, types.Timestamp, types.Date, types.Interval, types.Time} {
		t := types.T{Family: f, Mod: -1}
		RegisterBuiltin("date_part", sig(types.TFloat8, func(c *Ctx, a []types.Datum) (types.Datum, error) {
			p, err := datePart(a[0].Str(), a[1], t, false, c.Zone())
			if err != nil {
				return types.Null, err
			}
			return p.float(), nil
		}, types.Text, f))
		RegisterBuiltin("extract", sig(types.TNumeric, func(c *Ctx, a []types.Datum) (types.Datum, error) {
			p, err := datePart(a[0].Str(), a[1], t, true, c.Zone())
			if err != nil {
				return types.Null, err
			}
			return p.numeric()
		}, types.Text, f))
	}
}

// partKind says how a field's value is made of partValue's numbers.
type partKind uint8

const (
	partNull       partKind = iota
	partInt                 // i
	partSeconds             // i seconds and f microseconds, in seconds
	partMillis              // i seconds and f microseconds, in milliseconds
	partEpoch               // i seconds and f microseconds since an epoch
	partStampEpoch          // Unix epoch of timestamp i (microseconds since 2000)
	partJulian              // Julian day i plus f microseconds into the day
	partInf
	partNegInf
)

// partValue is an extracted field, kept exact until it is converted the
// way date_part or extract returns it.
type partValue struct {
	kind partKind
	i, f int64
}

func intPart(i int64) partValue { return partValue{kind: partInt, i: i} }

// float converts the field with the float arithmetic PostgreSQL's date_part
// uses.
func (p partValue) float() types.Datum {
	var r float64
	switch p.kind {
	case partNull:
		return types.Null
	case partInt:
		r = float64(p.i)
	case partSeconds:
		r = float64(p.i) + float64(p.f)/microsPerSecond
	case partMillis:
		r = float64(p.i)*1000 + float64(p.f)/1000
	case partEpoch:
		if math.Abs(float64(p.i)) < math.MaxInt64/microsPerSecond/2 {
			r = float64(p.i*microsPerSecond+p.f) / microsPerSecond
		} else {
			r = float64(p.i) + float64(p.f)/microsPerSecond
		}
	case partStampEpoch:
		if p.i < unixMicrosEnd {
			r = float64(p.i-types.UnixEpochTimestamp) / microsPerSecond
		} else {
			r = (float64(p.i) - types.UnixEpochTimestamp) / microsPerSecond
		}
	case partJulian:
		r = float64(p.i) + (float64(p.f/microsPerSecond)+float64(p.f%microsPerSecond)/microsPerSecond)/86400
	case partInf:
		r = math.Inf(1)
	case partNegInf:
		r = math.Inf(-1)
	}
	return types.NewFloat(r)
}

// numeric converts the field to extract's exact numeric.
func (p partValue) numeric() (types.Datum, error) {
	switch p.kind {
	case partNull:
		return types.Null, nil
	case partInt:
		return types.NewDecimal(apd.New(p.i, 0)), nil
	case partSeconds:
		return types.NewDecimal(apd.New(p.i*microsPerSecond+p.f, -6)), nil
	case partMillis:
		return types.NewDecimal(apd.New(p.i*microsPerSecond+p.f, -3)), nil
	case partEpoch:
		return numericDatum(NumericAdd(apd.New(p.i, 0), apd.New(p.f, -6)))
	case partStampEpoch:
		return stampEpochNumeric(p.i)
	case partJulian:
		frac, err := NumericDiv(apd.New(p.f, 0), apd.New(microsPerDay, 0))
		if err != nil {
			return types.Null, err
		}
		return numericDatum(NumericAdd(apd.New(p.i, 0), frac))
	}
	return types.NewDecimal(&apd.Decimal{Form: apd.Infinite, Negative: p.kind == partNegInf}), nil
}

// unixMicrosEnd is the first timestamp whose microseconds since 1970 do not
// fit below 2^63-1: past it PostgreSQL computes epochs another way.
const unixMicrosEnd = math.MaxInt64 + types.UnixEpochTimestamp

// stampEpochNumeric is extract(epoch from timestamp) of ts: exact, except
// from unixMicrosEnd (294247-01-10 04:00:54.775807) on, where PostgreSQL
// divides in numeric at the scale its division picks (4 digits here).
func stampEpochNumeric(ts int64) (types.Datum, error) {
	if ts < unixMicrosEnd {
		return types.NewDecimal(apd.New(ts-types.UnixEpochTimestamp, -6)), nil
	}
	us, err := NumericSub(apd.New(ts, 0), apd.New(types.UnixEpochTimestamp, 0))
	if err == nil {
		us, err = NumericDiv(us, apd.New(microsPerSecond, 0))
	}
	if err == nil {
		us, err = NumericRound(us, 6)
	}
	return numericDatum(us, err)
}

// datePart extracts unit from v, a value of type t, with date_part's rules
// or (when extract is set) extract's. date_part of a date works on the
// timestamp at its midnight, so it accepts the time-of-day units that
// extract rejects for dates.
func datePart(unit string, v types.Datum, t types.T, extract bool, loc *time.Location) (partValue, error) {
	low, u := parseUnit(unit)
	switch t.Family {
	case types.TimestampTZ:
		// Its fields are the wall clock's in the session's zone, but for
		// the epoch (an instant) and the zone's offset.
		us := v.Micros()
		off := int64(types.ZoneOffset(loc, us))
		switch u {
		case unitTimezone:
			return intPart(off), nil
		case unitTimezoneHour:
			return intPart(off / 3600), nil
		case unitTimezoneMinute:
			return intPart(off / 60 % 60), nil
		case unitEpoch:
		default:
			v = types.NewTimestampTZ(types.ToLocal(loc, us))
		}
	case types.Interval:
		return intervalPart(low, u, v.Interval())
	case types.Time:
		return timePart(low, u, v.Micros())
	case types.Date:
		if extract {
			return instantPart(low, u, v.Date(), 0, t)
		}
		// date_part(unit, date) is date_part(unit, date::timestamp).
		ts, err := types.DateToTimestamp(v.Date())
		if err != nil {
			return partValue{}, err
		}
		v, t = types.NewTimestamp(ts), types.TTimestamp
	}
	if us := v.Micros(); !isInfinite(us) {
		days, tod := types.SplitTimestamp(us)
		return instantPart(low, u, days, tod, t)
	}
	return instantPart(low, u, v.Micros(), 0, t)
}

// instantPart extracts unit from the day and time of day of a timestamp,
// timestamptz or (for t date) date. Infinite days give infinities for the
// units that grow with time and NULL for the cyclic ones.
func instantPart(low string, u dtUnit, days, tod int64, t types.T) (partValue, error) {
	isDate := t.Family == types.Date
	if u == unitInvalid {
		return partValue{}, unitError(low, u, t)
	}
	if isInfinite(days) {
		switch u {
		case unitYear, unitDecade, unitCentury, unitMillennium, unitJulian, unitIsoyear, unitEpoch:
			if days < 0 {
				return partValue{kind: partNegInf}, nil
			}
			return partValue{kind: partInf}, nil
		case unitDay, unitMonth, unitQuarter, unitWeek, unitDow, unitIsodow, unitDoy:
			return partValue{}, nil
		}
		if isDate {
			return partValue{}, unitError(low, u, t)
		}
		return partValue{}, nil
	}
	c := toCivil(days, tod)
	y := c.year
	switch u {
	case unitMicrosecond, unitMillisecond, unitSecond, unitMinute, unitHour:
		if !isDate {
			return clockPart(u, tod), nil
		}
	case unitDay:
		return intPart(c.day), nil
	case unitMonth:
		return intPart(c.month), nil
	case unitQuarter:
		return intPart((c.month-1)/3 + 1), nil
	case unitWeek:
		_, w := c.isoWeek()
		return intPart(w), nil
	case unitYear:
		return intPart(bcYear(y)), nil
	case unitDecade:
		if y >= 0 {
			return intPart(y / 10), nil
		}
		return intPart(-((8 - (y - 1)) / 10)), nil
	case unitCentury:
		if y > 0 {
			return intPart((y + 99) / 100), nil
		}
		return intPart(-((99 - (y - 1)) / 100)), nil
	case unitMillennium:
		if y > 0 {
			return intPart((y + 999) / 1000), nil
		}
		return intPart(-((999 - (y - 1)) / 1000)), nil
	case unitJulian:
		if isDate {
			return intPart(days + unixEpochJulian), nil
		}
		return partValue{kind: partJulian, i: days + unixEpochJulian, f: tod}, nil
	case unitIsoyear:
		iy, _ := c.isoWeek()
		return intPart(bcYear(iy)), nil
	case unitDow:
		return intPart(c.isoDow() % 7), nil
	case unitIsodow:
		return intPart(c.isoDow()), nil
	case unitDoy:
		return intPart(days - civilDays(y, 1, 1) + 1), nil
	case unitEpoch:
		if isDate {
			return intPart(days * 86400), nil
		}
		// The timestamp itself (typmod rounding can take it to the range's
		// end, which JoinTimestamp reports as outside).
		ts, _ := types.JoinTimestamp(days, tod)
		return partValue{kind: partStampEpoch, i: ts}, nil
	case unitTimezone, unitTimezoneHour, unitTimezoneMinute:
		if t.Family == types.TimestampTZ {
			return intPart(0), nil
		}
	}
	return partValue{}, unitError(low, u, t)
}

// clockPart extracts a unit of the clock (microseconds to hours) from
// microseconds, which may exceed a day or be negative for intervals.
func clockPart(u dtUnit, us int64) partValue {
	hour, minute, second, micros := clockFields(us)
	switch u {
	case unitMicrosecond:
		return intPart(second*microsPerSecond + micros)
	case unitMillisecond:
		return partValue{kind: partMillis, i: second, f: micros}
	case unitSecond:
		return partValue{kind: partSeconds, i: second, f: micros}
	case unitMinute:
		return intPart(minute)
	case unitHour:
		return intPart(hour)
	}
	return partValue{}
}

func isClockUnit(u dtUnit) bool { return u >= unitMicrosecond && u <= unitHour }

// timePart extracts unit from a time of day.
func timePart(low string, u dtUnit, us int64) (partValue, error) {
	switch {
	case u == unitEpoch:
		return partValue{kind: partEpoch, i: us / microsPerSecond, f: us % microsPerSecond}, nil
	case isClockUnit(u):
		return clockPart(u, us), nil
	}
	return partValue{}, unitError(low, u, types.TTime)
}

// intervalPart extracts unit from an interval: its months split into years
// and months, its days, and its microseconds split into a clock.
func intervalPart(low string, u dtUnit, iv types.IntervalValue) (partValue, error) {
	if isClockUnit(u) {
		return clockPart(u, iv.Micros), nil
	}
	years, months := int64(iv.Months)/12, int64(iv.Months)%12
	switch u {
	case unitDay:
		return intPart(int64(iv.Days)), nil
	case unitMonth:
		return intPart(months), nil
	case unitQuarter:
		return intPart(months/3 + 1), nil
	case unitYear:
		return intPart(years), nil
	case unitDecade:
		return intPart(years / 10), nil
	case unitCentury:
		return intPart(years / 100), nil
	case unitMillennium:
		return intPart(years / 1000), nil
	case unitEpoch:
		// A year is 365.25 days and a month 30 days; times 4 to stay integral.
		secs := (4*365*years + years + 4*30*months + 4*int64(iv.Days)) * (86400 / 4)
		return partValue{kind: partEpoch, i: secs + iv.Micros/microsPerSecond, f: iv.Micros % microsPerSecond}, nil
	}
	return partValue{}, unitError(low, u, types.TInterval)
}
