package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
)

// NumericPow returns a^b as numeric_power does: an integer exponent (that
// fits int32) gives at least 16 fractional digits and no fewer than a's;
// any other exponent gives 16 significant digits and no fewer fractional
// digits than either operand.
func NumericPow(a, b *apd.Decimal) (*apd.Decimal, error) {
	if isSpecial(a, b) {
		return powSpecial(a, b)
	}
	if err := checkPowArgs(a, b); err != nil {
		return nil, err
	}
	if n, err := b.Int64(); err == nil && n >= math.MinInt32 && n <= math.MaxInt32 {
		return powInt(a, n)
	}
	if a.IsZero() {
		return apd.New(0, -numericMinSigDigits), nil
	}
	// The decimal weight of the result, from ln(a) (a negative a has an
	// integer exponent too large for the int32 path).
	bf, _ := b.Float64()
	val := bf * lnAbs(a)
	if math.Abs(val) > numericMaxResultScale*3.01 {
		if val > 0 {
			return nil, errNumericOverflow
		}
		return apd.New(0, -numericMaxDisplayScale), nil
	}
	val *= math.Log10E
	rscale := max(numericMinSigDigits-int64(val), int64(Scale(a)), int64(Scale(b)))
	return numericCompute(int64(max(val, 0))+1, rscale, func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
		return ctx.Pow(r, a, b)
	})
}

// powInt is power_var_int: a^n for an int32 n, rounded to at least 16
// fractional digits and no fewer than a's.
func powInt(a *apd.Decimal, n int64) (*apd.Decimal, error) {
	rscale := min(max(numericMinSigDigits, int64(Scale(a))), numericMaxDisplayScale)
	switch {
	case n == 0:
		return NumericRound(apd.New(1, 0), int32(rscale))
	case a.IsZero():
		return apd.New(0, -int32(rscale)), nil
	}
	// The decimal weight of |a|^n: overflow and underflow come early.
	f := float64(n) * lnAbs(a) * math.Log10E
	if f > numericMaxIntDigits {
		return nil, errNumericOverflow
	}
	if f+1 < float64(-rscale) {
		return apd.New(0, -int32(rscale)), nil
	}
	if n > 0 {
		return numericCompute(int64(max(f, 0))+1, rscale, func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
			return ctx.Pow(r, a, apd.New(n, 0))
		})
	}
	// 1/a^|n|, with a^|n| precise to the digits the quotient needs.
	ctx := *exact
	ctx.Precision = uint32(max(int64(f)+rscale, 0) + 16)
	p := new(apd.Decimal)
	if _, err := ctx.Pow(p, a, apd.New(-n, 0)); err != nil {
		return nil, numericErr(err)
	}
	return NumericDivScale(apd.New(1, 0), p, int32(rscale))
}

var errNumericOverflow = pgerror.New(pgerror.CodeNumericValueOutOfRange, "value overflows numeric format")
