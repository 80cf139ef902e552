package expr

import (
	"math"
	"math/big"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func init() {
	// generate_series stops at stop inclusive; RisingWave's range is the
	// same series with stop exclusive.
	for name, inclusive := range map[string]bool{"generate_series": true, "range": false} {
		RegisterSetBuiltin(name,
			seriesOverload(types.TInt4, intSeries(math.MinInt32, math.MaxInt32, inclusive), types.Int4, types.Int4),
			seriesOverload(types.TInt4, intSeries(math.MinInt32, math.MaxInt32, inclusive), types.Int4, types.Int4, types.Int4),
			seriesOverload(types.TInt8, intSeries(math.MinInt64, math.MaxInt64, inclusive), types.Int8, types.Int8),
			seriesOverload(types.TInt8, intSeries(math.MinInt64, math.MaxInt64, inclusive), types.Int8, types.Int8, types.Int8),
			seriesOverload(types.TNumeric, numericSeries(inclusive), types.Numeric, types.Numeric),
			seriesOverload(types.TNumeric, numericSeries(inclusive), types.Numeric, types.Numeric, types.Numeric),
			// timestamptz first: PostgreSQL prefers it for unknown literals.
			seriesOverload(types.TTimestampTZ, timestampSeries(types.NewTimestampTZ, inclusive), types.TimestampTZ, types.TimestampTZ, types.Interval),
			seriesOverload(types.TTimestamp, timestampSeries(types.NewTimestamp, inclusive), types.Timestamp, types.Timestamp, types.Interval),
		)
	}
	RegisterSetBuiltin("unnest", Overload{Args: []types.Family{AnyArray},
		Ret: func(a []types.T) types.T { return a[0].ElemType() },
		Set: func(_ *Ctx, a []types.Datum) (SetIter, error) { return valuesOf(a[0].Array()), nil }})
	// pg_options_to_table splits a catalog's key=value options into
	// records (option_name, option_value).
	RegisterSetBuiltin("pg_options_to_table", Overload{Args: []types.Family{AnyArray},
		Ret: Returns(types.RecordOf([]types.Field{{Name: "option_name", T: types.TText}, {Name: "option_value", T: types.TText}})),
		Set: func(_ *Ctx, a []types.Datum) (SetIter, error) {
			opts := a[0].Array()
			vals := make([]types.Datum, 0, len(opts))
			for _, o := range opts {
				if o.IsNull() {
					continue
				}
				k, v, ok := strings.Cut(o.Str(), "=")
				value := types.NewString(v)
				if !ok {
					value = types.Null
				}
				vals = append(vals, types.NewRecord([]types.Datum{types.NewString(k), value}))
			}
			return valuesOf(vals), nil
		}})
	// information_schema._pg_expandarray, which JDBC's metadata queries
	// call: each element with its 1-based position, as records (x, n).
	RegisterSetBuiltin("_pg_expandarray", Overload{Args: []types.Family{AnyArray},
		Ret: func(a []types.T) types.T {
			return types.RecordOf([]types.Field{{Name: "x", T: a[0].ElemType()}, {Name: "n", T: types.TInt4}})
		},
		Set: func(_ *Ctx, a []types.Datum) (SetIter, error) {
			elems := a[0].Array()
			vals := make([]types.Datum, len(elems))
			for i, e := range elems {
				vals[i] = types.NewRecord([]types.Datum{e, types.NewInt(int64(i + 1))})
			}
			return valuesOf(vals), nil
		}})
}

// seriesOverload is a set-returning overload taking args and yielding ret.
func seriesOverload(ret types.T, set func(*Ctx, []types.Datum) (SetIter, error), args ...types.Family) Overload {
	return Overload{Args: args, Ret: Returns(ret), Set: set}
}

// intSeries counts from args[0] to args[1] by args[2] (default 1) within
// [lo, hi], stopping before it would overflow.
func intSeries(lo, hi int64, inclusive bool) func(*Ctx, []types.Datum) (SetIter, error) {
	return func(_ *Ctx, a []types.Datum) (SetIter, error) {
		cur, stop, step := a[0].Int(), a[1].Int(), int64(1)
		if len(a) == 3 {
			step = a[2].Int()
		}
		if step == 0 {
			return nil, errZeroStep()
		}
		done := false
		return func() (types.Datum, bool, error) {
			if done || !inRange(int64Cmp(cur, stop), step > 0, inclusive) {
				return types.Null, false, nil
			}
			v := cur
			if step > 0 && cur > hi-step || step < 0 && cur < lo-step {
				done = true
			} else {
				cur += step
			}
			return types.NewInt(v), true, nil
		}, nil
	}
}

func int64Cmp(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// inRange reports whether a series value comparing cmp to the stop value
// is still part of the series going up (or down).
func inRange(cmp int, up, inclusive bool) bool {
	if !up {
		cmp = -cmp
	}
	return cmp < 0 || inclusive && cmp == 0
}

// numericSeries counts numerics; the values take the scale of the sums.
func numericSeries(inclusive bool) func(*Ctx, []types.Datum) (SetIter, error) {
	return func(_ *Ctx, a []types.Datum) (SetIter, error) {
		step := apd.New(1, 0)
		if len(a) == 3 {
			step = a[2].Decimal()
		}
		for i, what := range []string{"start value", "stop value", "step size"} {
			d := step
			if i < 2 {
				d = a[i].Decimal()
			}
			switch d.Form {
			case apd.NaN, apd.NaNSignaling:
				return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "%s cannot be NaN", what)
			case apd.Infinite:
				return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "%s cannot be infinity", what)
			}
		}
		if step.IsZero() {
			return nil, errZeroStep()
		}
		cur, stop, up := a[0].Decimal(), a[1].Decimal(), !step.Negative
		return func() (types.Datum, bool, error) {
			if !inRange(cur.Cmp(stop), up, inclusive) {
				return types.Null, false, nil
			}
			v := cur
			next, err := NumericAdd(cur, step)
			if err != nil {
				return types.Null, false, err
			}
			cur = next
			return types.NewDecimal(v), true, nil
		}, nil
	}
}

// timestampSeries steps timestamps (mk makes the datum) by an interval. As
// in PostgreSQL, each value's successor is computed before the value is
// returned, and one out of range is an error.
func timestampSeries(mk func(int64) types.Datum, inclusive bool) func(*Ctx, []types.Datum) (SetIter, error) {
	return func(c *Ctx, a []types.Datum) (SetIter, error) {
		cur, stop, step := a[0].Micros(), a[1].Micros(), a[2].Interval()
		add := types.TimestampAddInterval
		if a[0].Kind() == types.KindTimestampTZ {
			// Days and months step the wall clock in the session's zone.
			loc := c.Zone()
			add = func(us int64, iv types.IntervalValue) (int64, error) {
				return types.TimestampTZAddInterval(loc, us, iv, 1)
			}
		}
		sign := intervalSign(step)
		if sign == 0 {
			return nil, errZeroStep()
		}
		return func() (types.Datum, bool, error) {
			if !inRange(int64Cmp(cur, stop), sign > 0, inclusive) {
				return types.Null, false, nil
			}
			v := cur
			var err error
			if cur, err = add(cur, step); err != nil {
				return types.Null, false, err
			}
			return mk(v), true, nil
		}, nil
	}
}

// intervalSign is the sign of an interval as PostgreSQL compares it: a
// month counts 30 days, a day 24 hours.
func intervalSign(iv types.IntervalValue) int {
	span := big.NewInt(int64(iv.Months))
	span.Mul(span, big.NewInt(30))
	span.Add(span, big.NewInt(int64(iv.Days)))
	span.Mul(span, big.NewInt(microsPerDay))
	span.Add(span, big.NewInt(iv.Micros))
	return span.Sign()
}
