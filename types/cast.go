package types

import (
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// Cast converts d, a value of type from, to type to with PostgreSQL's
// explicit cast semantics (x::to, CAST(x AS to)): integer narrowing with
// range errors, float to integer rounding half to even (rint), numeric to
// integer rounding half away from zero, numeric typmod rounding, text
// output and input functions for casts to and from string types (bool
// becomes true/false, char(n) loses its padding), varchar(n) and char(n)
// truncating silently, date/timestamp/timestamptz conversions in UTC, and
// jsonb scalars to bool and numbers, arrays element by element. A pair
// without a cast is an error 42846 (see CanCast).
func Cast(d Datum, from, to T) (Datum, error) { return castDatum(d, from, to, true, nil) }

// ZoneDependent reports whether a cast from from to to depends on the
// time zone (so a constant must not be folded before the statement runs
// in its session).
func ZoneDependent(from, to T) bool {
	if from.Family == Array && to.Family == Array {
		return ZoneDependent(from.ElemType(), to.ElemType())
	}
	switch {
	case from.Family == TimestampTZ:
		return to.Family != TimestampTZ
	case to.Family == TimestampTZ:
		return true
	}
	return false
}

// CastZone is Cast under TimeZone loc (nil: UTC), which casts between
// timestamptz and text, timestamp, date and time depend on.
func CastZone(d Datum, from, to T, loc *time.Location) (Datum, error) {
	return castDatum(d, from, to, true, loc)
}

// CastAssign is Cast with assignment semantics (INSERT and UPDATE into a
// column): a value too long for varchar(n) or char(n) is an error 22001
// unless the excess is spaces, instead of being truncated. Whether an
// assignment cast is allowed at all between two types is the binder's call.
func CastAssign(d Datum, from, to T) (Datum, error) { return castDatum(d, from, to, false, nil) }

// CastAssignZone is CastAssign under TimeZone loc (nil: UTC).
func CastAssignZone(d Datum, from, to T, loc *time.Location) (Datum, error) {
	return castDatum(d, from, to, false, loc)
}

// CanCast reports whether PostgreSQL has a cast (explicit, assignment or
// implicit) from type from to type to among streamdb's types.
func CanCast(from, to T) bool {
	f, t := from.Family, to.Family
	switch {
	case f == Array && t == Array:
		return CanCast(from.ElemType(), to.ElemType())
	case f == Array || t == Array:
		return f == Unknown || from.IsString() || to.IsString()
	case f == t, f == Unknown, from.IsString(), to.IsString():
		return true
	case isNumberFamily(f) && isNumberFamily(t):
		return true
	case f == Oid:
		return to.IsInteger()
	case t == Oid:
		return from.IsInteger()
	case f == Bool:
		return t == Int4
	case f == Jsonb:
		return t == Bool || isNumberFamily(t)
	case isInstantFamily(f) && isInstantFamily(t):
		return true
	case t == Time:
		return f == Timestamp || f == TimestampTZ || f == Interval
	}
	return f == Int4 && t == Bool || f == Time && t == Interval
}

func isNumberFamily(f Family) bool {
	return f == Int2 || f == Int4 || f == Int8 || f == Float4 || f == Float8 || f == Numeric
}

func isInstantFamily(f Family) bool { return f == Date || f == Timestamp || f == TimestampTZ }

// CheckCast returns PostgreSQL's error for a cast that does not exist (see
// CanCast), or nil.
func CheckCast(from, to T) error {
	if !CanCast(from, to) {
		return pgerror.New(codeCannotCoerce, "cannot cast type %s to %s", from, to)
	}
	return nil
}

func castDatum(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	if err := CheckCast(from, to); err != nil {
		return Null, err
	}
	if d.kind == KindNull {
		return Null, nil
	}
	if from.Family == Array && to.Family == Array {
		return castArray(d, from.ElemType(), to.ElemType(), explicit, loc)
	}
	if to.IsString() {
		return castToString(d, from, to, explicit, loc)
	}
	if from.IsString() || from.Family == Unknown {
		if d.kind == KindString {
			return ParseTextZone(to, d.s, loc)
		}
		return ParseTextZone(to, string(FormatTextZone(nil, from, d, loc)), loc)
	}
	if d.kind == KindTimestampTZ && to.Family != TimestampTZ {
		// Its date, time of day and timestamp are the wall clock's in loc.
		d = NewTimestamp(ToLocal(loc, d.i))
	}
	switch to.Family {
	case Bool:
		if d.kind == KindJSON {
			if err := checkJSONCast(d.s, "boolean", to); err != nil {
				return Null, err
			}
			return NewBool(d.s == "true"), nil
		}
		if d.kind == KindInt {
			return NewBool(d.i != 0), nil
		}
	case Int2, Int4, Int8:
		if from.Family == Oid && to.Family == Int4 {
			return NewInt(int64(int32(uint32(d.i)))), nil // binary coercion: large OIDs turn negative
		}
		return castToInt(d, to)
	case Oid:
		if from.Family == Int8 {
			if d.i < 0 || d.i > math.MaxUint32 {
				return Null, errOutOfRange("OID")
			}
			return d, nil
		}
		return NewInt(int64(uint32(d.i))), nil
	case Float4, Float8:
		return castToFloat(d, to)
	case Numeric:
		return castToNumeric(d, from, to)
	case Date:
		if d.kind == KindTimestamp || d.kind == KindTimestampTZ {
			return NewDate(dateFromTimestamp(d.i)), nil
		}
	case Timestamp, TimestampTZ:
		micros := d.i
		if d.kind == KindDate {
			var err error
			if micros, err = DateToTimestamp(d.i); err != nil {
				return Null, err
			}
		}
		micros = roundMicros(micros, to.Mod)
		if to.Family == Timestamp {
			return NewTimestamp(micros), nil
		}
		if d.kind != KindTimestampTZ {
			micros = FromLocal(loc, micros)
		}
		return NewTimestampTZ(micros), nil
	case Time:
		switch d.kind {
		case KindTimestamp, KindTimestampTZ:
			if d.i == DateTimeInfinity || d.i == DateTimeNegInfinity {
				return Null, nil // PostgreSQL's timestamp_time returns NULL for infinity
			}
			_, tod := SplitTimestamp(d.i)
			return NewTime(roundMicros(tod, to.Mod)), nil
		case KindInterval:
			micros := d.i - floorDiv(d.i, usecsPerDay)*usecsPerDay
			return NewTime(roundMicros(micros, to.Mod)), nil
		}
		return NewTime(roundMicros(d.i, to.Mod)), nil
	case Interval:
		if d.kind == KindTime {
			return NewInterval(AdjustInterval(IntervalValue{Micros: d.i}, to.Mod)), nil
		}
		if to.Mod >= 0 {
			return NewInterval(AdjustInterval(d.Interval(), to.Mod)), nil
		}
	}
	return d, nil
}

// castArray casts each element of an array from type from to type to.
func castArray(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	if from == to {
		return d, nil
	}
	elems := d.Array()
	out := make([]Datum, len(elems))
	for i, e := range elems {
		var err error
		if out[i], err = castDatum(e, from, to, explicit, loc); err != nil {
			return Null, err
		}
	}
	return d.WithElems(out), nil
}

// castToString converts to text, varchar, char or name through the output
// function, applying the target's length.
func castToString(d Datum, from, to T, explicit bool, loc *time.Location) (Datum, error) {
	var s string
	switch d.kind {
	case KindString:
		s = d.s
		if from.Family == Bpchar && to.Family != Bpchar {
			s = strings.TrimRight(s, " ")
		}
	case KindBool:
		s = "false"
		if d.Bool() {
			s = "true"
		}
	default:
		s = string(FormatTextZone(nil, from, d, loc))
	}
	var err error
	switch to.Family {
	case Varchar, Bpchar:
		s, err = applyStringMod(s, to, explicit)
	case Name:
		s = truncateName(s)
	}
	return NewString(s), err
}

// intRange returns PostgreSQL's name and the bounds of an integer family.
func intRange(f Family) (typ string, lo, hi int64) {
	switch f {
	case Int2:
		return "smallint", math.MinInt16, math.MaxInt16
	case Int4:
		return "integer", math.MinInt32, math.MaxInt32
	}
	return "bigint", math.MinInt64, math.MaxInt64
}

// castToInt converts a number, bool or jsonb number to an integer type.
func castToInt(d Datum, to T) (Datum, error) {
	typ, lo, hi := intRange(to.Family)
	switch d.kind {
	case KindInt, KindBool:
		if d.i < lo || d.i > hi {
			return Null, errOutOfRange(typ)
		}
		return NewInt(d.i), nil
	case KindFloat:
		f := math.RoundToEven(d.Float())
		// -float64(lo) is 2^15, 2^31 or 2^63 exactly, the first value out of range.
		if f != f || f < float64(lo) || f >= -float64(lo) {
			return Null, errOutOfRange(typ)
		}
		return NewInt(int64(f)), nil
	case KindJSON:
		if err := checkJSONCast(d.s, "number", to); err != nil {
			return Null, err
		}
		n, err := parseNumeric(d.s)
		if err != nil {
			return Null, err
		}
		return castToInt(NewDecimal(n), to)
	}
	i, err := numericToInt(d.Decimal(), typ, lo, hi)
	return NewInt(i), err
}

// castToFloat converts a number or jsonb number to float4 or float8.
func castToFloat(d Datum, to T) (Datum, error) {
	bits := 64
	if to.Family == Float4 {
		bits = 32
	}
	switch d.kind {
	case KindInt:
		if bits == 32 {
			return NewFloat(float64(float32(d.i))), nil
		}
		return NewFloat(float64(d.i)), nil
	case KindFloat:
		if bits == 64 {
			return d, nil
		}
		in := d.Float()
		f := float64(float32(in))
		switch {
		case math.IsInf(f, 0) && !math.IsInf(in, 0):
			return Null, pgerror.New(pgerror.CodeNumericValueOutOfRange, "value out of range: overflow")
		case f == 0 && in != 0:
			return Null, pgerror.New(pgerror.CodeNumericValueOutOfRange, "value out of range: underflow")
		}
		return NewFloat(f), nil
	case KindJSON:
		if err := checkJSONCast(d.s, "number", to); err != nil {
			return Null, err
		}
		f, err := parseFloat(d.s, bits)
		return NewFloat(f), err
	}
	f, err := numericToFloat(d.Decimal(), bits)
	return NewFloat(f), err
}

// castToNumeric converts a number or jsonb number to numeric, applying the
// target's precision and scale.
func castToNumeric(d Datum, from, to T) (Datum, error) {
	var n *apd.Decimal
	switch d.kind {
	case KindInt:
		n = decimalFromInt(d.i)
	case KindFloat:
		digits := 15
		if from.Family == Float4 {
			digits = 6
		}
		n = numericFromFloat(d.Float(), digits)
	case KindJSON:
		if err := checkJSONCast(d.s, "number", to); err != nil {
			return Null, err
		}
		var err error
		if n, err = parseNumeric(d.s); err != nil {
			return Null, err
		}
	default:
		n = d.Decimal()
	}
	n, err := applyNumericMod(n, to.Mod)
	if err != nil {
		return Null, err
	}
	return NewDecimal(n), nil
}

// checkJSONCast checks that canonical jsonb text is a scalar of the kind a
// cast to type to needs.
func checkJSONCast(s, want string, to T) error {
	if got := jsonTypeName(s); got != want {
		return pgerror.New(pgerror.CodeInvalidParameterValue, "cannot cast jsonb %s to type %s", got, to)
	}
	return nil
}
