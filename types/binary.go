package types

import (
	"encoding/binary"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// PostgreSQL's numeric sign words in the binary format.
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaN    = 0xC000
	numericPInf   = 0xD000
	numericNInf   = 0xF000
	numericDigits = 4 // decimal digits per base-10000 digit
)

// EncodeBinary appends PostgreSQL's binary send format of d, a value of
// type t, to dst: big-endian integers and IEEE floats, numeric as base-10000
// digits with weight, sign and display scale, dates as int32 days and
// times/timestamps as int64 microseconds since 2000-01-01 (midnight for
// time), intervals as micros, days, months, jsonb as version 1 and text.
// The datum's kind must match t; NULL has no binary form (the wire sends a
// length of -1).
func EncodeBinary(dst []byte, t T, d Datum) ([]byte, error) {
	if d.kind == KindNull || !kindFits(d, t) {
		return dst, pgerror.New(pgerror.CodeInternal, "cannot send %s value as type %s", kindNames[d.kind], t)
	}
	switch t.Family {
	case Bool:
		if d.Bool() {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case Int2:
		return binary.BigEndian.AppendUint16(dst, uint16(d.i)), nil
	case Int4, Oid:
		return binary.BigEndian.AppendUint32(dst, uint32(d.i)), nil
	case Int8, Time:
		return binary.BigEndian.AppendUint64(dst, uint64(d.i)), nil
	case Float4:
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(float32(d.Float()))), nil
	case Float8:
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(d.Float())), nil
	case Numeric:
		return appendNumericBinary(dst, d.Decimal()), nil
	case Date:
		days := d.i
		switch days {
		case DateTimeInfinity:
			days = math.MaxInt32
		case DateTimeNegInfinity:
			days = math.MinInt32
		default:
			days -= pgEpochDays
		}
		return binary.BigEndian.AppendUint32(dst, uint32(days)), nil
	case Timestamp, TimestampTZ:
		return binary.BigEndian.AppendUint64(dst, uint64(d.i)), nil
	case Interval:
		iv := d.Interval()
		dst = binary.BigEndian.AppendUint64(dst, uint64(iv.Micros))
		dst = binary.BigEndian.AppendUint32(dst, uint32(iv.Days))
		return binary.BigEndian.AppendUint32(dst, uint32(iv.Months)), nil
	case Jsonb:
		return append(append(dst, 1), d.s...), nil
	case Array:
		return appendArrayBinary(dst, t.ElemType(), d)
	case Record:
		return appendRecordBinary(dst, t, d.Record())
	case Unknown:
		return FormatText(dst, t, d), nil
	}
	return append(dst, d.s...), nil // text, varchar, char, name, bytea
}

// familyKinds is the datum kind holding each family's values.
var familyKinds = [...]Kind{
	Unknown: KindString, Bool: KindBool, Int2: KindInt, Int4: KindInt, Int8: KindInt, Oid: KindInt,
	Float4: KindFloat, Float8: KindFloat, Numeric: KindDecimal,
	Text: KindString, Varchar: KindString, Bpchar: KindString, Name: KindString, Bytea: KindBytes,
	Date: KindDate, Time: KindTime, Timestamp: KindTimestamp, TimestampTZ: KindTimestampTZ,
	Interval: KindInterval, Jsonb: KindJSON, Array: KindArray, Record: KindRecord,
}

// kindFits reports whether d is NULL or of the kind holding t's values (for
// an array, and its elements of the kind of t's elements); unknown-typed
// values may be of any kind.
func kindFits(d Datum, t T) bool {
	if d.kind == KindNull || t.Family == Unknown {
		return true
	}
	if int(t.Family) >= len(familyKinds) || d.kind != familyKinds[t.Family] {
		return false
	}
	switch d.kind {
	case KindArray:
		elem := t.ElemType()
		for _, e := range d.Array() {
			if !kindFits(e, elem) {
				return false
			}
		}
	case KindRecord:
		for i, v := range d.Record() {
			if !kindFits(v, fieldType(t, i, v)) {
				return false
			}
		}
	}
	return true
}

// kindNames names datum kinds in messages.
var kindNames = [...]string{
	KindNull: "NULL", KindBool: "bool", KindInt: "integer", KindFloat: "float", KindDecimal: "numeric",
	KindString: "string", KindBytes: "bytea", KindDate: "date", KindTime: "time",
	KindTimestamp: "timestamp", KindTimestampTZ: "timestamptz", KindInterval: "interval", KindJSON: "jsonb",
	KindArray: "array", KindRecord: "record", KindUnchanged: "unchanged",
}

// appendNumericBinary appends numeric_send's format: ndigits, weight, sign,
// dscale (int16 each), then ndigits base-10000 digits, most significant
// first, without leading or trailing zero digits.
func appendNumericBinary(dst []byte, d *apd.Decimal) []byte {
	header := func(ndigits, weight int, sign uint16, dscale int) []byte {
		dst = binary.BigEndian.AppendUint16(dst, uint16(ndigits))
		dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
		dst = binary.BigEndian.AppendUint16(dst, sign)
		return binary.BigEndian.AppendUint16(dst, uint16(dscale))
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return header(0, 0, numericNaN, 0)
	case apd.Infinite:
		if d.Negative {
			return header(0, 0, numericNInf, 0)
		}
		return header(0, 0, numericPInf, 0)
	}
	dscale := max(0, -int(d.Exponent))
	if d.IsZero() {
		return header(0, 0, numericPos, dscale)
	}
	var scratch [40]byte
	coeff := d.Coeff.Append(scratch[:0], 10)
	// Lay the digits out on base-10000 boundaries: intDigits decimal digits
	// sit before the point; pad in front so they fill whole groups.
	intDigits := len(coeff) + int(d.Exponent)
	pad := (numericDigits - intDigits%numericDigits) % numericDigits
	total := pad + len(coeff) + max(0, int(d.Exponent))
	ngroups := (total + numericDigits - 1) / numericDigits
	weight := (intDigits+pad)/numericDigits - 1
	digitAt := func(k int) int { // decimal digit k of the padded layout
		if k -= pad; k >= 0 && k < len(coeff) {
			return int(coeff[k] - '0')
		}
		return 0
	}
	group := func(g int) uint16 {
		v := 0
		for k := g * numericDigits; k < (g+1)*numericDigits; k++ {
			v = v*10 + digitAt(k)
		}
		return uint16(v)
	}
	first, last := 0, ngroups-1
	for group(first) == 0 {
		first++
	}
	for group(last) == 0 {
		last--
	}
	sign := uint16(numericPos)
	if d.Negative {
		sign = numericNeg
	}
	dst = header(last-first+1, weight-first, sign, dscale)
	for g := first; g <= last; g++ {
		dst = binary.BigEndian.AppendUint16(dst, group(g))
	}
	return dst
}

// numericTruncCtx truncates, as numeric_recv does to digits beyond dscale.
var numericTruncCtx = func() apd.Context {
	c := numericCtx
	c.Rounding = apd.RoundDown
	return c
}()

// decodeNumericBinary is numeric_recv.
func decodeNumericBinary(src []byte) (*apd.Decimal, error) {
	if len(src) < 8 {
		return nil, errBinaryLength("numeric")
	}
	ndigits := int(binary.BigEndian.Uint16(src))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	dscale := int(binary.BigEndian.Uint16(src[6:]))
	if ndigits > 0x7fff || len(src) != 8+2*ndigits {
		return nil, errBinaryLength("numeric")
	}
	switch sign {
	case numericNaN:
		return &apd.Decimal{Form: apd.NaN}, nil
	case numericPInf:
		return &apd.Decimal{Form: apd.Infinite}, nil
	case numericNInf:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	case numericPos, numericNeg:
	default:
		return nil, errBinary("invalid sign in external \"numeric\" value")
	}
	if dscale > numericMaxDscale {
		return nil, errBinary("invalid scale in external \"numeric\" value")
	}
	digits := make([]byte, 0, ndigits*numericDigits+1)
	for i := 0; i < ndigits; i++ {
		g := binary.BigEndian.Uint16(src[8+2*i:])
		if g >= 10000 {
			return nil, errBinary("invalid digit in external \"numeric\" value")
		}
		digits = append(digits, byte('0'+g/1000), byte('0'+g/100%10), byte('0'+g/10%10), byte('0'+g%10))
	}
	if len(digits) == 0 {
		digits = append(digits, '0')
	}
	d := new(apd.Decimal)
	if _, ok := d.Coeff.SetString(string(digits), 10); !ok {
		return nil, errBinary("invalid digit in external \"numeric\" value")
	}
	d.Exponent = int32((weight - ndigits + 1) * numericDigits)
	d.Negative = sign == numericNeg
	if _, err := numericTruncCtx.Quantize(d, d, int32(-dscale)); err != nil {
		return nil, errNumericOverflow()
	}
	if err := normalizeNumeric(d); err != nil {
		return nil, err
	}
	return d, nil
}

func errBinaryLength(typ string) error {
	return errBinary("incorrect binary data format").WithDetail("Malformed binary value for type %s.", typ)
}

// DecodeBinary parses PostgreSQL's binary receive format of type t (see
// EncodeBinary), applying t's modifier as the recv functions do. A value of
// the wrong length is an error with SQLSTATE 22P03. The result never
// aliases src.
func DecodeBinary(t T, src []byte) (Datum, error) {
	if n := t.Size(); n > 0 && t.Family != Name && len(src) != int(n) {
		return Null, errBinaryLength(t.String())
	}
	be := binary.BigEndian
	switch t.Family {
	case Bool:
		return NewBool(src[0] != 0), nil
	case Int2:
		return NewInt(int64(int16(be.Uint16(src)))), nil
	case Int4:
		return NewInt(int64(int32(be.Uint32(src)))), nil
	case Oid:
		return NewInt(int64(be.Uint32(src))), nil
	case Int8:
		return NewInt(int64(be.Uint64(src))), nil
	case Float4:
		return NewFloat(float64(math.Float32frombits(be.Uint32(src)))), nil
	case Float8:
		return NewFloat(math.Float64frombits(be.Uint64(src))), nil
	case Numeric:
		d, err := decodeNumericBinary(src)
		if err == nil {
			d, err = applyNumericMod(d, t.Mod)
		}
		if err != nil {
			return Null, err
		}
		return NewDecimal(d), nil
	case Bytea:
		return NewBytes(src), nil
	case Date:
		days := int64(int32(be.Uint32(src)))
		switch days {
		case math.MaxInt32:
			return NewDate(DateTimeInfinity), nil
		case math.MinInt32:
			return NewDate(DateTimeNegInfinity), nil
		}
		return MakeDate(days + pgEpochDays)
	case Time:
		micros := int64(be.Uint64(src))
		if micros < 0 || micros > usecsPerDay {
			return Null, pgerror.New(pgerror.CodeDatetimeFieldOverflow, "time out of range")
		}
		return NewTime(roundMicros(micros, t.Mod)), nil
	case Timestamp, TimestampTZ:
		micros := int64(be.Uint64(src))
		if err := checkTimestamp(micros); err != nil {
			return Null, err
		}
		micros = roundMicros(micros, t.Mod)
		if t.Family == Timestamp {
			return NewTimestamp(micros), nil
		}
		return NewTimestampTZ(micros), nil
	case Interval:
		return NewInterval(AdjustInterval(IntervalValue{
			Micros: int64(be.Uint64(src)),
			Days:   int32(be.Uint32(src[8:])),
			Months: int32(be.Uint32(src[12:])),
		}, t.Mod)), nil
	case Jsonb:
		if len(src) == 0 || src[0] != 1 {
			return Null, errBinary("unsupported jsonb version number")
		}
		return ParseText(t, string(src[1:]))
	case Array:
		return decodeArrayBinary(t.ElemType(), src)
	case Record:
		return Null, errRecordInput()
	}
	return ParseText(t, string(src)) // the string types' binary form is their text
}

// AppendTuple appends row laid out as a DataRow message's body and a
// binary COPY tuple are: the number of values (int16), then each value's
// length (int32, -1 for NULL) and its bytes, which value appends for the
// non-NULL value i.
func AppendTuple(dst []byte, row []Datum, value func(dst []byte, i int) ([]byte, error)) ([]byte, error) {
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(row)))
	for i, d := range row {
		var err error
		if dst, err = appendSized(dst, d.IsNull(), func(dst []byte) ([]byte, error) { return value(dst, i) }); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// appendSized appends a value as the binary formats nest one: its length
// (int32, -1 for NULL) then its bytes, which encode appends.
func appendSized(dst []byte, null bool, encode func(dst []byte) ([]byte, error)) ([]byte, error) {
	if null {
		return binary.BigEndian.AppendUint32(dst, ^uint32(0)), nil
	}
	at := len(dst)
	dst, err := encode(append(dst, 0, 0, 0, 0))
	if err != nil {
		return dst, err
	}
	binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst, nil
}

// appendValueBinary appends v, of type t, sized (see appendSized).
func appendValueBinary(dst []byte, t T, v Datum) ([]byte, error) {
	return appendSized(dst, v.IsNull(), func(dst []byte) ([]byte, error) { return EncodeBinary(dst, t, v) })
}
