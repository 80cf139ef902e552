package types

import (
	"strconv"
	"time"
)

// FormatText appends PostgreSQL's text output of d, a value of type t, to
// dst, exactly as PostgreSQL 15 prints it with DateStyle ISO, MDY,
// IntervalStyle postgres, TimeZone UTC and extra_float_digits 1. The datum's
// kind picks the output function; t distinguishes float4 from float8. NULL
// appends nothing (the wire protocol sends NULL as a length of -1).
func FormatText(dst []byte, t T, d Datum) []byte { return FormatTextZone(dst, t, d, nil) }

// FormatTextZone is FormatText with TimeZone loc (nil: UTC): timestamptz
// values print as wall-clock times in loc with loc's offset then.
func FormatTextZone(dst []byte, t T, d Datum, loc *time.Location) []byte {
	switch d.kind {
	case KindBool:
		if d.Bool() {
			return append(dst, 't')
		}
		return append(dst, 'f')
	case KindInt:
		return strconv.AppendInt(dst, d.i, 10)
	case KindFloat:
		if t.Family == Float4 {
			return appendFloat(dst, d.Float(), 32)
		}
		return appendFloat(dst, d.Float(), 64)
	case KindDecimal:
		return appendNumeric(dst, d.Decimal())
	case KindString, KindJSON:
		return append(dst, d.s...)
	case KindBytes:
		return appendByteaHex(dst, d.s)
	case KindDate:
		return appendDate(dst, d.i)
	case KindTime:
		return appendClock(dst, d.i)
	case KindTimestamp:
		return appendTimestamp(dst, d.i, false, nil)
	case KindTimestampTZ:
		return appendTimestamp(dst, d.i, true, loc)
	case KindInterval:
		return appendInterval(dst, d.Interval())
	case KindArray:
		return appendArrayText(dst, t.ElemType(), d, loc)
	case KindRecord:
		return appendRecordText(dst, t, d.Record(), loc)
	}
	return dst
}

// appendByteaHex appends bytea_out's hex format: \x followed by lower-case
// hex digits.
func appendByteaHex(dst []byte, b string) []byte {
	dst = append(dst, '\\', 'x')
	for i := 0; i < len(b); i++ {
		dst = append(dst, hexDigits[b[i]>>4], hexDigits[b[i]&0xf])
	}
	return dst
}

// kindTypes is the default type of each datum kind, for Datum.String.
var kindTypes = [...]T{
	KindNull:        TUnknown,
	KindBool:        TBool,
	KindInt:         TInt8,
	KindFloat:       TFloat8,
	KindDecimal:     TNumeric,
	KindString:      TText,
	KindBytes:       TBytea,
	KindDate:        TDate,
	KindTime:        TTime,
	KindTimestamp:   TTimestamp,
	KindTimestampTZ: TTimestampTZ,
	KindInterval:    TInterval,
	KindJSON:        TJsonb,
	KindArray:       {Family: Array, Mod: -1}, // elements format by their kinds
	KindRecord:      TRecord,
}

// String returns d's PostgreSQL text form for debugging and logs, NULL or
// UNCHANGED.
func (d Datum) String() string {
	switch d.kind {
	case KindNull:
		return "NULL"
	case KindUnchanged:
		return "UNCHANGED"
	}
	return string(FormatText(nil, kindTypes[d.kind], d))
}
