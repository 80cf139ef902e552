package expr

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// SQLSTATEs of the math functions' argument errors.
const (
	codeInvalidArgumentForLog         = "2201E"
	codeInvalidArgumentForPower       = "2201F"
	codeInvalidArgumentForWidthBucket = "2201G"
)

// PostgreSQL's numeric result-scale limits (NUMERIC_MIN_SIG_DIGITS,
// NUMERIC_MAX_DISPLAY_SCALE, NUMERIC_MAX_RESULT_SCALE).
const (
	numericMinSigDigits    = 16
	numericMaxDisplayScale = 1000
	numericMaxResultScale  = 2000
	numericMaxIntDigits    = 131072 // digits before the decimal point
	numericMaxDscale       = 16383  // digits after it
)

// The float overloads come first: float8 is what PostgreSQL prefers for an
// argument of unknown type when both float8 and numeric would do.
func init() {
	RegisterBuiltin("abs",
		floatFn(func(x float64) (float64, error) { return math.Abs(x), nil }),
		sig(types.TFloat4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.NewFloat(math.Abs(a[0].Float())), nil
		}, types.Float4),
		numericFn(func(x *apd.Decimal) (*apd.Decimal, error) { return new(apd.Decimal).Abs(x), nil }),
		absInt(types.TInt2), absInt(types.TInt4), absInt(types.TInt8))
	RegisterBuiltin("sign", floatFn(signFloat), numericFn(signNumeric))
	// Float round() rounds half to even like rint(); numeric rounds half
	// away from zero.
	for _, r := range []struct {
		name   string
		float  func(float64) float64
		mode   apd.Rounder
		scaled bool // also name(numeric, scale)
	}{
		{"ceil", math.Ceil, apd.RoundCeiling, false},
		{"ceiling", math.Ceil, apd.RoundCeiling, false},
		{"floor", math.Floor, apd.RoundFloor, false},
		{"round", math.RoundToEven, apd.RoundHalfUp, true},
		{"trunc", math.Trunc, apd.RoundDown, true},
	} {
		RegisterBuiltin(r.name,
			floatFn(func(x float64) (float64, error) { return r.float(x), nil }),
			numericFn(func(x *apd.Decimal) (*apd.Decimal, error) { return numericQuantize(x, 0, r.mode) }))
		if r.scaled {
			RegisterBuiltin(r.name, sig(types.TNumeric, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return numericDatum(numericQuantize(a[0].Decimal(), a[1].Int(), r.mode))
			}, types.Numeric, types.Int4))
		}
	}
	RegisterBuiltin("sqrt", floatFn(sqrtFloat), numericFn(sqrtNumeric))
	RegisterBuiltin("cbrt", floatFn(func(x float64) (float64, error) { return math.Cbrt(x), nil }))
	for _, name := range []string{"power", "pow"} {
		RegisterBuiltin(name,
			binaryOverload(types.TFloat8, types.Float8, arithFn("^", types.TFloat8)),
			binaryOverload(types.TNumeric, types.Numeric, arithFn("^", types.TNumeric)))
	}
	RegisterBuiltin("exp", floatFn(expFloat), numericFn(expNumeric))
	RegisterBuiltin("ln", floatFn(logFloat(math.Log)), numericFn(lnNumeric))
	for _, name := range []string{"log", "log10"} {
		RegisterBuiltin(name, floatFn(logFloat(math.Log10)), numericFn(func(x *apd.Decimal) (*apd.Decimal, error) {
			return logNumeric(apd.New(10, 0), x)
		}))
	}
	RegisterBuiltin("log", sig(types.TNumeric, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return numericDatum(logNumeric(a[0].Decimal(), a[1].Decimal()))
	}, types.Numeric, types.Numeric))
	RegisterBuiltin("mod",
		binaryOverload(types.TInt2, types.Int2, arithFn("%", types.TInt2)),
		binaryOverload(types.TInt4, types.Int4, arithFn("%", types.TInt4)),
		binaryOverload(types.TInt8, types.Int8, arithFn("%", types.TInt8)),
		binaryOverload(types.TNumeric, types.Numeric, arithFn("%", types.TNumeric)))
	RegisterBuiltin("div", binaryOverload(types.TNumeric, types.Numeric, divNumeric))
	RegisterBuiltin("degrees", floatFn(func(x float64) (float64, error) { return checkFloat(x/(math.Pi/180), x) }))
	RegisterBuiltin("radians", floatFn(func(x float64) (float64, error) { return checkFloat(x*(math.Pi/180), x) }))
	RegisterBuiltin("pi", sig(types.TFloat8, func(*Ctx, []types.Datum) (types.Datum, error) {
		return types.NewFloat(math.Pi), nil
	}))
	RegisterBuiltin("random", volatile(sig(types.TFloat8, func(*Ctx, []types.Datum) (types.Datum, error) {
		return types.NewFloat(rand.Float64()), nil
	})))
	RegisterBuiltin("sin", floatFn(periodic(math.Sin)))
	RegisterBuiltin("cos", floatFn(periodic(math.Cos)))
	RegisterBuiltin("tan", floatFn(periodic(math.Tan)))
	RegisterBuiltin("cot", floatFn(periodic(func(x float64) float64 { return 1 / math.Tan(x) })))
	// The trigonometric functions in degrees give exact values at the
	// angles where PostgreSQL's do (sind(30) = 0.5).
	RegisterBuiltin("sind", floatFn(periodic(func(x float64) float64 { return sinDegrees(x) })))
	RegisterBuiltin("cosd", floatFn(periodic(func(x float64) float64 { return sinDegrees(x + 90) })))
	RegisterBuiltin("tand", floatFn(periodic(func(x float64) float64 { return tanDegrees(x) })))
	RegisterBuiltin("cotd", floatFn(periodic(func(x float64) float64 { return 1 / tanDegrees(x) })))
	for name, f := range map[string]func(float64) float64{"asind": math.Asin, "acosd": math.Acos} {
		RegisterBuiltin(name, floatFn(inverseTrig(func(x float64) float64 { return exactDegrees(f(x) * 180 / math.Pi) })))
	}
	RegisterBuiltin("atand", floatFn(func(x float64) (float64, error) { return exactDegrees(math.Atan(x) * 180 / math.Pi), nil }))
	RegisterBuiltin("asin", floatFn(inverseTrig(math.Asin)))
	RegisterBuiltin("acos", floatFn(inverseTrig(math.Acos)))
	RegisterBuiltin("atan", floatFn(func(x float64) (float64, error) { return math.Atan(x), nil }))
	RegisterBuiltin("atan2", binaryOverload(types.TFloat8, types.Float8, func(_ *Ctx, y, x types.Datum) (types.Datum, error) {
		return types.NewFloat(math.Atan2(y.Float(), x.Float())), nil
	}))
	for _, lcm := range []bool{false, true} {
		name := "gcd"
		if lcm {
			name = "lcm"
		}
		RegisterBuiltin(name, gcdInt(types.TInt4, lcm), gcdInt(types.TInt8, lcm),
			binaryOverload(types.TNumeric, types.Numeric, func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
				return numericDatum(gcdNumeric(a.Decimal(), b.Decimal(), lcm))
			}))
	}
	RegisterBuiltin("width_bucket", sig(types.TInt4, widthBucket, types.Float8, types.Float8, types.Float8, types.Int4))
	RegisterBuiltin("scale", sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].Decimal().Form != apd.Finite {
			return types.Null, nil
		}
		return types.NewInt(int64(Scale(a[0].Decimal()))), nil
	}, types.Numeric))
}

func absInt(t types.T) Overload {
	return sig(t, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		v := a[0].Int()
		if v < 0 {
			v = -v
		}
		if v < 0 || CheckIntRange(v, t) != nil {
			return types.Null, IntRangeError(t)
		}
		return types.NewInt(v), nil
	}, t.Family)
}

func signFloat(x float64) (float64, error) {
	switch {
	case x > 0:
		return 1, nil
	case x < 0:
		return -1, nil
	}
	return 0, nil
}

func signNumeric(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Form == apd.NaN {
		return x, nil
	}
	return apd.New(int64(x.Sign()), 0), nil
}

// numericQuantize rounds x to scale fractional digits in the given mode. A
// negative scale rounds to tens, hundreds and so on.
func numericQuantize(x *apd.Decimal, scale int64, mode apd.Rounder) (*apd.Decimal, error) {
	if x.Form != apd.Finite {
		return x, nil
	}
	scale = min(max(scale, -numericMaxResultScale), numericMaxResultScale)
	ctx := *exact
	ctx.Rounding = mode
	away := mode == apd.RoundCeiling && !x.Negative || mode == apd.RoundFloor && x.Negative
	if away {
		// apd's Quantize turns a value smaller than the unit into zero
		// whatever the rounding (ceil(0.001) would be 0): truncate, and
		// step one unit away from zero if that dropped anything.
		ctx.Rounding = apd.RoundDown
	}
	r := new(apd.Decimal)
	if _, err := ctx.Quantize(r, x, int32(-scale)); err != nil {
		return nil, numericErr(err)
	}
	if away && r.Cmp(x) != 0 {
		unit := apd.New(1, int32(-scale))
		unit.Negative = x.Negative
		if _, err := ctx.Add(r, r, unit); err != nil {
			return nil, numericErr(err)
		}
	}
	return r, nil
}

// ErrFloatOverflow is PostgreSQL's error for a float result that turns
// infinite from finite operands.
var ErrFloatOverflow = pgerror.New(pgerror.CodeNumericValueOutOfRange, "value out of range: overflow")

var (
	errFloatUnderflow = pgerror.New(pgerror.CodeNumericValueOutOfRange, "value out of range: underflow")
	errInputRange     = pgerror.New(pgerror.CodeNumericValueOutOfRange, "input is out of range")
	errSqrtNegative   = pgerror.New(codeInvalidArgumentForPower, "cannot take square root of a negative number")
	errLogZero        = pgerror.New(codeInvalidArgumentForLog, "cannot take logarithm of zero")
	errLogNegative    = pgerror.New(codeInvalidArgumentForLog, "cannot take logarithm of a negative number")
)

// checkFloat returns r, or PostgreSQL's overflow error when a finite input
// produced an infinite result.
func checkFloat(r, in float64) (float64, error) {
	if math.IsInf(r, 0) && !math.IsInf(in, 0) {
		return 0, ErrFloatOverflow
	}
	return r, nil
}

func sqrtFloat(x float64) (float64, error) {
	if x < 0 {
		return 0, errSqrtNegative
	}
	return math.Sqrt(x), nil
}

func expFloat(x float64) (float64, error) {
	r := math.Exp(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return r, nil
	case math.IsInf(r, 0):
		return 0, ErrFloatOverflow
	case r == 0:
		return 0, errFloatUnderflow
	}
	return r, nil
}

// logFloat is ln or log10 with PostgreSQL's errors for zero and negative
// arguments.
func logFloat(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		switch {
		case x == 0:
			return 0, errLogZero
		case x < 0:
			return 0, errLogNegative
		}
		return f(x), nil
	}
}

// periodic is a trigonometric function, undefined for infinite input.
func periodic(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if math.IsInf(x, 0) {
			return 0, errInputRange
		}
		return f(x), nil
	}
}

// inverseTrig is asin or acos, defined on [-1, 1].
func inverseTrig(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if x < -1 || x > 1 {
			return 0, errInputRange
		}
		return f(x), nil
	}
}

// numericCompute evaluates f to enough significant digits for intDigits
// integer digits and rscale fractional ones (rscale clamped to PostgreSQL's
// display limits), then rounds to rscale.
func numericCompute(intDigits, rscale int64, f func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error)) (*apd.Decimal, error) {
	rscale = min(max(rscale, 0), numericMaxDisplayScale)
	ctx := *exact
	ctx.Precision = uint32(max(intDigits, 1) + rscale + 8)
	r := new(apd.Decimal)
	if _, err := f(&ctx, r); err != nil {
		return nil, numericErr(err)
	}
	return NumericRound(r, int32(rscale))
}

// sqrtNumeric computes the square root to PostgreSQL's scale: at least 16
// significant digits and no fewer fractional digits than the input.
func sqrtNumeric(x *apd.Decimal) (*apd.Decimal, error) {
	if x.Sign() < 0 {
		return nil, errSqrtNegative
	}
	if x.Form != apd.Finite {
		return x, nil
	}
	w, _ := weight(x)
	rscale := max(numericMinSigDigits-(2*w+1), int64(Scale(x)))
	return numericCompute(adjusted(x)/2+1, rscale, func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
		return ctx.Sqrt(r, x)
	})
}

// expNumeric computes e^x to 16 significant digits or the input's scale.
func expNumeric(x *apd.Decimal) (*apd.Decimal, error) {
	switch {
	case x.Form == apd.NaN:
		return x, nil
	case x.Form == apd.Infinite && x.Negative:
		return new(apd.Decimal), nil
	case x.Form == apd.Infinite:
		return x, nil
	}
	f, _ := x.Float64()
	val := min(max(f*math.Log10E, -numericMaxResultScale), numericMaxResultScale)
	rscale := max(numericMinSigDigits-int64(val), int64(Scale(x)))
	if math.Abs(f) >= numericMaxResultScale*3 {
		if f > 0 {
			return nil, errNumericOverflow
		}
		return apd.New(0, -int32(min(rscale, numericMaxDisplayScale))), nil
	}
	return numericCompute(int64(max(val, 0))+1, rscale, func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
		return ctx.Exp(r, x)
	})
}

// checkLogArg returns PostgreSQL's error for the logarithm of x <= 0.
func checkLogArg(x *apd.Decimal) error {
	switch {
	case x.Form == apd.NaN:
		return nil
	case x.IsZero():
		return errLogZero
	case x.Negative:
		return errLogNegative
	}
	return nil
}

// lnNumeric computes the natural logarithm to PostgreSQL's scale.
func lnNumeric(x *apd.Decimal) (*apd.Decimal, error) {
	if err := checkLogArg(x); err != nil || x.Form != apd.Finite {
		return x, err
	}
	dw := estimateLnDweight(x)
	rscale := max(numericMinSigDigits-dw, int64(Scale(x)))
	return numericCompute(dw+1, rscale, func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
		return ctx.Ln(r, x)
	})
}

// logNumeric computes the logarithm of x to base b to PostgreSQL's scale.
func logNumeric(b, x *apd.Decimal) (*apd.Decimal, error) {
	if err := checkLogArg(b); err != nil {
		return nil, err
	}
	if err := checkLogArg(x); err != nil {
		return nil, err
	}
	switch {
	case b.Form == apd.NaN || x.Form == apd.NaN || (b.Form == apd.Infinite && x.Form == apd.Infinite):
		return &apd.Decimal{Form: apd.NaN}, nil
	case b.Form == apd.Infinite:
		return new(apd.Decimal), nil
	case x.Form == apd.Infinite:
		return x, nil
	}
	if b.Cmp(apd.New(1, 0)) == 0 {
		return nil, errDivByZero
	}
	dw := estimateLnDweight(x) - estimateLnDweight(b)
	rscale := max(numericMinSigDigits-dw, int64(Scale(b)), int64(Scale(x)))
	return numericCompute(dw+1, rscale, func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
		inner := *ctx
		inner.Precision += 8
		var lb, lx apd.Decimal
		if _, err := inner.Ln(&lb, b); err != nil {
			return 0, err
		}
		if _, err := inner.Ln(&lx, x); err != nil {
			return 0, err
		}
		return ctx.Quo(r, &lx, &lb)
	})
}

// estimateLnDweight is PostgreSQL's estimate of the decimal weight (power of
// ten of the leading digit) of ln(x), for a positive finite x.
func estimateLnDweight(x *apd.Decimal) int64 {
	if x.Cmp(apd.New(9, -1)) >= 0 && x.Cmp(apd.New(11, -1)) <= 0 {
		var d apd.Decimal
		if _, err := exact.Sub(&d, x, apd.New(1, 0)); err != nil || d.IsZero() {
			return 0
		}
		return adjusted(&d)
	}
	return int64(math.Log10(math.Abs(lnAbs(x))))
}

// lnAbs approximates ln|x| for a nonzero finite x from its 8 leading
// digits.
func lnAbs(x *apd.Decimal) float64 {
	digits := x.Coeff.String()
	lead := digits[:min(len(digits), 8)]
	var m float64
	for _, c := range lead {
		m = m*10 + float64(c-'0')
	}
	exp := int64(x.Exponent) + int64(len(digits)-len(lead))
	return math.Log(m) + float64(exp)*math.Ln10
}

// divNumeric is div(): the quotient truncated toward zero.
func divNumeric(_ *Ctx, a, b types.Datum) (types.Datum, error) {
	x, y := a.Decimal(), b.Decimal()
	if isSpecial(x, y) {
		return numericDatum(divSpecial(x, y))
	}
	if y.IsZero() {
		return types.Null, errDivByZero
	}
	r := new(apd.Decimal)
	if _, err := exact.QuoInteger(r, x, y); err != nil {
		return types.Null, numericErr(err)
	}
	return numericDatum(r, nil)
}

// gcdInt is gcd or lcm of integers of type t, with an out-of-range error
// when the (positive) result does not fit.
func gcdInt(t types.T, lcm bool) Overload {
	return binaryOverload(t, t.Family, func(_ *Ctx, a, b types.Datum) (types.Datum, error) {
		x, y := absUint(a.Int()), absUint(b.Int())
		g, rem := x, y
		for rem != 0 {
			g, rem = rem, g%rem
		}
		r := g
		if lcm {
			if x == 0 || y == 0 {
				return types.NewInt(0), nil
			}
			hi, lo := bits.Mul64(x/g, y)
			if hi != 0 {
				return types.Null, IntRangeError(t)
			}
			r = lo
		}
		if r > math.MaxInt64 || CheckIntRange(int64(r), t) != nil {
			return types.Null, IntRangeError(t)
		}
		return types.NewInt(int64(r)), nil
	})
}

func absUint(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// gcdNumeric is gcd or lcm of numerics, with the larger of the input scales.
func gcdNumeric(x, y *apd.Decimal, lcm bool) (*apd.Decimal, error) {
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return &apd.Decimal{Form: apd.NaN}, nil
	}
	scale := max(Scale(x), Scale(y))
	if lcm && (x.IsZero() || y.IsZero()) {
		return NumericRound(new(apd.Decimal), scale)
	}
	a, b := new(apd.Decimal).Abs(x), new(apd.Decimal).Abs(y)
	for !b.IsZero() {
		r, err := NumericMod(a, b)
		if err != nil {
			return nil, err
		}
		a, b = b, r
	}
	if lcm {
		q := new(apd.Decimal)
		if _, err := exact.QuoInteger(q, x, a); err != nil {
			return nil, numericErr(err)
		}
		p, err := NumericMul(q, y)
		if err != nil {
			return nil, err
		}
		a = p.Abs(p)
	}
	return NumericRound(a, scale)
}

// widthBucket is width_bucket(operand, low, high, count): the 1-based bucket
// of operand among count equal-width buckets spanning [low, high).
func widthBucket(_ *Ctx, a []types.Datum) (types.Datum, error) {
	x, lo, hi, count := a[0].Float(), a[1].Float(), a[2].Float(), a[3].Int()
	switch {
	case count <= 0:
		return types.Null, pgerror.New(codeInvalidArgumentForWidthBucket, "count must be greater than zero")
	case math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi):
		return types.Null, pgerror.New(codeInvalidArgumentForWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	case math.IsInf(lo, 0) || math.IsInf(hi, 0):
		return types.Null, pgerror.New(codeInvalidArgumentForWidthBucket, "lower and upper bounds must be finite")
	case lo == hi:
		return types.Null, pgerror.New(codeInvalidArgumentForWidthBucket, "lower bound cannot equal upper bound")
	}
	if lo > hi {
		x, lo, hi = -x, -lo, -hi
	}
	switch {
	case x < lo:
		return types.NewInt(0), nil
	case x >= hi:
		if count == math.MaxInt32 {
			return types.Null, IntRangeError(types.TInt4)
		}
		return types.NewInt(count + 1), nil
	}
	return types.NewInt(int64(float64(count)*(x-lo)/(hi-lo)) + 1), nil
}

// sinDegrees is the sine of x degrees, exact at multiples of 30 and 90.
func sinDegrees(x float64) float64 {
	x = math.Mod(x, 360)
	if x < 0 {
		x += 360
	}
	switch x {
	case 0, 180:
		return 0
	case 90:
		return 1
	case 270:
		return -1
	case 30, 150:
		return 0.5
	case 210, 330:
		return -0.5
	}
	return math.Sin(x * math.Pi / 180)
}

// tanDegrees is the tangent of x degrees, exact at multiples of 45.
func tanDegrees(x float64) float64 {
	x = math.Mod(x, 180)
	if x < 0 {
		x += 180
	}
	switch x {
	case 0:
		return 0
	case 45:
		return 1
	case 135:
		return -1
	case 90:
		return math.Inf(1)
	}
	return math.Tan(x * math.Pi / 180)
}

// exactDegrees rounds an angle within 1e-12 of a whole degree to it (the
// inverse functions in degrees return 30, not 30.000000000000004).
func exactDegrees(d float64) float64 {
	if r := math.Round(d); math.Abs(d-r) < 1e-12 {
		return r
	}
	return d
}
