package types

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// Interval type modifiers, encoded as PostgreSQL encodes them (so that
// RowDescription reports its typmod): the range of fields, a mask of
// PostgreSQL's field bits, in the high 16 bits and the fractional-second
// precision in the low 16 (0xFFFF: full). interval(3) keeps the full
// range; interval day to second(0) both.
const (
	ivMonth  = 1 << 1
	ivYear   = 1 << 2
	ivDay    = 1 << 3
	ivHour   = 1 << 10
	ivMinute = 1 << 11
	ivSecond = 1 << 12

	intervalFullRange     = 0x7FFF
	intervalFullPrecision = 0xFFFF
	maxIntervalPrecision  = 6
)

// intervalRanges are the field ranges interval types may name, as
// PostgreSQL's intervaltypmodout prints them.
var intervalRanges = []struct {
	name string
	mask int32
}{
	{"year", ivYear},
	{"month", ivMonth},
	{"day", ivDay},
	{"hour", ivHour},
	{"minute", ivMinute},
	{"second", ivSecond},
	{"year to month", ivYear | ivMonth},
	{"day to hour", ivDay | ivHour},
	{"day to minute", ivDay | ivHour | ivMinute},
	{"day to second", ivDay | ivHour | ivMinute | ivSecond},
	{"hour to minute", ivHour | ivMinute},
	{"hour to second", ivHour | ivMinute | ivSecond},
	{"minute to second", ivMinute | ivSecond},
}

// intervalMod returns the typmod of a field range and a precision.
func intervalMod(fields, precision int32) int32 {
	return (fields&intervalFullRange)<<16 | precision&intervalFullPrecision
}

// intervalFields returns the field range of an interval typmod (the full
// range for -1).
func intervalFields(mod int32) int32 {
	if mod < 0 {
		return intervalFullRange
	}
	return mod >> 16 & intervalFullRange
}

// intervalPrecision returns the fractional-second precision of an interval
// typmod, or intervalFullPrecision.
func intervalPrecision(mod int32) int32 {
	if mod < 0 {
		return intervalFullPrecision
	}
	return mod & intervalFullPrecision
}

// intervalType builds interval, interval(p), interval fields and interval
// fields(p) from a normalized name ("interval day to second") and its
// modifiers, as PostgreSQL's grammar and intervaltypmodin do: a precision
// only with the full range or a range ending in second, above 6 reduced
// to 6.
func intervalType(base string, args []int) (T, error) {
	fields := int32(intervalFullRange)
	if rest, ok := strings.CutPrefix(base, "interval "); ok {
		fields = 0
		for _, r := range intervalRanges {
			if r.name == rest {
				fields = r.mask
			}
		}
		if fields == 0 {
			return TUnknown, pgerror.New(pgerror.CodeUndefinedObject, "type \"%s\" does not exist", base)
		}
		if args != nil && fields&ivSecond == 0 {
			return TUnknown, pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near \"(\"")
		}
	}
	precision := int32(intervalFullPrecision)
	switch {
	case args == nil:
		if fields == intervalFullRange {
			return TInterval, nil
		}
	case len(args) != 1:
		// PostgreSQL's grammar takes one unsigned integer.
		return TUnknown, pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near \",\"")
	case args[0] < 0:
		return TUnknown, pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near \"-\"")
	default:
		precision = int32(min(args[0], maxIntervalPrecision))
	}
	return T{Family: Interval, Mod: intervalMod(fields, precision)}, nil
}

// CheckIntervalMod returns intervaltypmodout's error for an interval
// typmod whose field range no interval type has.
func CheckIntervalMod(mod int32) error {
	f := intervalFields(mod)
	if f == intervalFullRange {
		return nil
	}
	for _, r := range intervalRanges {
		if r.mask == f {
			return nil
		}
	}
	return pgerror.New(pgerror.CodeInternal, "invalid INTERVAL typmod: 0x%x", mod)
}

// intervalModString is intervaltypmodout: " day to second(3)", "(3)".
func intervalModString(mod int32) string {
	s := ""
	if f := intervalFields(mod); f != intervalFullRange {
		for _, r := range intervalRanges {
			if r.mask == f {
				s = " " + r.name
			}
		}
	}
	if p := intervalPrecision(mod); p != intervalFullPrecision {
		s += "(" + itoa(int(p)) + ")"
	}
	return s
}

// intervalScales and intervalOffsets round the microseconds of an
// interval to a precision.
var (
	intervalScales  = [maxIntervalPrecision + 1]int64{1000000, 100000, 10000, 1000, 100, 10, 1}
	intervalOffsets = [maxIntervalPrecision + 1]int64{500000, 50000, 5000, 500, 50, 5, 0}
)

// AdjustInterval applies an interval typmod as PostgreSQL's
// AdjustIntervalForTypmod does: fields right of the range's last are
// dropped (those left of it kept: interval hour keeps days), then the
// seconds are rounded half away from zero to the precision.
func AdjustInterval(iv IntervalValue, mod int32) IntervalValue {
	if mod < 0 {
		return iv
	}
	switch intervalFields(mod) {
	case ivYear:
		iv.Months, iv.Days, iv.Micros = iv.Months/12*12, 0, 0
	case ivMonth, ivYear | ivMonth:
		iv.Days, iv.Micros = 0, 0
	case ivDay:
		iv.Micros = 0
	case ivHour, ivDay | ivHour:
		iv.Micros = iv.Micros / usecsPerHour * usecsPerHour
	case ivMinute, ivDay | ivHour | ivMinute, ivHour | ivMinute:
		iv.Micros = iv.Micros / usecsPerMinute * usecsPerMinute
	}
	if p := intervalPrecision(mod); p <= maxIntervalPrecision {
		scale, offset := intervalScales[p], intervalOffsets[p]
		// Wrapping on overflow as PostgreSQL 15's int64 arithmetic does.
		if iv.Micros >= 0 {
			iv.Micros = (iv.Micros + offset) / scale * scale
		} else {
			iv.Micros = -((-iv.Micros + offset) / scale * scale)
		}
	}
	return iv
}

// defaultIntervalUnit is the unit of a bare number in interval input for
// a field range: its last field (DecodeInterval's "use typmod to decide
// what rightmost field is").
func defaultIntervalUnit(fields int32) intervalUnit {
	switch fields {
	case ivYear:
		return unitYear
	case ivMonth, ivYear | ivMonth:
		return unitMonth
	case ivDay:
		return unitDay
	case ivHour, ivDay | ivHour:
		return unitHour
	case ivMinute, ivHour | ivMinute, ivDay | ivHour | ivMinute:
		return unitMinute
	}
	return unitSecond
}
