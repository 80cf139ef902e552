package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// builtinFn computes a built-in function from its argument values.
type builtinFn = func(c *Ctx, args []types.Datum) (types.Datum, error)

// sig returns a strict overload taking the given families and returning ret.
func sig(ret types.T, fn builtinFn, args ...types.Family) Overload {
	return Overload{Args: args, Ret: Returns(ret), Fn: fn}
}

// volatile marks o as volatile: never folded into a constant.
func volatile(o Overload) Overload {
	o.Volatile = true
	return o
}

// floatFn is a float8 -> float8 overload.
func floatFn(f func(x float64) (float64, error)) Overload {
	return sig(types.TFloat8, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		r, err := f(a[0].Float())
		if err != nil {
			return types.Null, err
		}
		return types.NewFloat(r), nil
	}, types.Float8)
}

// numericFn is a numeric -> numeric overload.
func numericFn(f func(x *apd.Decimal) (*apd.Decimal, error)) Overload {
	return sig(types.TNumeric, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return numericDatum(f(a[0].Decimal()))
	}, types.Numeric)
}

// binaryOverload adapts an operator implementation to a two-argument
// function of family f returning ret.
func binaryOverload(ret types.T, f types.Family, op binaryFn) Overload {
	return sig(ret, func(c *Ctx, a []types.Datum) (types.Datum, error) { return op(c, a[0], a[1]) }, f, f)
}

// numericDatum wraps a numeric result in PostgreSQL's representation: no
// negative zero and no positive exponent (the display scale is never
// negative).
func numericDatum(d *apd.Decimal, err error) (types.Datum, error) {
	if err != nil {
		return types.Null, err
	}
	if d.Form == apd.Finite {
		if d.Exponent > 0 {
			if d, err = NumericRound(d, 0); err != nil {
				return types.Null, err
			}
		}
		if d.IsZero() && d.Negative {
			d = new(apd.Decimal).Abs(d)
		}
	}
	return types.NewDecimal(d), nil
}

// datumOf adapts a computation returning a value or an error to a built-in
// result: mk wraps the value, an error gives NULL.
func datumOf[V any](mk func(V) types.Datum) func(V, error) (types.Datum, error) {
	return func(v V, err error) (types.Datum, error) {
		if err != nil {
			return types.Null, err
		}
		return mk(v), nil
	}
}
