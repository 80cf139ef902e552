package types

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Tags of the memcomparable key encoding, in the order Compare gives kinds.
// NULL's tag is above all others so NULL sorts last ascending (and, inverted,
// first descending: PostgreSQL's defaults).
const (
	keyBool        = 0x10
	keyInt         = 0x11
	keyFloat       = 0x12
	keyDecNegInf   = 0x13
	keyDecNeg      = 0x14
	keyDecZero     = 0x15
	keyDecPos      = 0x16
	keyDecPosInf   = 0x17
	keyDecNaN      = 0x18
	keyString      = 0x19
	keyBytes       = 0x1a
	keyDate        = 0x1b
	keyTime        = 0x1c
	keyTimestamp   = 0x1d
	keyTimestampTZ = 0x1e
	keyInterval    = 0x1f
	keyJSON        = 0x20
	keyArray       = 0x21
	keyRecord      = 0x22
	keyNull        = 0xff
)

// keyArrayEnd ends the elements of an array key and the fields of a record
// key; it sorts below every tag, so an array sorts before its extensions. keyArrayEndDims ends those of
// an array with dimensions (more than one, or lower bounds other than 1),
// followed by their number, their lengths and their lower bounds.
const (
	keyArrayEnd     = 0x00
	keyArrayEndDims = 0x01
)

// Byte strings end with escEnd after escByte; a zero byte inside is
// written as escByte escZero, so a prefix sorts before its extensions.
const (
	escByte = 0x00
	escZero = 0xff
	escEnd  = 0x01
)

// AppendKey appends the memcomparable encoding of d to dst: for datums of
// one family, bytes.Compare of two encodings equals Compare of the datums,
// and encodings are self-delimiting so keys of several columns concatenate.
// desc inverts every byte, reversing the order (NULL then sorts first).
//
// Datums that Compare equal encode equal, so the encoding is also the
// grouping and hashing key: numerics are encoded without their display
// scale (2.5 and 2.50 are one key), floats with -0 as 0 and one NaN,
// intervals by interval_cmp's total. An array is its elements' keys (a
// NULL element's tag sorting above all values) and an end byte below every
// tag, so arrays order element by element, then shorter first, as
// PostgreSQL's array comparison does. Numbers of different kinds (int 1,
// float 1, numeric 1) are not encoded alike; cast key columns to one type
// first.
func AppendKey(dst []byte, d Datum, desc bool) []byte {
	start := len(dst)
	dst = appendKeyAsc(dst, d)
	if desc {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

func appendKeyAsc(dst []byte, d Datum) []byte {
	switch d.kind {
	case KindBool:
		return append(dst, keyBool, byte(d.i))
	case KindInt:
		return appendOrderedInt(append(dst, keyInt), d.i)
	case KindFloat:
		return binary.BigEndian.AppendUint64(append(dst, keyFloat), floatKeyBits(d.Float()))
	case KindDecimal:
		return appendDecimalKey(dst, d.Decimal())
	case KindString:
		return appendEscaped(append(dst, keyString), d.s)
	case KindBytes:
		return appendEscaped(append(dst, keyBytes), d.s)
	case KindJSON:
		return appendEscaped(append(dst, keyJSON), d.s)
	case KindDate:
		return appendOrderedInt(append(dst, keyDate), d.i)
	case KindTime:
		return appendOrderedInt(append(dst, keyTime), d.i)
	case KindTimestamp:
		return appendOrderedInt(append(dst, keyTimestamp), d.i)
	case KindTimestampTZ:
		return appendOrderedInt(append(dst, keyTimestampTZ), d.i)
	case KindInterval:
		days, micros := intervalKey(d.Interval())
		return appendOrderedInt(appendOrderedInt(append(dst, keyInterval), days), micros)
	case KindArray:
		dst = append(dst, keyArray)
		for _, e := range d.Array() {
			dst = appendKeyAsc(dst, e)
		}
		if d.s == "" {
			return append(dst, keyArrayEnd)
		}
		dst = append(dst, keyArrayEndDims, byte(d.ArrayNDims()))
		for i := range d.ArrayNDims() {
			dst = binary.BigEndian.AppendUint32(dst, uint32(d.ArrayDim(i).Len)^1<<31)
		}
		for i := range d.ArrayNDims() {
			dst = binary.BigEndian.AppendUint32(dst, uint32(d.ArrayDim(i).Lower)^1<<31)
		}
		return dst
	case KindRecord:
		dst = append(dst, keyRecord)
		for _, v := range d.Record() {
			dst = appendKeyAsc(dst, v)
		}
		return append(dst, keyArrayEnd)
	}
	return append(dst, keyNull)
}

// appendOrderedInt appends v big-endian with its sign bit flipped, so
// unsigned byte order is signed order.
func appendOrderedInt(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^1<<63)
}

// floatKeyBits maps a float to bits whose unsigned order is cmpFloat's
// order, with -0 as 0 and every NaN as one NaN above +Inf.
func floatKeyBits(f float64) uint64 {
	switch {
	case f != f:
		f = nan
	case f == 0:
		f = 0
	}
	bits := math.Float64bits(f)
	if bits>>63 == 1 {
		return ^bits
	}
	return bits | 1<<63
}

// appendEscaped appends s with zero bytes escaped, then the terminator.
func appendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(dst, s[:i]...)
		dst = append(dst, escByte, escZero)
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, escByte, escEnd)
}

// appendDecimalKey encodes a numeric as a class tag, then for nonzero
// finite values the magnitude 0.d1d2...dn × 10^e (no trailing zeros) as e
// (order-preserving int32) and base-100 digit pairs (pair+1) ended by 0;
// negative magnitudes are inverted so larger magnitudes sort first.
func appendDecimalKey(dst []byte, d *apd.Decimal) []byte {
	switch {
	case d.Form == apd.NaN || d.Form == apd.NaNSignaling:
		return append(dst, keyDecNaN)
	case d.Form == apd.Infinite && d.Negative:
		return append(dst, keyDecNegInf)
	case d.Form == apd.Infinite:
		return append(dst, keyDecPosInf)
	case d.IsZero():
		return append(dst, keyDecZero)
	}
	tag := byte(keyDecPos)
	if d.Negative {
		tag = keyDecNeg
	}
	dst = append(dst, tag)
	start := len(dst)
	var scratch [40]byte
	digits := d.Coeff.Append(scratch[:0], 10)
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	exp := int64(d.NumDigits()) + int64(d.Exponent)
	dst = binary.BigEndian.AppendUint32(dst, uint32(int32(exp))^1<<31)
	for i := 0; i < len(digits); i += 2 {
		pair := (digits[i] - '0') * 10
		if i+1 < len(digits) {
			pair += digits[i+1] - '0'
		}
		dst = append(dst, pair+1)
	}
	dst = append(dst, 0)
	if d.Negative {
		for i := start; i < len(dst); i++ {
			dst[i] = ^dst[i]
		}
	}
	return dst
}

// DecodeKey decodes one value of type t encoded by AppendKey (with the same
// desc) from the front of src, returning it and the rest of src. The value
// Compares equal to the encoded one; numerics come back without trailing
// fraction zeros and intervals in a canonical months/days/time split. The
// result never aliases src.
func DecodeKey(t T, src []byte, desc bool) (Datum, []byte, error) {
	var mask byte
	if desc {
		mask = 0xff
	}
	d, rest, ok := decodeKey(src, mask)
	if !ok || !kindFits(d, t) {
		return Null, src, errCorrupt("key")
	}
	return d, rest, nil
}

func decodeKey(src []byte, mask byte) (Datum, []byte, bool) {
	if len(src) == 0 {
		return Null, src, false
	}
	tag, src := src[0]^mask, src[1:]
	orderedInt := func() (int64, bool) {
		if len(src) < 8 {
			return 0, false
		}
		v := int64(binary.BigEndian.Uint64(src)^maskWord(mask)) ^ math.MinInt64
		src = src[8:]
		return v, true
	}
	switch tag {
	case keyNull:
		return Null, src, true
	case keyBool:
		if len(src) < 1 {
			return Null, src, false
		}
		return NewBool(src[0]^mask != 0), src[1:], true
	case keyInt, keyDate, keyTime, keyTimestamp, keyTimestampTZ:
		v, ok := orderedInt()
		return Datum{kind: intKeyKind(tag), i: v}, src, ok
	case keyFloat:
		if len(src) < 8 {
			return Null, src, false
		}
		bits := binary.BigEndian.Uint64(src) ^ maskWord(mask)
		if bits>>63 == 1 {
			bits &^= 1 << 63
		} else {
			bits = ^bits
		}
		return NewFloat(math.Float64frombits(bits)), src[8:], true
	case keyString, keyBytes, keyJSON:
		s, rest, ok := decodeEscaped(src, mask)
		switch tag {
		case keyBytes:
			return Datum{kind: KindBytes, s: s}, rest, ok
		case keyJSON:
			return NewJSON(s), rest, ok
		}
		return NewString(s), rest, ok
	case keyInterval:
		days, ok1 := orderedInt()
		micros, ok2 := orderedInt()
		return NewInterval(intervalFromKey(days, micros)), src, ok1 && ok2
	case keyArray:
		return decodeArrayKey(src, mask)
	case keyRecord:
		return decodeRecordKey(src, mask)
	}
	return decodeDecimalKey(tag, src, mask)
}

// decodeArrayKey decodes an array's element keys up to its end byte.
func decodeArrayKey(src []byte, mask byte) (Datum, []byte, bool) {
	var elems []Datum
	for {
		if len(src) == 0 {
			return Null, src, false
		}
		switch src[0] ^ mask {
		case keyArrayEnd:
			return NewArray(elems), src[1:], true
		case keyArrayEndDims:
			return decodeArrayKeyDims(elems, src[1:], mask)
		}
		e, rest, ok := decodeKey(src, mask)
		if !ok || e.kind == KindArray {
			return Null, src, false
		}
		elems, src = append(elems, e), rest
	}
}

// decodeRecordKey decodes a record's field keys up to its end byte.
func decodeRecordKey(src []byte, mask byte) (Datum, []byte, bool) {
	var vals []Datum
	for {
		if len(src) == 0 {
			return Null, src, false
		}
		if src[0]^mask == keyArrayEnd {
			return NewRecord(vals), src[1:], true
		}
		v, rest, ok := decodeKey(src, mask)
		if !ok {
			return Null, src, false
		}
		vals, src = append(vals, v), rest
	}
}

// decodeArrayKeyDims decodes the dimensions after an array's elements.
func decodeArrayKeyDims(elems []Datum, src []byte, mask byte) (Datum, []byte, bool) {
	if len(src) == 0 {
		return Null, src, false
	}
	n := int(src[0] ^ mask)
	src = src[1:]
	if n == 0 || n > MaxArrayDims || len(src) < 8*n {
		return Null, src, false
	}
	word := func(k int) int32 {
		return int32(binary.BigEndian.Uint32(src[4*k:]) ^ uint32(maskWord(mask)) ^ 1<<31)
	}
	var dimBuf [MaxArrayDims]ArrayDim
	dims := dimBuf[:n]
	for i := range dims {
		dims[i] = ArrayDim{Len: word(i), Lower: word(n + i)}
	}
	return NewArrayDims(elems, dims), src[8*n:], true
}

// intKeyKind returns the kind of a tag encoded as an ordered int64.
func intKeyKind(tag byte) Kind {
	switch tag {
	case keyDate:
		return KindDate
	case keyTime:
		return KindTime
	case keyTimestamp:
		return KindTimestamp
	case keyTimestampTZ:
		return KindTimestampTZ
	}
	return KindInt
}

// maskWord spreads a byte mask over 64 bits.
func maskWord(mask byte) uint64 { return uint64(mask) * 0x0101010101010101 }

// decodeEscaped reads an escaped byte string and its terminator.
func decodeEscaped(src []byte, mask byte) (string, []byte, bool) {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i] ^ mask
		if c != escByte {
			continue
		}
		if i+1 >= len(src) {
			return "", src, false
		}
		// Find the end first to size the copy once.
		if next := src[i+1] ^ mask; next == escEnd {
			b.Grow(i)
			for j := 0; j < i; j++ {
				c := src[j] ^ mask
				if c == escByte {
					j++
					c = 0
				}
				b.WriteByte(c)
			}
			return b.String(), src[i+2:], true
		} else if next != escZero {
			return "", src, false
		}
		i++
	}
	return "", src, false
}

func decodeDecimalKey(tag byte, src []byte, mask byte) (Datum, []byte, bool) {
	switch tag {
	case keyDecNaN:
		return NewDecimal(&apd.Decimal{Form: apd.NaN}), src, true
	case keyDecNegInf:
		return NewDecimal(&apd.Decimal{Form: apd.Infinite, Negative: true}), src, true
	case keyDecPosInf:
		return NewDecimal(&apd.Decimal{Form: apd.Infinite}), src, true
	case keyDecZero:
		return NewDecimal(new(apd.Decimal)), src, true
	case keyDecPos:
	case keyDecNeg:
		mask = ^mask
	default:
		return Null, src, false
	}
	if len(src) < 4 {
		return Null, src, false
	}
	exp := int64(int32(binary.BigEndian.Uint32(src) ^ uint32(maskWord(mask)) ^ 1<<31))
	src = src[4:]
	end := 0
	for end < len(src) && src[end]^mask != 0 {
		end++
	}
	if end == len(src) || end == 0 {
		return Null, src, false
	}
	digits := make([]byte, 0, 2*end)
	for _, b := range src[:end] {
		p := b ^ mask - 1
		if p >= 100 {
			return Null, src, false
		}
		digits = append(digits, '0'+p/10, '0'+p%10)
	}
	if digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	d := new(apd.Decimal)
	if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return Null, src, false
	}
	d.Exponent = int32(exp - int64(len(digits)))
	d.Negative = tag == keyDecNeg
	if normalizeNumeric(d) != nil {
		return Null, src, false
	}
	return NewDecimal(d), src[end+1:], true
}

// intervalFromKey rebuilds an interval from interval_cmp's total as
// justify_days would: 30-day months, then days, then time.
func intervalFromKey(days, micros int64) IntervalValue {
	months := clampInt32(days / 30)
	days -= months * 30
	d := clampInt32(days)
	micros += (days - d) * usecsPerDay
	return IntervalValue{Months: int32(months), Days: int32(d), Micros: micros}
}

func clampInt32(v int64) int64 { return min(max(v, math.MinInt32), math.MaxInt32) }
