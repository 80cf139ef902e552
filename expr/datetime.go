package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

const (
	microsPerSecond = 1_000_000
	microsPerDay    = 86400 * microsPerSecond
)

// datetimeOp resolves the date/time arithmetic operators. The arithmetic
// and its range checks are types' (DateAddDays, TimestampAddInterval,
// IntervalValue.Add and so on).
func datetimeOp(op string, lt, rt types.T) (binaryFn, types.T, bool) {
	lf, rf := lt.Family, rt.Family
	switch {
	case op == "+" && lf == types.Date && isDateOffset(rt):
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) { return types.DateAddDays(a.Date(), b.Int()) }, types.TDate, true
	case op == "-" && lf == types.Date && isDateOffset(rt):
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) { return types.DateAddDays(a.Date(), -b.Int()) }, types.TDate, true
	case op == "-" && lf == types.Date && rf == types.Date:
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			if isInfinite(a.Date()) || isInfinite(b.Date()) {
				return types.Null, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "cannot subtract infinite dates")
			}
			return types.NewInt(a.Date() - b.Date()), nil
		}, types.TInt4, true
	case op == "+" && lf == types.Date && rf == types.Time:
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			ts, err := types.DateToTimestamp(a.Date())
			switch {
			case err != nil:
				return types.Null, err
			case isInfinite(ts):
				return types.NewTimestamp(ts), nil
			}
			return types.MakeTimestamp(ts + b.Micros())
		}, types.TTimestamp, true
	case (op == "+" || op == "-") && isDatetime(lt) && rf == types.Interval:
		add := types.TimestampAddInterval
		if op == "-" {
			add = types.TimestampSubInterval
		}
		if lf == types.TimestampTZ {
			sign := int64(1)
			if op == "-" {
				sign = -1
			}
			return func(c *Ctx, a, b types.Datum) (types.Datum, error) {
				return datumOf(types.NewTimestampTZ)(types.TimestampTZAddInterval(c.Zone(), a.Micros(), b.Interval(), sign))
			}, types.TTimestampTZ, true
		}
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			ts, err := tsMicros(a)
			if err == nil {
				ts, err = add(ts, b.Interval())
			}
			return datumOf(types.NewTimestamp)(ts, err)
		}, types.TTimestamp, true
	case (op == "+" || op == "-") && isDatetime(lt) && rf == types.Time:
		// time casts to interval implicitly (date + time is above).
		fn, t, _ := datetimeOp(op, lt, types.TInterval)
		return func(c *Ctx, a, b types.Datum) (types.Datum, error) {
			return fn(c, a, types.NewInterval(types.IntervalValue{Micros: b.Micros()}))
		}, t, true
	case (op == "+" || op == "-") && lf == types.Time && rf == types.Interval:
		// time_pl_interval and time_mi_interval: the interval's clock
		// part, wrapping around midnight (months and days are ignored).
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			t := (a.Micros() + sign*b.Interval().Micros) % microsPerDay
			if t < 0 {
				t += microsPerDay
			}
			return types.NewTime(t), nil
		}, types.TTime, true
	case op == "-" && lf == types.Time && rf == types.Time:
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			return types.NewInterval(types.IntervalValue{Micros: a.Micros() - b.Micros()}), nil
		}, types.TInterval, true
	case op == "-" && lf == types.Interval && rf == types.Time:
		// time casts to interval implicitly.
		fn, t, _ := datetimeOp(op, lt, types.TInterval)
		return func(c *Ctx, a, b types.Datum) (types.Datum, error) {
			return fn(c, a, types.NewInterval(types.IntervalValue{Micros: b.Micros()}))
		}, t, true
	case op == "-" && (lf == types.Timestamp || lf == types.TimestampTZ) && (rf == types.Timestamp || rf == types.TimestampTZ):
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			return datumOf(types.NewInterval)(types.TimestampSub(a.Micros(), b.Micros()))
		}, types.TInterval, true
	case op == "+" && lf == types.Interval && rf == types.Interval:
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			return datumOf(types.NewInterval)(a.Interval().Add(b.Interval()))
		}, types.TInterval, true
	case op == "-" && lf == types.Interval && rf == types.Interval:
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			return datumOf(types.NewInterval)(a.Interval().Sub(b.Interval()))
		}, types.TInterval, true
	case (op == "*" || op == "/") && lf == types.Interval && rt.IsNumeric():
		scale := types.IntervalValue.Mul
		if op == "/" {
			scale = types.IntervalValue.Div
		}
		return func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
			f, err := types.Cast(b, rt, types.TFloat8)
			if err != nil {
				return types.Null, err
			}
			return datumOf(types.NewInterval)(scale(a.Interval(), f.Float()))
		}, types.TInterval, true
	case op == "+" && (isDateOffset(lt) && rf == types.Date || lf == types.Time && isDatetime(rt) || lf == types.Interval && (isDatetime(rt) || rf == types.Time)),
		op == "*" && lt.IsNumeric() && rf == types.Interval:
		// The commuted forms of the operators above.
		fn, t, _ := datetimeOp(op, rt, lt)
		return func(c *Ctx, a, b types.Datum) (types.Datum, error) { return fn(c, b, a) }, t, true
	}
	return nil, types.TUnknown, false
}

// isDateOffset reports whether t is an integer type date +/- integer takes:
// PostgreSQL has these operators for int4, which int2 casts to implicitly,
// and none for int8.
func isDateOffset(t types.T) bool { return t.IsInteger() && t.Family != types.Int8 }

// tsMicros returns a date (at its midnight), timestamp or timestamptz
// datum as a timestamp.
func tsMicros(d types.Datum) (int64, error) {
	if d.Kind() == types.KindDate {
		return types.DateToTimestamp(d.Date())
	}
	return d.Micros(), nil
}
