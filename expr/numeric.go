package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// exact is the context for numeric arithmetic that must not round (add,
// subtract, multiply): its precision is far beyond PostgreSQL's 131072 digit
// limit for practical inputs.
var exact = &apd.Context{
	Precision:   4000,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Traps:       apd.DefaultTraps,
	Rounding:    apd.RoundHalfUp,
}

func numericErr(err error) error {
	if err == nil {
		return nil
	}
	return pgerror.New(pgerror.CodeNumericValueOutOfRange, "value overflows numeric format")
}

// NumericAdd returns a+b exactly.
func NumericAdd(a, b *apd.Decimal) (*apd.Decimal, error) {
	if special(a) || special(b) {
		return addSpecial(a, b, false), nil
	}
	r := new(apd.Decimal)
	_, err := exact.Add(r, a, b)
	return r, numericErr(err)
}

// NumericSub returns a-b exactly.
func NumericSub(a, b *apd.Decimal) (*apd.Decimal, error) {
	if special(a) || special(b) {
		return addSpecial(a, b, true), nil
	}
	r := new(apd.Decimal)
	_, err := exact.Sub(r, a, b)
	return r, numericErr(err)
}

// NumericMul returns a*b exactly (scale = sum of scales, as in PostgreSQL).
func NumericMul(a, b *apd.Decimal) (*apd.Decimal, error) {
	if special(a) || special(b) {
		// numeric_mul: NaN, or an infinity times zero, is NaN; else an
		// infinity of the product's sign.
		if isNaN(a) || isNaN(b) || a.IsZero() || b.IsZero() {
			return nanDecimal(), nil
		}
		return infinity(a.Negative != b.Negative), nil
	}
	r := new(apd.Decimal)
	_, err := exact.Mul(r, a, b)
	return r, numericErr(err)
}

// NumericDiv returns a/b rounded to PostgreSQL's result scale
// (select_div_scale: at least 16 significant digits, at least the inputs'
// scales).
func NumericDiv(a, b *apd.Decimal) (*apd.Decimal, error) {
	if special(a) || special(b) {
		return divSpecial(a, b, new(apd.Decimal))
	}
	if b.IsZero() {
		return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	}
	return NumericDivScale(a, b, divScale(a, b))
}

// NumericDivScale returns a/b rounded half away from zero to scale digits.
func NumericDivScale(a, b *apd.Decimal, scale int32) (*apd.Decimal, error) {
	if special(a) || special(b) {
		return divSpecial(a, b, new(apd.Decimal))
	}
	if b.IsZero() {
		return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	}
	intDigits := adjusted(a) - adjusted(b) + 2
	if intDigits < 1 {
		intDigits = 1
	}
	ctx := *exact
	ctx.Precision = uint32(intDigits + int64(scale) + 4)
	ctx.Rounding = apd.RoundDown
	q := new(apd.Decimal)
	if _, err := ctx.Quo(q, a, b); err != nil {
		return nil, numericErr(err)
	}
	return NumericRound(q, scale)
}

// NumericRound rounds d half away from zero to scale fractional digits.
func NumericRound(d *apd.Decimal, scale int32) (*apd.Decimal, error) {
	r := new(apd.Decimal)
	_, err := exact.Quantize(r, d, -scale)
	return r, numericErr(err)
}

// NumericMod returns a mod b with the sign of a.
func NumericMod(a, b *apd.Decimal) (*apd.Decimal, error) {
	if special(a) || special(b) {
		// numeric_mod: NaN first; an infinity mod a nonzero number is
		// NaN; a finite number mod an infinity is itself.
		switch {
		case isNaN(a) || isNaN(b):
			return nanDecimal(), nil
		case a.Form == apd.Infinite && b.IsZero():
			return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
		case a.Form == apd.Infinite:
			return nanDecimal(), nil
		}
		return new(apd.Decimal).Set(a), nil
	}
	if b.IsZero() {
		return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	}
	r := new(apd.Decimal)
	_, err := exact.Rem(r, a, b)
	return r, numericErr(err)
}

func isNaN(d *apd.Decimal) bool { return d.Form == apd.NaN || d.Form == apd.NaNSignaling }

// special reports whether d is NaN or an infinity.
func special(d *apd.Decimal) bool { return d.Form != apd.Finite }

func nanDecimal() *apd.Decimal { return &apd.Decimal{Form: apd.NaN} }

func infinity(negative bool) *apd.Decimal {
	return &apd.Decimal{Form: apd.Infinite, Negative: negative}
}

// addSpecial is a+b (a-b when sub) with a NaN or infinite operand, as
// numeric_add and numeric_sub: NaN, or infinities of opposite signs
// added, give NaN; else the infinity.
func addSpecial(a, b *apd.Decimal, sub bool) *apd.Decimal {
	if isNaN(a) || isNaN(b) {
		return nanDecimal()
	}
	bNeg := b.Negative != sub
	switch {
	case a.Form == apd.Infinite && b.Form == apd.Infinite:
		if a.Negative != bNeg {
			return nanDecimal()
		}
		return infinity(a.Negative)
	case a.Form == apd.Infinite:
		return infinity(a.Negative)
	}
	return infinity(bNeg)
}

// divSpecial is a/b with a NaN or infinite operand, as numeric_div and
// numeric_div_trunc: NaN first; an infinity divided by an infinity is
// NaN, by zero an error, by another number an infinity of the quotient's
// sign; a finite number divided by an infinity is zero (finiteZero).
func divSpecial(a, b, finiteZero *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case isNaN(a) || isNaN(b):
		return nanDecimal(), nil
	case a.Form == apd.Infinite && b.Form == apd.Infinite:
		return nanDecimal(), nil
	case a.Form == apd.Infinite && b.IsZero():
		return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	case a.Form == apd.Infinite:
		return infinity(a.Negative != b.Negative), nil
	}
	return finiteZero, nil
}

// Scale returns the number of fractional digits d displays.
func Scale(d *apd.Decimal) int32 {
	if d.Exponent >= 0 {
		return 0
	}
	return -d.Exponent
}

// adjusted returns the power of ten of d's most significant digit.
func adjusted(d *apd.Decimal) int64 {
	if d.IsZero() {
		return 0
	}
	return int64(d.Exponent) + d.NumDigits() - 1
}

// weight returns PostgreSQL's base-10000 weight and first base-10000 digit of d.
func weight(d *apd.Decimal) (w int64, first int64) {
	if d.IsZero() {
		return 0, 0
	}
	a := adjusted(d)
	w = a / 4
	if a < 0 && a%4 != 0 {
		w--
	}
	digits := d.Coeff.String()
	n := int64(len(digits))
	for p := 4*w + 3; p >= 4*w; p-- {
		i := (n - 1) - (p - int64(d.Exponent))
		first *= 10
		if i >= 0 && i < n {
			first += int64(digits[i] - '0')
		}
	}
	return w, first
}

func divScale(a, b *apd.Decimal) int32 {
	w1, f1 := weight(a)
	w2, f2 := weight(b)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := 16 - qweight*4
	rscale = max(rscale, int64(Scale(a)), int64(Scale(b)), 0)
	return int32(min(rscale, 1000))
}

// DecimalFromInt returns i as a numeric.
func DecimalFromInt(i int64) *apd.Decimal { return apd.New(i, 0) }

type apdDecimal = apd.Decimal

// NumericPow returns a^b. Integer exponents are exact; others are computed
// to at least 16 significant digits.
func NumericPow(a, b *apd.Decimal) (*apd.Decimal, error) {
	if a.IsZero() && b.Negative {
		return nil, pgerror.New("2201F", "zero raised to a negative power is undefined")
	}
	if a.Negative && !isInteger(b) {
		return nil, pgerror.New("2201F", "a negative number raised to a non-integer power yields a complex result")
	}
	ctx := *exact
	ctx.Precision = 40
	r := new(apd.Decimal)
	if _, err := ctx.Pow(r, a, b); err != nil {
		return nil, numericErr(err)
	}
	if isInteger(b) && !b.Negative {
		return NumericRound(r, Scale(a)*int32(min(b.Coeff.Int64(), 1000)))
	}
	return NumericRound(r, max(16, Scale(a), Scale(b)))
}

func isInteger(d *apd.Decimal) bool {
	var frac, integ apd.Decimal
	d.Modf(&integ, &frac)
	return frac.IsZero()
}
