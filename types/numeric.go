package types

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// PostgreSQL's numeric limits.
const (
	numericMaxPrecision = 1000      // largest typmod precision and input exponent
	numericMaxDscale    = 16383     // digits after the decimal point
	numericMaxIntDigits = 131072    // digits before the decimal point
	numericMaxExponent  = 1<<30 - 1 // input exponents are below this in magnitude
)

// numericCtx is the context of every numeric operation here: wide enough
// never to round implicitly, and rounding half away from zero as PostgreSQL
// does when asked to.
var numericCtx = apd.Context{
	Precision:   numericMaxIntDigits + numericMaxDscale,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

// NumericMod returns the typmod of numeric(precision, scale).
func NumericMod(precision, scale int) int32 { return int32(precision)<<16 | int32(scale) }

// parseNumeric is numeric_in without the typmod: PostgreSQL's syntax (an
// optional sign, digits with an optional point, an optional exponent, or
// NaN/Infinity), surrounding spaces allowed.
func parseNumeric(s string) (*apd.Decimal, error) {
	t := trimSpace(s)
	switch strings.ToLower(t) {
	case "nan":
		return &apd.Decimal{Form: apd.NaN}, nil
	case "infinity", "+infinity", "inf", "+inf":
		return &apd.Decimal{Form: apd.Infinite}, nil
	case "-infinity", "-inf":
		return &apd.Decimal{Form: apd.Infinite, Negative: true}, nil
	}
	switch ok, hugeExp := numericSyntax(t); {
	case !ok:
		return nil, errSyntax("numeric", s)
	case hugeExp:
		return nil, errNumericOverflow()
	}
	d, _, err := apd.NewFromString(t)
	if err != nil {
		// The syntax is valid, so the exponent is beyond apd's range: only
		// a zero with a positive exponent is in numeric's.
		e := strings.IndexAny(t, "eE")
		if m, _, err := apd.NewFromString(t[:e]); err == nil && m.IsZero() && t[e+1] != '-' {
			return new(apd.Decimal), nil
		}
		return nil, errNumericOverflow()
	}
	if err := normalizeNumeric(d); err != nil {
		return nil, err
	}
	return d, nil
}

// numericSyntax reports whether t is [+-]digits[.digits][e[+-]digits]
// with at least one mantissa digit, and whether its exponent is beyond
// what numeric_in accepts (±INT_MAX/2: an overflow, not a syntax error).
func numericSyntax(t string) (ok, hugeExp bool) {
	i := 0
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(t) && isDigit(t[i]); i++ {
		digits++
	}
	if i < len(t) && t[i] == '.' {
		for i++; i < len(t) && isDigit(t[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return false, false
	}
	if i == len(t) {
		return true, false
	}
	if t[i] != 'e' && t[i] != 'E' {
		return false, false
	}
	i++
	if i < len(t) && (t[i] == '+' || t[i] == '-') {
		i++
	}
	exp := 0
	start := i
	for ; i < len(t) && isDigit(t[i]); i++ {
		if exp < numericMaxExponent {
			exp = exp*10 + int(t[i]-'0')
		}
	}
	return i > start && i == len(t), exp >= numericMaxExponent
}

// normalizeNumeric brings a finite decimal to PostgreSQL's representation: no
// positive exponent (PostgreSQL's display scale is never negative), no
// negative zero, and within numeric's range.
func normalizeNumeric(d *apd.Decimal) error {
	if d.Form != apd.Finite {
		return nil
	}
	if d.IsZero() && d.Exponent > 0 {
		d.Exponent = 0
	}
	if d.NumDigits()+int64(d.Exponent) > numericMaxIntDigits {
		return errNumericOverflow()
	}
	if d.Exponent > 0 {
		if _, err := numericCtx.Quantize(d, d, 0); err != nil {
			return errNumericOverflow()
		}
	}
	if d.IsZero() {
		d.Negative = false
	}
	if -d.Exponent > numericMaxDscale {
		return errNumericOverflow()
	}
	return nil
}

func errNumericOverflow() error {
	return pgerror.New(pgerror.CodeNumericValueOutOfRange, "value overflows numeric format")
}

// applyNumericMod rounds d to the scale of typmod mod (half away from zero)
// and checks it fits the precision, as PostgreSQL's apply_typmod does.
func applyNumericMod(d *apd.Decimal, mod int32) (*apd.Decimal, error) {
	if mod < 0 || d.Form == apd.NaN {
		return d, nil
	}
	p, s := int64(mod>>16), int64(mod&0xffff)
	if d.Form == apd.Infinite {
		return nil, pgerror.New(pgerror.CodeNumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d cannot hold an infinite value.", p, s)
	}
	r := d
	if int64(d.Exponent) != -s {
		r = new(apd.Decimal)
		if _, err := numericCtx.Quantize(r, d, int32(-s)); err != nil {
			return nil, errNumericOverflow()
		}
		if r.IsZero() {
			r.Negative = false
		}
	}
	if !r.IsZero() && r.NumDigits()-s > p-s {
		maxDigits := "1"
		if p != s {
			maxDigits = "10^" + strconv.FormatInt(p-s, 10)
		}
		return nil, pgerror.New(pgerror.CodeNumericValueOutOfRange, "numeric field overflow").
			WithDetail("A field with precision %d, scale %d must round to an absolute value less than %s.", p, s, maxDigits)
	}
	return r, nil
}

// appendNumeric appends numeric_out's text: plain notation with the stored
// scale, NaN, Infinity or -Infinity.
func appendNumeric(dst []byte, d *apd.Decimal) []byte {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(dst, "NaN"...)
	case apd.Infinite:
		if d.Negative {
			dst = append(dst, '-')
		}
		return append(dst, "Infinity"...)
	}
	if d.Negative && d.IsZero() {
		var abs apd.Decimal
		abs.Abs(d)
		return abs.Append(dst, 'f')
	}
	return d.Append(dst, 'f')
}

// numericFromFloat converts a float as PostgreSQL does: through its text with
// digits significant digits (15 for float8, 6 for float4).
func numericFromFloat(f float64, digits int) *apd.Decimal {
	switch {
	case f != f:
		return &apd.Decimal{Form: apd.NaN}
	case f > maxFloat64:
		return &apd.Decimal{Form: apd.Infinite}
	case f < -maxFloat64:
		return &apd.Decimal{Form: apd.Infinite, Negative: true}
	}
	d, _, err := apd.NewFromString(strconv.FormatFloat(f, 'g', digits, 64))
	if err != nil {
		panic("types: unparsable float text: " + err.Error())
	}
	// A float's 15 digits are far inside numeric's range.
	_ = normalizeNumeric(d)
	return d
}

// numericToFloat converts a numeric to a float of the given bit size (32 or
// 64) through its text, as PostgreSQL does.
func numericToFloat(d *apd.Decimal, bits int) (float64, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return nan, nil
	case apd.Infinite:
		if d.Negative {
			return negInf, nil
		}
		return posInf, nil
	}
	text := string(appendNumeric(nil, d))
	f, err := strconv.ParseFloat(text, bits)
	if err != nil || (f == 0 && !d.IsZero()) {
		return 0, errFloatRange(text, floatTypeName(bits))
	}
	return f, nil
}

// numericToInt rounds a numeric half away from zero to an integer of the
// named type, with PostgreSQL's errors for NaN, infinity and overflow.
func numericToInt(d *apd.Decimal, typ string, lo, hi int64) (int64, error) {
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot convert NaN to %s", typ)
	case apd.Infinite:
		return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot convert infinity to %s", typ)
	}
	if d.NumDigits()+int64(d.Exponent) > 20 {
		return 0, errOutOfRange(typ)
	}
	var r apd.Decimal
	if _, err := numericCtx.Quantize(&r, d, 0); err != nil {
		return 0, errOutOfRange(typ)
	}
	i, err := r.Int64()
	if err != nil || i < lo || i > hi {
		return 0, errOutOfRange(typ)
	}
	return i, nil
}

// cmpNumeric orders numerics as PostgreSQL does: NaN equals NaN and sorts
// above everything, including Infinity.
func cmpNumeric(a, b *apd.Decimal) int {
	an, bn := a.Form == apd.NaN, b.Form == apd.NaN
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

// decimalFromInt returns the numeric value of an integer.
func decimalFromInt(i int64) *apd.Decimal { return apd.New(i, 0) }
