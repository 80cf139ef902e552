package expr

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func init() {
	now := func(f func(c *Ctx) types.Datum) builtinFn {
		return func(c *Ctx, _ []types.Datum) (types.Datum, error) { return f(c), nil }
	}
	// The current-time functions read the statement's clock, Ctx.Now: they
	// are stable within a statement (not volatile) but must not be folded
	// into a plan that outlives it.
	stamp := func(c *Ctx) types.Datum { return types.NewTimestampTZ(types.TimestampFromTime(c.Now)) }
	for _, name := range []string{"now", "transaction_timestamp", "statement_timestamp"} {
		RegisterBuiltin(name, sig(types.TTimestampTZ, now(stamp)))
	}
	// proctime() is RisingWave's processing time: now() in a session's
	// statement, and in a view's dataflow (no Backend) the time the row is
	// processed (volatile: over an append-only input only).
	RegisterBuiltin("proctime", volatile(sig(types.TTimestampTZ, now(func(c *Ctx) types.Datum {
		if c == nil || c.Backend == nil {
			return types.NewTimestampTZ(types.TimestampFromTime(time.Now()))
		}
		return stamp(c)
	}))))
	RegisterBuiltin("clock_timestamp", volatile(sig(types.TTimestampTZ, func(*Ctx, []types.Datum) (types.Datum, error) {
		return types.NewTimestampTZ(types.TimestampFromTime(time.Now())), nil
	})))
	RegisterBuiltin("current_date", sig(types.TDate, now(func(c *Ctx) types.Datum { return types.NewDate(today(c)) })))
	currentWithPrecision("current_timestamp", types.TTimestampTZ, false, types.NewTimestampTZ)
	currentWithPrecision("localtimestamp", types.TTimestamp, true, types.NewTimestamp)
	timeOfDay := func(us int64) types.Datum {
		_, tod := types.SplitTimestamp(us)
		return types.NewTime(tod)
	}
	currentWithPrecision("current_time", types.TTime, true, timeOfDay)
	currentWithPrecision("localtime", types.TTime, true, timeOfDay)

	// timezone(zone, t) is t AT TIME ZONE zone: a timestamptz's wall clock
	// in zone, or the instant of a timestamp's wall clock there.
	atZone := func(toLocal bool) builtinFn {
		return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			loc, err := zoneArg(a[0])
			if err != nil {
				return types.Null, err
			}
			if toLocal {
				return types.NewTimestamp(types.ToLocal(loc, a[1].Micros())), nil
			}
			return types.NewTimestampTZ(types.FromLocal(loc, a[1].Micros())), nil
		}
	}
	RegisterBuiltin("timezone",
		sig(types.TTimestamp, atZone(true), types.Text, types.TimestampTZ),
		sig(types.TTimestampTZ, atZone(false), types.Text, types.Timestamp),
		sig(types.TTimestamp, atZone(true), types.Interval, types.TimestampTZ),
		sig(types.TTimestampTZ, atZone(false), types.Interval, types.Timestamp))

	// timestamptz comes first: PostgreSQL prefers it for a date argument.
	RegisterBuiltin("date_trunc",
		sig(types.TTimestampTZ, func(c *Ctx, a []types.Datum) (types.Datum, error) {
			return truncTimestampTZ(a[0].Str(), a[1].Micros(), c.Zone())
		}, types.Text, types.TimestampTZ),
		sig(types.TTimestampTZ, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			loc, err := zoneArg(a[2])
			if err != nil {
				return types.Null, err
			}
			return truncTimestampTZ(a[0].Str(), a[1].Micros(), loc)
		}, types.Text, types.TimestampTZ, types.Text),
		sig(types.TTimestamp, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return truncTimestamp(a[0].Str(), a[1].Micros(), types.TTimestamp)
		}, types.Text, types.Timestamp),
		sig(types.TInterval, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return datumOf(types.NewInterval)(truncInterval(a[0].Str(), a[1].Interval()))
		}, types.Text, types.Interval))

	ageDatum := func(a, b int64) (types.Datum, error) { return datumOf(types.NewInterval)(age(a, b)) }
	midnight := func(c *Ctx) int64 {
		ts, _ := types.JoinTimestamp(today(c), 0)
		return ts
	}
	for _, f := range []types.Family{types.TimestampTZ, types.Timestamp} {
		RegisterBuiltin("age",
			sig(types.TInterval, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return ageDatum(a[0].Micros(), a[1].Micros())
			}, f, f),
			sig(types.TInterval, func(c *Ctx, a []types.Datum) (types.Datum, error) {
				return ageDatum(midnight(c), a[0].Micros())
			}, f))
	}

	RegisterBuiltin("make_date", sig(types.TDate, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return datumOf(types.NewDate)(makeDate(a[0].Int(), a[1].Int(), a[2].Int()))
	}, types.Int4, types.Int4, types.Int4))
	RegisterBuiltin("make_time", sig(types.TTime, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return datumOf(types.NewTime)(makeTime(a[0].Int(), a[1].Int(), a[2].Float()))
	}, types.Int4, types.Int4, types.Float8))
	for _, m := range []struct {
		name string
		t    types.T
		mk   func(us int64) types.Datum
	}{{"make_timestamp", types.TTimestamp, types.NewTimestamp}, {"make_timestamptz", types.TTimestampTZ, types.NewTimestampTZ}} {
		RegisterBuiltin(m.name, sig(m.t, func(c *Ctx, a []types.Datum) (types.Datum, error) {
			us, err := makeTimestamp(a[0].Int(), a[1].Int(), a[2].Int(), a[3].Int(), a[4].Int(), a[5].Float())
			if err == nil && m.t.Family == types.TimestampTZ {
				us = types.FromLocal(c.Zone(), us) // the wall clock in the session's zone
			}
			return datumOf(m.mk)(us, err)
		}, types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8))
	}
	RegisterBuiltin("make_timestamptz", sig(types.TTimestampTZ, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		loc, err := zoneArg(a[6])
		if err != nil {
			return types.Null, err
		}
		us, err := makeTimestamp(a[0].Int(), a[1].Int(), a[2].Int(), a[3].Int(), a[4].Int(), a[5].Float())
		if err == nil {
			us = types.FromLocal(loc, us)
		}
		return datumOf(types.NewTimestampTZ)(us, err)
	}, types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8, types.Text))
	intervalArgs := []types.Family{types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Int4, types.Float8}
	for n := range len(intervalArgs) + 1 {
		RegisterBuiltin("make_interval", sig(types.TInterval, makeInterval, intervalArgs[:n]...))
	}
	RegisterBuiltin("to_timestamp", sig(types.TTimestampTZ, toTimestamp, types.Float8))

	justify := func(f func(types.IntervalValue) (types.IntervalValue, error)) Overload {
		return sig(types.TInterval, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return datumOf(types.NewInterval)(f(a[0].Interval()))
		}, types.Interval)
	}
	RegisterBuiltin("justify_days", justify(justifyDays))
	RegisterBuiltin("justify_hours", justify(justifyHours))
	RegisterBuiltin("justify_interval", justify(justifyInterval))

	finite := func(f types.Family) Overload {
		return sig(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.NewBool(f == types.Interval || !isInfinite(a[0].Int())), nil
		}, f)
	}
	RegisterBuiltin("isfinite", finite(types.Date), finite(types.TimestampTZ), finite(types.Timestamp), finite(types.Interval))
}

// currentWithPrecision registers name() and name(precision) returning the
// statement's start time as mk builds it, rounded to precision fractional
// digits of a second.
func currentWithPrecision(name string, t types.T, local bool, mk func(us int64) types.Datum) {
	what, zone := "TIMESTAMP", ""
	if t.Family == types.Time {
		what = "TIME"
	}
	if name == "current_timestamp" || name == "current_time" {
		zone = " WITH TIME ZONE"
	}
	// now is the statement's clock, as the wall clock in the session's
	// zone if local.
	now := func(c *Ctx) int64 {
		us := types.TimestampFromTime(c.Now)
		if local {
			us = types.ToLocal(c.Zone(), us)
		}
		return us
	}
	RegisterBuiltin(name,
		sig(t, func(c *Ctx, _ []types.Datum) (types.Datum, error) { return mk(now(c)), nil }),
		sig(t, func(c *Ctx, a []types.Datum) (types.Datum, error) {
			p := a[0].Int()
			if p < 0 {
				return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "%s(%d)%s precision must not be negative", what, p, zone)
			}
			return mk(roundToPrecision(now(c), p)), nil
		}, types.Int4))
}

// today is the statement's current date in the session's zone.
func today(c *Ctx) int64 {
	days, _ := types.SplitTimestamp(types.ToLocal(c.Zone(), types.TimestampFromTime(c.Now)))
	return days
}

// zoneArg reads a time zone argument: a name (as TimeZone takes) or an
// interval, hours east of Greenwich.
func zoneArg(d types.Datum) (*time.Location, error) {
	if d.Kind() == types.KindInterval {
		iv := d.Interval()
		if iv.Months != 0 || iv.Days != 0 {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "interval time zone %q must not include months or days", types.FormatText(nil, types.TInterval, d))
		}
		return time.FixedZone("", int(iv.Micros/microsPerSecond)), nil
	}
	loc, _, err := types.ParseZone(d.Str())
	if err != nil {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "time zone \"%s\" not recognized", d.Str())
	}
	return loc, nil
}

// truncTimestampTZ is date_trunc(unit, timestamptz) in zone loc: the wall
// clock truncated, back to an instant with the zone's offset then (for
// units below a day, the offset it had, as PostgreSQL keeps it).
func truncTimestampTZ(unit string, us int64, loc *time.Location) (types.Datum, error) {
	if isInfinite(us) {
		return types.MakeTimestampTZ(us)
	}
	off := int64(types.ZoneOffset(loc, us)) * microsPerSecond
	d, err := truncTimestamp(unit, us+off, types.TTimestampTZ)
	if err != nil {
		return d, err
	}
	switch _, u := parseUnit(unit); u {
	case unitHour, unitMinute, unitSecond, unitMillisecond, unitMicrosecond:
		return types.MakeTimestampTZ(d.Micros() - off)
	}
	return types.MakeTimestampTZ(types.FromLocal(loc, d.Micros()))
}

// roundToPrecision rounds microseconds half away from zero to p fractional
// digits of a second (p >= 6 leaves them alone).
func roundToPrecision(us, p int64) int64 {
	if p >= 6 {
		return us
	}
	scale := pow10(int(6 - p))
	if us >= 0 {
		return (us + scale/2) / scale * scale
	}
	return -((-us + scale/2) / scale * scale)
}

// pow10 returns 10^n for small n >= 0.
func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// truncTimestamp is date_trunc(unit, timestamp[tz]).
func truncTimestamp(unit string, us int64, t types.T) (types.Datum, error) {
	mk := types.MakeTimestamp
	if t.Family == types.TimestampTZ {
		mk = types.MakeTimestampTZ
	}
	if isInfinite(us) {
		return mk(us)
	}
	low, u := parseUnit(unit)
	c := toCivil(types.SplitTimestamp(us))
	switch u {
	case unitWeek:
		c = toCivil(c.days-(c.isoDow()-1), 0)
	case unitMillennium:
		if c.year > 0 {
			c.year = (c.year+999)/1000*1000 - 999
		} else {
			c.year = -((999-(c.year-1))/1000)*1000 + 1
		}
		fallthrough
	case unitCentury:
		if c.year > 0 {
			c.year = (c.year+99)/100*100 - 99
		} else {
			c.year = -((99-(c.year-1))/100)*100 + 1
		}
		fallthrough
	case unitDecade:
		if u == unitDecade {
			if c.year > 0 {
				c.year = c.year / 10 * 10
			} else {
				c.year = -((8 - (c.year - 1)) / 10) * 10
			}
		}
		fallthrough
	case unitYear:
		c.month = 1
		fallthrough
	case unitQuarter:
		c.month = (c.month-1)/3*3 + 1
		fallthrough
	case unitMonth:
		c.day = 1
		fallthrough
	case unitDay:
		c.hour = 0
		fallthrough
	case unitHour:
		c.minute = 0
		fallthrough
	case unitMinute:
		c.second = 0
		fallthrough
	case unitSecond:
		c.micros = 0
	case unitMillisecond:
		c.micros = c.micros / 1000 * 1000
	case unitMicrosecond:
	default:
		return types.Null, unitError(low, u, t)
	}
	r, ok := types.JoinTimestamp(civilDays(c.year, c.month, c.day), c.timeOfDay())
	if !ok {
		return types.Null, types.ErrTimestampRange()
	}
	return mk(r)
}

// truncInterval is date_trunc(unit, interval).
func truncInterval(unit string, iv types.IntervalValue) (types.IntervalValue, error) {
	low, u := parseUnit(unit)
	years, months, days := int64(iv.Months)/12, int64(iv.Months)%12, int64(iv.Days)
	hour, minute, second, micros := clockFields(iv.Micros)
	switch u {
	case unitMillennium:
		years = years / 1000 * 1000
		fallthrough
	case unitCentury:
		years = years / 100 * 100
		fallthrough
	case unitDecade:
		years = years / 10 * 10
		fallthrough
	case unitYear:
		months = 0
		fallthrough
	case unitQuarter:
		months = months / 3 * 3
		fallthrough
	case unitMonth:
		days = 0
		fallthrough
	case unitDay:
		hour = 0
		fallthrough
	case unitHour:
		minute = 0
		fallthrough
	case unitMinute:
		second = 0
		fallthrough
	case unitSecond:
		micros = 0
	case unitMillisecond:
		micros = micros / 1000 * 1000
	case unitMicrosecond:
	case unitWeek:
		return iv, pgerror.New(pgerror.CodeFeatureNotSupported, "unit \"%s\" not supported for type interval", low).
			WithDetail("Months usually have fractional weeks.")
	default:
		return iv, unitError(low, u, types.TInterval)
	}
	return types.IntervalValue{
		Months: int32(years*12 + months),
		Days:   int32(days),
		Micros: ((hour*60+minute)*60+second)*microsPerSecond + micros,
	}, nil
}

// age is age(a, b): a - b as years, months and days counted on the
// calendar, borrowing from b's month (or a's when a < b) as PostgreSQL does.
// PostgreSQL 15 reads 'infinity' as the instant its stored value would be
// (early in 294277) and refuses '-infinity', which lies before Julian day 0.
func age(a, b int64) (types.IntervalValue, error) {
	if a == types.DateTimeNegInfinity || b == types.DateTimeNegInfinity {
		return types.IntervalValue{}, types.ErrTimestampRange()
	}
	c1, c2 := toCivil(types.SplitTimestamp(a)), toCivil(types.SplitTimestamp(b))
	d := civil{
		year: c1.year - c2.year, month: c1.month - c2.month, day: c1.day - c2.day,
		hour: c1.hour - c2.hour, minute: c1.minute - c2.minute, second: c1.second - c2.second, micros: c1.micros - c2.micros,
	}
	neg := a < b
	if neg {
		d = negateCivil(d)
	}
	borrow := c2
	if neg {
		borrow = c1
	}
	for d.micros < 0 {
		d.micros += microsPerSecond
		d.second--
	}
	for d.second < 0 {
		d.second += 60
		d.minute--
	}
	for d.minute < 0 {
		d.minute += 60
		d.hour--
	}
	for d.hour < 0 {
		d.hour += 24
		d.day--
	}
	for d.day < 0 {
		d.day += daysIn(borrow.year, borrow.month)
		d.month--
	}
	for d.month < 0 {
		d.month += 12
		d.year--
	}
	if neg {
		d = negateCivil(d)
	}
	return types.IntervalValue{Months: int32(d.year*12 + d.month), Days: int32(d.day), Micros: d.timeOfDay()}, nil
}

func negateCivil(c civil) civil {
	return civil{year: -c.year, month: -c.month, day: -c.day, hour: -c.hour, minute: -c.minute, second: -c.second, micros: -c.micros}
}

// dateArgs resolves the date arguments of make_date and make_timestamp
// (negative years are BC) as PostgreSQL's ValidateDate does: the days since
// 1970 and the astronomical year (1 BC is 0), with fieldOK false for a date
// that does not exist and julianOK false outside the Julian-day range
// (IS_VALID_JULIAN: 4713-11-01 BC to 5874898-05-31).
func dateArgs(year, month, day int64) (days, astro int64, fieldOK, julianOK bool) {
	astro = year
	switch {
	case year == math.MinInt32 || year == 0:
		// PostgreSQL negates a BC year in 32 bits, so -2^31 stays negative.
		return 0, year, false, false
	case year < 0:
		astro = year + 1
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(astro, month) {
		return 0, astro, false, false
	}
	julianOK = (astro > -4713 || astro == -4713 && month >= 11) && (astro < 5874898 || astro == 5874898 && month < 6)
	return civilDays(astro, month, day), astro, true, julianOK
}

// makeDate is make_date(year, month, day); its errors show the
// astronomical year, as PostgreSQL's do.
func makeDate(year, month, day int64) (int64, error) {
	days, astro, fieldOK, julianOK := dateArgs(year, month, day)
	if !fieldOK {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", astro, month, day)
	}
	if !julianOK || !types.ValidDate(days) {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date out of range: %d-%02d-%02d", astro, month, day)
	}
	return days, nil
}

// makeTime checks clock fields as PostgreSQL's float_time_overflows does and
// returns the microseconds since midnight.
func makeTime(hour, minute int64, sec float64) (int64, error) {
	us := math.RoundToEven(sec * microsPerSecond)
	if hour < 0 || hour > 24 || minute < 0 || minute >= 60 || math.IsNaN(sec) || us < 0 || us > 60*microsPerSecond ||
		(hour*60+minute)*microsPerMinute+int64(us) > microsPerDay {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "time field value out of range: %d:%02d:%s", hour, minute, formatG(sec, 2))
	}
	return (hour*60+minute)*microsPerMinute + int64(us), nil
}

// formatG formats f as PostgreSQL's printf %0*g does with the given width
// (infinities as Infinity and -Infinity).
func formatG(f float64, width int) string {
	s := strconv.FormatFloat(f, 'g', 6, 64)
	if math.IsInf(f, 0) {
		s = strings.Replace(strings.TrimPrefix(s, "+"), "Inf", "Infinity", 1)
	}
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// makeTimestamp is make_timestamp(year, month, day, hour, min, sec).
func makeTimestamp(year, month, day, hour, minute int64, sec float64) (int64, error) {
	days, _, fieldOK, julianOK := dateArgs(year, month, day)
	if !fieldOK {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date field value out of range: %d-%02d-%02d", year, month, day)
	}
	if !julianOK {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "date out of range: %d-%02d-%02d", year, month, day)
	}
	tod, err := makeTime(hour, minute, sec)
	if err != nil {
		return 0, err
	}
	ts, ok := types.JoinTimestamp(days, tod)
	if !ok {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "timestamp out of range: %d-%02d-%02d %d:%02d:%s",
			year, month, day, hour, minute, formatG(sec, 2))
	}
	return ts, nil
}

// makeInterval is make_interval(years, months, weeks, days, hours, mins,
// secs), every argument defaulting to zero. PostgreSQL 15 checks only that
// secs is finite: its fields wrap around on overflow (32-bit months and
// days, 64-bit microseconds), which this reproduces.
func makeInterval(_ *Ctx, a []types.Datum) (types.Datum, error) {
	var f [7]int64
	for i := range min(len(a), 6) {
		f[i] = a[i].Int()
	}
	secs := 0.0
	if len(a) == 7 {
		secs = a[6].Float()
	}
	if math.IsInf(secs, 0) || math.IsNaN(secs) {
		return types.Null, types.ErrIntervalRange()
	}
	return types.NewInterval(types.IntervalValue{
		Months: int32(f[0]*12 + f[1]),
		Days:   int32(f[2]*7 + f[3]),
		Micros: f[4]*microsPerHour + f[5]*microsPerMinute + truncToInt64(math.RoundToEven(secs*microsPerSecond)),
	}), nil
}

// truncToInt64 converts f to an integer as C's cast does on x86-64, where
// PostgreSQL's results come from: a value out of range gives -2^63.
func truncToInt64(f float64) int64 {
	if f >= -math.MinInt64 || f < math.MinInt64 {
		return math.MinInt64
	}
	return int64(f)
}

// toTimestamp is to_timestamp(seconds since the Unix epoch).
func toTimestamp(_ *Ctx, a []types.Datum) (types.Datum, error) {
	secs := a[0].Float()
	switch {
	case math.IsNaN(secs):
		return types.Null, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "timestamp cannot be NaN")
	case math.IsInf(secs, 1):
		return types.NewTimestampTZ(types.DateTimeInfinity), nil
	case math.IsInf(secs, -1):
		return types.NewTimestampTZ(types.DateTimeNegInfinity), nil
	}
	// Seconds since 2000-01-01, rounded to microseconds as PostgreSQL does.
	us := math.RoundToEven((secs - pgEpochUnixSecs) * microsPerSecond)
	if us >= -math.MinInt64 || us < math.MinInt64 || !types.ValidTimestamp(int64(us)) {
		return types.Null, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "timestamp out of range: \"%s\"", formatG(secs, 0))
	}
	return types.NewTimestampTZ(int64(us)), nil
}

// pgEpochUnixSecs is PostgreSQL's epoch, 2000-01-01, in seconds since 1970.
const pgEpochUnixSecs = 946684800

// justifyDays turns each 30 days into a month.
func justifyDays(iv types.IntervalValue) (types.IntervalValue, error) {
	months := int64(iv.Months) + int64(iv.Days/30)
	days := iv.Days % 30
	if months > 0 && days < 0 {
		days += 30
		months--
	} else if months < 0 && days > 0 {
		days -= 30
		months++
	}
	if !fitsInt32(months) {
		return iv, types.ErrIntervalRange()
	}
	return types.IntervalValue{Months: int32(months), Days: days, Micros: iv.Micros}, nil
}

// justifyHours turns each 24 hours into a day.
func justifyHours(iv types.IntervalValue) (types.IntervalValue, error) {
	days, us := sameSign(int64(iv.Days)+iv.Micros/microsPerDay, iv.Micros%microsPerDay)
	if !fitsInt32(days) {
		return iv, types.ErrIntervalRange()
	}
	return types.IntervalValue{Months: iv.Months, Days: int32(days), Micros: us}, nil
}

// sameSign moves a day between days and us (microseconds of less than a
// day) so that both have the same sign, as PostgreSQL's justify functions do.
func sameSign(days, us int64) (int64, int64) {
	switch {
	case days > 0 && us < 0:
		return days - 1, us + microsPerDay
	case days < 0 && us > 0:
		return days + 1, us - microsPerDay
	}
	return days, us
}

// justifyInterval justifies hours into days and days into months, giving
// every field the same sign, in PostgreSQL's steps (months are checked
// after each step that adds to them).
func justifyInterval(iv types.IntervalValue) (types.IntervalValue, error) {
	months, days, us := int64(iv.Months), int64(iv.Days), iv.Micros
	if days > 0 && us > 0 || days < 0 && us < 0 {
		// Justify days first when that keeps the sum of days in range.
		months, days = months+days/30, days%30
		if !fitsInt32(months) {
			return iv, types.ErrIntervalRange()
		}
	}
	days, us = days+us/microsPerDay, us%microsPerDay
	months, days = months+days/30, days%30
	if !fitsInt32(months) {
		return iv, types.ErrIntervalRange()
	}
	if months > 0 && (days < 0 || (days == 0 && us < 0)) {
		days += 30
		months--
	} else if months < 0 && (days > 0 || (days == 0 && us > 0)) {
		days -= 30
		months++
	}
	days, us = sameSign(days, us)
	return types.IntervalValue{Months: int32(months), Days: int32(days), Micros: us}, nil
}

func fitsInt32(v int64) bool { return v == int64(int32(v)) }
