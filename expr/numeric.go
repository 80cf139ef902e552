package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// exact is the context for numeric arithmetic that must not round (add,
// subtract, multiply, rounding to a scale): its precision holds every
// digit numeric can have.
var exact = &apd.Context{
	Precision:   numericMaxIntDigits + numericMaxDscale,
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
	if isSpecial(a, b) {
		return addSpecial(a, b, false), nil
	}
	r := new(apd.Decimal)
	_, err := exact.Add(r, a, b)
	return r, numericErr(err)
}

// NumericSub returns a-b exactly.
func NumericSub(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a, b) {
		return addSpecial(a, b, true), nil
	}
	r := new(apd.Decimal)
	_, err := exact.Sub(r, a, b)
	return r, numericErr(err)
}

// NumericMul returns a*b exactly (scale = sum of scales, as in PostgreSQL).
func NumericMul(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a, b) {
		return mulSpecial(a, b), nil
	}
	r := new(apd.Decimal)
	_, err := exact.Mul(r, a, b)
	return r, numericErr(err)
}

// NumericDiv returns a/b rounded to PostgreSQL's result scale
// (select_div_scale: at least 16 significant digits, at least the inputs'
// scales).
func NumericDiv(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a, b) {
		return divSpecial(a, b)
	}
	if b.IsZero() {
		return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	}
	return NumericDivScale(a, b, divScale(a, b))
}

// NumericDivScale returns a/b rounded half away from zero to scale digits.
func NumericDivScale(a, b *apd.Decimal, scale int32) (*apd.Decimal, error) {
	if isSpecial(a, b) {
		return divSpecial(a, b)
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
	if isSpecial(a, b) {
		return modSpecial(a, b)
	}
	if b.IsZero() {
		return nil, pgerror.New(pgerror.CodeDivisionByZero, "division by zero")
	}
	r := new(apd.Decimal)
	_, err := exact.Rem(r, a, b)
	return r, numericErr(err)
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

func isInteger(d *apd.Decimal) bool {
	var frac, integ apd.Decimal
	d.Modf(&integ, &frac)
	return frac.IsZero()
}
