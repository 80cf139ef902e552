package expr

import (
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// The session time zone is UTC: timestamptz values are broken into fields
// in UTC, and the current date and time are UTC's.

const (
	microsPerMinute = 60 * microsPerSecond
	microsPerHour   = 60 * microsPerMinute
	unixEpochJulian = 2440588 // Julian day number of 1970-01-01
)

// daysIn returns the length of a month of an astronomical year.
func daysIn(year, month int64) int64 {
	return int64(time.Date(int(year), time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day())
}

// civil is a timestamp broken into calendar fields, PostgreSQL's pg_tm. The
// year is astronomical: 0 is 1 BC.
type civil struct {
	days                         int64 // since 1970-01-01
	year, month, day             int64
	hour, minute, second, micros int64
}

// toCivil breaks a day and a time of day (as types.SplitTimestamp returns
// them) into calendar fields.
func toCivil(days, tod int64) civil {
	y, m, d := time.Unix(days*86400, 0).UTC().Date()
	return civil{
		days: days, year: int64(y), month: int64(m), day: int64(d),
		hour: tod / microsPerHour, minute: tod / microsPerMinute % 60,
		second: tod / microsPerSecond % 60, micros: tod % microsPerSecond,
	}
}

// civilDays returns the days since 1970 of a calendar date.
func civilDays(year, month, day int64) int64 {
	return time.Date(int(year), time.Month(month), int(day), 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// timeOfDay returns the microseconds since midnight of the clock fields.
func (c civil) timeOfDay() int64 {
	return ((c.hour*60+c.minute)*60+c.second)*microsPerSecond + c.micros
}

// isoDow is the ISO day of the week, 1 (Monday) to 7 (Sunday).
func (c civil) isoDow() int64 {
	// 1970-01-01 was a Thursday.
	d := (c.days + 3) % 7
	if d < 0 {
		d += 7
	}
	return d + 1
}

// isoWeek returns the ISO 8601 year and week number.
func (c civil) isoWeek() (year, week int64) {
	y, w := time.Unix(c.days*86400, 0).UTC().ISOWeek()
	return int64(y), int64(w)
}

// bcYear converts an astronomical year to the signed year PostgreSQL
// reports: there is no year 0, 1 BC is -1.
func bcYear(y int64) int64 {
	if y > 0 {
		return y
	}
	return y - 1
}

// dtUnit is a field of date_part, extract and date_trunc. The clock units,
// microseconds to hours, come first and in order.
type dtUnit uint8

const (
	unitInvalid dtUnit = iota
	unitMicrosecond
	unitMillisecond
	unitSecond
	unitMinute
	unitHour
	unitDay
	unitWeek
	unitMonth
	unitQuarter
	unitYear
	unitDecade
	unitCentury
	unitMillennium
	unitEpoch
	unitDow
	unitIsodow
	unitDoy
	unitIsoyear
	unitJulian
	unitTimezone
	unitTimezoneHour
	unitTimezoneMinute
)

// dtUnits holds PostgreSQL's spellings of the units, cut to 10 characters
// as PostgreSQL compares them.
var dtUnits = map[string]dtUnit{
	"microsecon": unitMicrosecond, "us": unitMicrosecond, "usec": unitMicrosecond, "usecs": unitMicrosecond, "useconds": unitMicrosecond,
	"millisecon": unitMillisecond, "ms": unitMillisecond, "msec": unitMillisecond, "msecs": unitMillisecond, "mseconds": unitMillisecond,
	"second": unitSecond, "seconds": unitSecond, "s": unitSecond, "sec": unitSecond, "secs": unitSecond,
	"minute": unitMinute, "minutes": unitMinute, "m": unitMinute, "min": unitMinute, "mins": unitMinute,
	"hour": unitHour, "hours": unitHour, "h": unitHour, "hr": unitHour, "hrs": unitHour,
	"day": unitDay, "days": unitDay, "d": unitDay,
	"week": unitWeek, "weeks": unitWeek, "w": unitWeek,
	"month": unitMonth, "months": unitMonth, "mon": unitMonth, "mons": unitMonth,
	"quarter": unitQuarter, "qtr": unitQuarter,
	"year": unitYear, "years": unitYear, "y": unitYear, "yr": unitYear, "yrs": unitYear,
	"decade": unitDecade, "decades": unitDecade, "dec": unitDecade, "decs": unitDecade,
	"century": unitCentury, "centuries": unitCentury, "c": unitCentury, "cent": unitCentury,
	"millennium": unitMillennium, "millennia": unitMillennium, "mil": unitMillennium, "mils": unitMillennium,
	"epoch": unitEpoch, "dow": unitDow, "isodow": unitIsodow, "doy": unitDoy, "isoyear": unitIsoyear,
	"julian": unitJulian, "j": unitJulian, "jd": unitJulian,
	"timezone": unitTimezone, "timezone_h": unitTimezoneHour, "timezone_m": unitTimezoneMinute,
}

// parseUnit returns the lower-cased unit name and the unit it names.
func parseUnit(s string) (string, dtUnit) {
	low := strings.ToLower(s)
	return low, dtUnits[low[:min(len(low), 10)]]
}

// unitError is PostgreSQL's error for a unit a type does not have: not
// recognized at all, or not supported for that type.
func unitError(low string, u dtUnit, t types.T) error {
	if u == unitInvalid {
		return pgerror.New(pgerror.CodeInvalidParameterValue, "unit \"%s\" not recognized for type %s", low, t)
	}
	return pgerror.New(pgerror.CodeFeatureNotSupported, "unit \"%s\" not supported for type %s", low, t)
}

// clockFields splits microseconds into hours, minutes, seconds and
// microseconds, truncating toward zero as PostgreSQL's interval2tm does.
func clockFields(us int64) (hour, minute, second, micros int64) {
	hour = us / microsPerHour
	us -= hour * microsPerHour
	minute = us / microsPerMinute
	us -= minute * microsPerMinute
	second = us / microsPerSecond
	return hour, minute, second, us - second*microsPerSecond
}

// isInfinite reports whether a date, timestamp or timestamptz value is
// 'infinity' or '-infinity'.
func isInfinite(v int64) bool { return v == types.DateTimeInfinity || v == types.DateTimeNegInfinity }
