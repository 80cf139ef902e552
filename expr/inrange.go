package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// inRangeOffsets lists, per ordering column type, the offset types of
// PostgreSQL's in_range support functions: the types RANGE offset
// PRECEDING/FOLLOWING frames work with.
var inRangeOffsets = map[types.Family][]types.Family{
	types.Int2:        {types.Int8, types.Int4, types.Int2},
	types.Int4:        {types.Int8, types.Int4, types.Int2},
	types.Int8:        {types.Int8},
	types.Float4:      {types.Float8},
	types.Float8:      {types.Float8},
	types.Numeric:     {types.Numeric},
	types.Date:        {types.Interval},
	types.Timestamp:   {types.Interval},
	types.TimestampTZ: {types.Interval},
	types.Time:        {types.Interval},
	types.Interval:    {types.Interval},
}

// InRangeOffsetType returns the type an offset of type offset takes in a
// RANGE frame ordered by a column of type col, as PostgreSQL picks its
// in_range function: the one whose offset type is offset's (col's when
// offset is unknown), else the only one offset casts to implicitly.
func InRangeOffsetType(col, offset types.T) (types.T, error) {
	colName := opclassTypeName(col)
	cands := inRangeOffsets[col.Family]
	if cands == nil {
		return offset, pgerror.New(pgerror.CodeFeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", colName)
	}
	preferred := offset.Family
	if preferred == types.Unknown {
		preferred = col.Family
	}
	var found []types.Family
	for _, f := range cands {
		if f == preferred {
			return types.T{Family: f, Mod: -1}, nil
		}
		if _, ok := castCost(offset, f); ok {
			found = append(found, f)
		}
	}
	switch len(found) {
	case 0:
		return offset, pgerror.New(pgerror.CodeFeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", colName, offset).
			WithHint("Cast the offset value to an appropriate type.")
	case 1:
		return types.T{Family: found[0], Mod: -1}, nil
	}
	return offset, pgerror.New(pgerror.CodeFeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING has multiple interpretations for column type %s and offset type %s", colName, offset).
		WithHint("Cast the offset value to the exact intended type.")
}

// opclassTypeName names the type of t's btree operator class, as
// PostgreSQL's messages about in_range do.
func opclassTypeName(t types.T) string {
	switch t.Family {
	case types.Varchar, types.Name:
		return "text"
	case types.Array:
		return "anyarray"
	}
	return types.T{Family: t.Family, Mod: -1}.String()
}

// InRange is PostgreSQL's in_range support function for RANGE offset
// PRECEDING/FOLLOWING frames: whether val >= base + offset (base - offset
// when sub; val <= when less), comparing as the ordering does (NaN above
// every number) and as if the sum could not overflow. A negative (or NaN)
// offset is an error, raised at the first comparison as PostgreSQL does.
func InRange(c *Ctx, val, base, offset types.Datum, sub, less bool) (bool, error) {
	if !validRangeOffset(base, offset) {
		return false, pgerror.New(pgerror.CodeInvalidPrecedingFollowing, "invalid preceding or following size in window function")
	}
	cmp := func(sum types.Datum) bool {
		if less {
			return types.Compare(val, sum) <= 0
		}
		return types.Compare(val, sum) >= 0
	}
	switch base.Kind() {
	case types.KindInt:
		s, ok := types.AddInt64(base.Int(), offset.Int())
		if sub {
			s, ok = types.SubInt64(base.Int(), offset.Int())
		}
		if !ok {
			// The true sum is beyond every value.
			return sub != less, nil
		}
		return cmp(types.NewInt(s)), nil
	case types.KindFloat:
		v, b, o := val.Float(), base.Float(), offset.Float()
		switch {
		case math.IsNaN(v) || math.IsNaN(b):
			return cmp(base), nil // the offset cannot change the order
		case math.IsInf(o, 1) && math.IsInf(b, 0) && (b > 0) == sub:
			// base -/+ offset would be NaN: every value is within.
			return true, nil
		}
		if sub {
			return cmp(types.NewFloat(b - o)), nil
		}
		return cmp(types.NewFloat(b + o)), nil
	case types.KindDecimal:
		return inRangeNumeric(val.Decimal(), base.Decimal(), offset.Decimal(), sub, less, cmp)
	case types.KindDate, types.KindTimestamp:
		b := base.Micros()
		if base.Kind() == types.KindDate {
			var err error
			if b, err = types.DateToTimestamp(base.Date()); err != nil {
				return false, err
			}
			if val, err = dateAsTimestamp(val); err != nil {
				return false, err
			}
		}
		var s int64
		var err error
		if sub {
			s, err = types.TimestampSubInterval(b, offset.Interval())
		} else {
			s, err = types.TimestampAddInterval(b, offset.Interval())
		}
		return err == nil && cmp(types.NewTimestamp(s)), err
	case types.KindTimestampTZ:
		sign := int64(1)
		if sub {
			sign = -1
		}
		s, err := types.TimestampTZAddInterval(zoneOf(c), base.Micros(), offset.Interval(), sign)
		return err == nil && cmp(types.NewTimestampTZ(s)), err
	case types.KindTime:
		// As PostgreSQL: the offset's time part only, without wrapping.
		if sub {
			return cmp(types.NewTime(base.Micros() - offset.Interval().Micros)), nil
		}
		return cmp(types.NewTime(base.Micros() + offset.Interval().Micros)), nil
	case types.KindInterval:
		var s types.IntervalValue
		var err error
		if sub {
			s, err = base.Interval().Sub(offset.Interval())
		} else {
			s, err = base.Interval().Add(offset.Interval())
		}
		return err == nil && cmp(types.NewInterval(s)), err
	}
	return false, pgerror.New(pgerror.CodeInternal, "no in_range for %v", base.Kind())
}

// dateAsTimestamp converts a date datum to the timestamp of its midnight.
func dateAsTimestamp(d types.Datum) (types.Datum, error) {
	if d.Kind() != types.KindDate {
		return d, nil
	}
	ts, err := types.DateToTimestamp(d.Date())
	return types.NewTimestamp(ts), err
}

// validRangeOffset reports whether offset is a valid RANGE offset for
// ordering values like base: not negative, not NaN; for time values only
// its time part counts.
func validRangeOffset(base, offset types.Datum) bool {
	switch offset.Kind() {
	case types.KindInt:
		return offset.Int() >= 0
	case types.KindFloat:
		return offset.Float() >= 0
	case types.KindDecimal:
		d := offset.Decimal()
		return d.Form != apd.NaN && (!d.Negative || d.IsZero())
	case types.KindInterval:
		if base.Kind() == types.KindTime {
			return offset.Interval().Micros >= 0
		}
		return types.Compare(offset, types.NewInterval(types.IntervalValue{})) >= 0
	}
	return true
}

// inRangeNumeric is in_range for numeric, whose infinities the offset
// cannot move.
func inRangeNumeric(val, base, offset *apd.Decimal, sub, less bool, cmp func(types.Datum) bool) (bool, error) {
	switch {
	case val.Form == apd.NaN || base.Form == apd.NaN:
		return cmp(types.NewDecimal(base)), nil
	case offset.Form == apd.Infinite:
		if base.Form == apd.Infinite && base.Negative != sub {
			// base -/+ offset would be NaN: every value is within.
			return true, nil
		}
		// The sum is -Infinity when sub, else +Infinity.
		return cmp(types.NewDecimal(numericInf(sub))), nil
	case val.Form == apd.Infinite || base.Form == apd.Infinite:
		return cmp(types.NewDecimal(base)), nil
	}
	var s *apd.Decimal
	var err error
	if sub {
		s, err = NumericSub(base, offset)
	} else {
		s, err = NumericAdd(base, offset)
	}
	return err == nil && cmp(types.NewDecimal(s)), err
}
