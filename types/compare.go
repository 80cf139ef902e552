package types

import (
	"cmp"
	"math"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Compare orders datums for ORDER BY, grouping and keys, returning -1, 0 or
// +1. NULL sorts after every value (PostgreSQL's default for ASC). Numbers
// compare by exact value across integer, float and numeric kinds (where
// PostgreSQL would first cast to float8; the planner should cast operands to
// one type), with NaN above every other number and equal to itself. Strings, bytea
// and jsonb compare bytewise (C collation; jsonb by its canonical text).
// Dates, timestamps and timestamptz compare by instant (a date is its
// midnight), times by value, intervals as interval_cmp does (30-day months,
// 24-hour days). Arrays compare element by element, then the shorter
// first (array_cmp; NULL elements sort last as NULL does). Values of
// unrelated kinds order by kind.
func Compare(a, b Datum) int {
	if a.kind == KindNull || b.kind == KindNull {
		return cmp.Compare(nullRank(a), nullRank(b))
	}
	if a.kind == b.kind {
		switch a.kind {
		case KindBool, KindInt, KindDate, KindTime, KindTimestamp, KindTimestampTZ:
			return cmp.Compare(a.i, b.i)
		case KindFloat:
			return cmpFloat(a.Float(), b.Float())
		case KindDecimal:
			return cmpNumeric(a.Decimal(), b.Decimal())
		case KindString, KindBytes, KindJSON:
			return strings.Compare(a.s, b.s)
		case KindInterval:
			return cmpInterval(a.Interval(), b.Interval())
		case KindArray, KindRecord:
			return cmpArray(a, b)
		}
		return 0
	}
	if isNumberKind(a.kind) && isNumberKind(b.kind) {
		return cmpNumbers(a, b)
	}
	if isInstantKind(a.kind) && isInstantKind(b.kind) {
		return cmp.Compare(instant(a), instant(b))
	}
	return cmp.Compare(a.kind, b.kind)
}

// CompareAs is Compare for values of type t: character(n) values compare
// without their trailing spaces, as PostgreSQL's bpchar operators do
// ('a' = 'a  '::char(3)).
func CompareAs(t T, a, b Datum) int {
	if t.Family == Bpchar && a.kind == KindString && b.kind == KindString {
		return strings.Compare(strings.TrimRight(a.s, " "), strings.TrimRight(b.s, " "))
	}
	return Compare(a, b)
}

// cmpArray is array_cmp: element by element, then the shorter first, then
// the fewer dimensions, then by the dimensions' lengths and lower bounds.
func cmpArray(a, b Datum) int {
	x, y := a.Array(), b.Array()
	for i := range min(len(x), len(y)) {
		if c := Compare(x[i], y[i]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(x), len(y)); c != 0 || SameDims(a, b) {
		return c
	}
	if c := cmp.Compare(a.ArrayNDims(), b.ArrayNDims()); c != 0 {
		return c
	}
	for i := range a.ArrayNDims() {
		if c := cmp.Compare(a.ArrayDim(i).Len, b.ArrayDim(i).Len); c != 0 {
			return c
		}
	}
	for i := range a.ArrayNDims() {
		if c := cmp.Compare(a.ArrayDim(i).Lower, b.ArrayDim(i).Lower); c != 0 {
			return c
		}
	}
	return 0
}

func nullRank(d Datum) int {
	if d.kind == KindNull {
		return 1
	}
	return 0
}

// cmpFloat is float8_cmp: NaN equals NaN and sorts above all other values.
func cmpFloat(a, b float64) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

func isNumberKind(k Kind) bool { return k == KindInt || k == KindFloat || k == KindDecimal }

func isInstantKind(k Kind) bool { return k == KindDate || k == KindTimestamp || k == KindTimestampTZ }

// DateAsInstant returns a date as the timestamp or timestamptz (to) it
// compares with, as PostgreSQL's cross-type comparison operators
// (date_cmp_timestamp) do without failing: a date past the timestamp
// range is above every finite timestamp and below infinity. Only
// comparisons may see the result.
func DateAsInstant(d Datum, to T, loc *time.Location) Datum {
	if to.Family == TimestampTZ {
		return NewTimestampTZ(FromLocal(loc, instant(d)))
	}
	return NewTimestamp(instant(d))
}

// instant returns a date, timestamp or timestamptz as a timestamp, keeping
// infinities. Dates past the timestamp range map above every finite
// timestamp (which typmod rounding can take up to endTimestamp).
func instant(d Datum) int64 {
	if d.kind == KindDate {
		if micros, err := DateToTimestamp(d.i); err == nil {
			return micros
		}
		return endTimestamp + 1
	}
	return d.i
}

// cmpNumbers compares numbers of different kinds exactly.
func cmpNumbers(a, b Datum) int {
	switch {
	case a.kind == KindInt && b.kind == KindFloat:
		return cmpIntFloat(a.i, b.Float())
	case a.kind == KindFloat && b.kind == KindInt:
		return -cmpIntFloat(b.i, a.Float())
	}
	return cmpNumeric(numberAsDecimal(a), numberAsDecimal(b))
}

// cmpIntFloat compares an integer with a float without rounding either.
func cmpIntFloat(i int64, f float64) int {
	switch {
	case f != f:
		return -1
	case f >= math.MaxInt64: // 2^63 and above
		return -1
	case f < math.MinInt64:
		return 1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	return cmp.Compare(0, f-t)
}

// numberAsDecimal returns a number datum as an exact decimal.
func numberAsDecimal(d Datum) *apd.Decimal {
	switch d.kind {
	case KindInt:
		return decimalFromInt(d.i)
	case KindFloat:
		switch f := d.Float(); {
		case f != f:
			return &apd.Decimal{Form: apd.NaN}
		case math.IsInf(f, 0):
			return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}
		default:
			return exactDecimal(f)
		}
	}
	return d.Decimal()
}

// exactDecimal returns the exact decimal value of a finite float (not its
// shortest text): m × 2^e is m × 5^-e × 10^e for negative e.
func exactDecimal(f float64) *apd.Decimal {
	frac, exp := math.Frexp(f)
	m, e := int64(frac*(1<<53)), exp-53
	for m != 0 && m%2 == 0 {
		m /= 2
		e++
	}
	d := apd.New(m, 0)
	if e > 0 {
		d.Coeff.Lsh(&d.Coeff, uint(e))
	} else if e < 0 {
		var pow apd.BigInt
		pow.Exp(apd.NewBigInt(5), apd.NewBigInt(int64(-e)), nil)
		d.Coeff.Mul(&d.Coeff, &pow)
		d.Exponent = int32(e)
	}
	return d
}

// intervalKey is an interval reduced to interval_cmp's total: whole days
// (months counted as 30 days) and the microseconds left over in [0, 1 day).
func intervalKey(iv IntervalValue) (days, micros int64) {
	extra := floorDiv(iv.Micros, usecsPerDay)
	return int64(iv.Months)*30 + int64(iv.Days) + extra, iv.Micros - extra*usecsPerDay
}

// cmpInterval is interval_cmp.
func cmpInterval(a, b IntervalValue) int {
	ad, am := intervalKey(a)
	bd, bm := intervalKey(b)
	if c := cmp.Compare(ad, bd); c != 0 {
		return c
	}
	return cmp.Compare(am, bm)
}
