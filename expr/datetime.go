package expr

import (
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

const (
	microsPerSecond = 1_000_000
	microsPerDay    = 86400 * microsPerSecond
)

// datetimeOp resolves the date/time arithmetic operators.
func datetimeOp(op string, lt, rt types.T) (binaryFn, types.T, bool) {
	lf, rf := lt.Family, rt.Family
	tsOf := func(f types.Family) types.T {
		if f == types.TimestampTZ {
			return types.TTimestampTZ
		}
		return types.TTimestamp
	}
	switch {
	case op == "+" && lf == types.Date && rt.IsInteger():
		return func(a, b types.Datum) (types.Datum, error) { return types.NewDate(a.Date() + b.Int()), nil }, types.TDate, true
	case op == "+" && lt.IsInteger() && rf == types.Date:
		return func(a, b types.Datum) (types.Datum, error) { return types.NewDate(a.Int() + b.Date()), nil }, types.TDate, true
	case op == "-" && lf == types.Date && rt.IsInteger():
		return func(a, b types.Datum) (types.Datum, error) { return types.NewDate(a.Date() - b.Int()), nil }, types.TDate, true
	case op == "-" && lf == types.Date && rf == types.Date:
		return func(a, b types.Datum) (types.Datum, error) { return types.NewInt(a.Date() - b.Date()), nil }, types.TInt4, true
	case op == "+" && lf == types.Date && rf == types.Time:
		return func(a, b types.Datum) (types.Datum, error) {
			return types.NewTimestamp(a.Date()*microsPerDay + b.Micros()), nil
		}, types.TTimestamp, true
	case (op == "+" || op == "-") && isDatetime(lt) && rf == types.Interval:
		t := tsOf(lf)
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		return func(a, b types.Datum) (types.Datum, error) {
			iv := b.Interval()
			r, err := AddInterval(tsMicros(a), types.IntervalValue{Months: iv.Months * int32(sign), Days: iv.Days * int32(sign), Micros: iv.Micros * sign})
			if err != nil {
				return types.Null, err
			}
			if t.Family == types.TimestampTZ {
				return types.NewTimestampTZ(r), nil
			}
			return types.NewTimestamp(r), nil
		}, t, true
	case op == "+" && lf == types.Interval && isDatetime(rt):
		fn, t, _ := datetimeOp(op, rt, lt)
		return func(a, b types.Datum) (types.Datum, error) { return fn(b, a) }, t, true
	case op == "-" && (lf == types.Timestamp || lf == types.TimestampTZ) && (rf == types.Timestamp || rf == types.TimestampTZ):
		return func(a, b types.Datum) (types.Datum, error) {
			d := a.Micros() - b.Micros()
			return types.NewInterval(types.IntervalValue{Days: int32(d / microsPerDay), Micros: d % microsPerDay}), nil
		}, types.TInterval, true
	case (op == "+" || op == "-") && lf == types.Interval && rf == types.Interval:
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		return func(a, b types.Datum) (types.Datum, error) {
			x, y := a.Interval(), b.Interval()
			return types.NewInterval(types.IntervalValue{
				Months: x.Months + int32(sign)*y.Months,
				Days:   x.Days + int32(sign)*y.Days,
				Micros: x.Micros + sign*y.Micros,
			}), nil
		}, types.TInterval, true
	case (op == "*" || op == "/") && lf == types.Interval && rt.IsNumeric():
		return func(a, b types.Datum) (types.Datum, error) {
			f, err := types.Cast(b, rt, types.TFloat8)
			if err != nil {
				return types.Null, err
			}
			x := f.Float()
			if op == "/" {
				if x == 0 {
					return types.Null, errDivByZero
				}
				x = 1 / x
			}
			return types.NewInterval(ScaleInterval(a.Interval(), x)), nil
		}, types.TInterval, true
	case op == "*" && lt.IsNumeric() && rf == types.Interval:
		fn, t, _ := datetimeOp(op, rt, lt)
		return func(a, b types.Datum) (types.Datum, error) { return fn(b, a) }, t, true
	}
	return nil, types.TUnknown, false
}

// tsMicros returns the microseconds of a date, timestamp or timestamptz datum.
func tsMicros(d types.Datum) int64 {
	if d.Kind() == types.KindDate {
		return d.Date() * microsPerDay
	}
	return d.Micros()
}

// ScaleInterval multiplies an interval by f the way PostgreSQL's
// interval_mul does: fractional months cascade into days, fractional days
// into microseconds.
func ScaleInterval(iv types.IntervalValue, f float64) types.IntervalValue {
	months := float64(iv.Months) * f
	days := float64(iv.Days) * f
	wholeMonths := int32(months)
	days += (months - float64(wholeMonths)) * 30
	wholeDays := int32(days)
	micros := float64(iv.Micros)*f + (days-float64(wholeDays))*microsPerDay
	return types.IntervalValue{Months: wholeMonths, Days: wholeDays, Micros: int64(micros + 0.5*sign(micros))}
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// AddInterval adds an interval to a timestamp in microseconds: months first
// (clamping the day to the month's end, as PostgreSQL does), then days, then
// microseconds.
func AddInterval(ts int64, iv types.IntervalValue) (int64, error) {
	if iv.Months != 0 {
		t := time.UnixMicro(ts).UTC()
		y, m, d := t.Date()
		total := int(m) - 1 + int(iv.Months)
		y += total / 12
		total %= 12
		if total < 0 {
			total += 12
			y--
		}
		nm := time.Month(total + 1)
		if last := daysIn(y, nm); d > last {
			d = last
		}
		h, mi, s := t.Clock()
		t = time.Date(y, nm, d, h, mi, s, t.Nanosecond(), time.UTC)
		ts = t.UnixMicro()
	}
	r := ts + int64(iv.Days)*microsPerDay + iv.Micros
	if (iv.Micros > 0 && r < ts) || r >= types.EndTimestamp || r < types.MinTimestamp {
		return 0, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "timestamp out of range")
	}
	return r, nil
}

func daysIn(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
