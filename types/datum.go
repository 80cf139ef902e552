package types

import (
	"math"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
)

// Kind is the physical representation held by a Datum.
type Kind uint8

// Datum kinds. Several SQL types share a kind (all integers are KindInt,
// text/varchar/char/name are KindString); the static type T says which.
const (
	KindNull Kind = iota
	KindBool
	KindInt
	KindFloat
	KindDecimal
	KindString
	KindBytes
	KindDate        // days since 1970-01-01
	KindTime        // microseconds since midnight
	KindTimestamp   // microseconds since 2000-01-01 00:00:00 (PostgreSQL's epoch), no zone
	KindTimestampTZ // microseconds since 2000-01-01 00:00:00 UTC
	KindInterval
	KindJSON   // canonical JSON text in s
	KindArray  // one-dimensional array: elements behind a
	KindRecord // record: field values behind a
	// KindUnchanged marks a column a change by key leaves as stored (see
	// Unchanged); it is never a value.
	KindUnchanged
)

// IntervalValue is PostgreSQL's interval: months, days and microseconds kept apart.
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

// Datum is one SQL value. The zero Datum is NULL. Datums are small values
// passed by copy; what p points to is never mutated once set.
//
// A Datum is 40 bytes: rows are slices of them, so their size is the
// memory every row takes and the bytes the collector scans. The values
// that need more than an integer or a string share one pointer, whose
// target the kind says.
type Datum struct {
	kind Kind
	i    int64  // bool, integers, date, time, timestamps, interval micros, float bits
	s    string // text, bytea, json; an array's packed dimensions
	// p is a numeric's *apd.Decimal, an array's or a record's *[]Datum,
	// or an interval's months<<32 | uint32(days) as *int64 (nil for 0).
	p unsafe.Pointer
}

// Null is the SQL NULL.
var Null = Datum{}

// Unchanged stands for "the stored value of this column" in a change by
// primary key (an upstream update that did not send an unchanged value).
// It is never a value: it travels only from a keyed source to the
// upserting materialization of its table, which replaces it with the
// stored value, and it fits every type in a row value encoding.
var Unchanged = Datum{kind: KindUnchanged}

// NewBool returns a bool datum.
func NewBool(b bool) Datum {
	if b {
		return Datum{kind: KindBool, i: 1}
	}
	return Datum{kind: KindBool}
}

// NewInt returns an integer datum (for int2, int4 and int8).
func NewInt(i int64) Datum { return Datum{kind: KindInt, i: i} }

// NewFloat returns a float datum (for float4 and float8).
func NewFloat(f float64) Datum { return Datum{kind: KindFloat, i: int64(math.Float64bits(f))} }

// NewDecimal returns a numeric datum; d must not be mutated afterwards.
func NewDecimal(d *apd.Decimal) Datum { return Datum{kind: KindDecimal, p: unsafe.Pointer(d)} }

// NewString returns a string datum (text, varchar, char, name).
func NewString(s string) Datum { return Datum{kind: KindString, s: s} }

// NewBytes returns a bytea datum.
func NewBytes(b []byte) Datum { return Datum{kind: KindBytes, s: string(b)} }

// NewDate returns a date datum from days since 1970-01-01, unchecked: see
// MakeDate.
func NewDate(days int64) Datum { return Datum{kind: KindDate, i: days} }

// NewTime returns a time datum from microseconds since midnight.
func NewTime(micros int64) Datum { return Datum{kind: KindTime, i: micros} }

// NewTimestamp returns a timestamp (without time zone) datum from
// microseconds since 2000-01-01, PostgreSQL's epoch (UnixEpochTimestamp is
// 1970-01-01), unchecked: see MakeTimestamp.
func NewTimestamp(micros int64) Datum { return Datum{kind: KindTimestamp, i: micros} }

// NewTimestampTZ returns a timestamptz datum from microseconds since
// 2000-01-01 00:00:00 UTC, unchecked: see MakeTimestampTZ.
func NewTimestampTZ(micros int64) Datum { return Datum{kind: KindTimestampTZ, i: micros} }

// NewInterval returns an interval datum.
func NewInterval(iv IntervalValue) Datum {
	return newInterval(iv.Micros, int64(iv.Months)<<32|int64(uint32(iv.Days)))
}

// newInterval returns the interval of micros and of months and days packed
// in j as months<<32 | uint32(days).
func newInterval(micros, j int64) Datum {
	d := Datum{kind: KindInterval, i: micros}
	if j != 0 {
		d.p = unsafe.Pointer(&j)
	}
	return d
}

// j returns the months and days of an interval packed as newInterval takes
// them, 0 for any other kind.
func (d Datum) j() int64 {
	if d.kind != KindInterval || d.p == nil {
		return 0
	}
	return *(*int64)(d.p)
}

// newElems returns a datum of kind (an array or a record) of elems, with
// an array's packed dimensions dims.
func newElems(kind Kind, elems []Datum, dims string) Datum {
	return Datum{kind: kind, s: dims, p: unsafe.Pointer(&elems)}
}

// NewJSON returns a jsonb datum holding canonical JSON text.
func NewJSON(s string) Datum { return Datum{kind: KindJSON, s: s} }

// Kind returns the datum's representation.
func (d Datum) Kind() Kind { return d.kind }

// IsNull reports whether d is NULL.
func (d Datum) IsNull() bool { return d.kind == KindNull }

// IsUnchanged reports whether d is Unchanged.
func (d Datum) IsUnchanged() bool { return d.kind == KindUnchanged }

// Bool returns the value of a bool datum.
func (d Datum) Bool() bool { return d.i != 0 }

// Int returns the value of an integer datum.
func (d Datum) Int() int64 { return d.i }

// Float returns the value of a float datum.
func (d Datum) Float() float64 { return math.Float64frombits(uint64(d.i)) }

// Decimal returns the value of a numeric datum; callers must not mutate it.
func (d Datum) Decimal() *apd.Decimal {
	if d.kind != KindDecimal {
		return nil
	}
	return (*apd.Decimal)(d.p)
}

// Str returns the value of a string, bytea or json datum.
func (d Datum) Str() string { return d.s }

// Date returns days since 1970-01-01 of a date datum.
func (d Datum) Date() int64 { return d.i }

// Micros returns the microseconds of a time, timestamp or timestamptz datum.
func (d Datum) Micros() int64 { return d.i }

// Interval returns the value of an interval datum.
func (d Datum) Interval() IntervalValue {
	j := d.j()
	return IntervalValue{Months: int32(j >> 32), Days: int32(uint32(j)), Micros: d.i}
}
