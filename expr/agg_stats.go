package expr

import (
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// Variance is one of PostgreSQL's variance and standard deviation
// aggregates.
type Variance struct {
	// Sample divides by n-1 (NULL for fewer than two values), else by n.
	Sample bool
	// Stddev takes the square root of the variance.
	Stddev bool
}

var variances = map[string]Variance{
	"variance": {Sample: true}, "var_samp": {Sample: true}, "var_pop": {},
	"stddev": {Sample: true, Stddev: true}, "stddev_samp": {Sample: true, Stddev: true}, "stddev_pop": {Stddev: true},
}

// VarianceOf returns the variance aggregate called name; ok is false if
// name is none.
func VarianceOf(name string) (v Variance, ok bool) {
	v, ok = variances[name]
	return v, ok
}

// undefined reports whether the statistic is NULL for n values.
func (v Variance) undefined(n int64) bool { return n == 0 || v.Sample && n == 1 }

// Numeric is PostgreSQL's numeric_stddev_internal, the statistic of n
// numeric (or integer) values whose sum is sumX and sum of squares sumX2,
// of display scales s and 2s for s the largest of the values' (so that
// the result has PostgreSQL's scale); special says that some of the
// values are NaN or infinite, which makes it NaN.
func (v Variance) Numeric(n int64, special bool, sumX, sumX2 *apd.Decimal) (types.Datum, error) {
	if v.undefined(n) {
		return types.Null, nil
	}
	if special {
		return types.NewDecimal(numericNaN()), nil
	}
	count := DecimalFromInt(n)
	nx2, err := NumericMul(count, sumX2)
	if err != nil {
		return types.Null, err
	}
	x2, err := NumericMul(sumX, sumX)
	if err != nil {
		return types.Null, err
	}
	num, err := NumericSub(nx2, x2)
	if err != nil || num.Sign() <= 0 {
		// Only rounding could make it negative in PostgreSQL.
		return types.NewDecimal(new(apd.Decimal)), err
	}
	den := DecimalFromInt(n)
	if v.Sample {
		den = DecimalFromInt(n - 1)
	}
	if den, err = NumericMul(count, den); err != nil {
		return types.Null, err
	}
	q, err := NumericDiv(num, den)
	if err == nil && v.Stddev {
		q, err = numericCompute(adjusted(q)/2+1, int64(Scale(q)), func(ctx *apd.Context, r *apd.Decimal) (apd.Condition, error) {
			return ctx.Sqrt(r, q)
		})
	}
	if err != nil {
		return types.Null, err
	}
	return types.NewDecimal(q), nil
}

// Float is PostgreSQL's float8_var_pop and its kin: the statistic of n
// float values whose sum of squared differences from their mean is sxx.
func (v Variance) Float(n int64, sxx float64) types.Datum {
	if v.undefined(n) {
		return types.Null
	}
	d := float64(n)
	if v.Sample {
		d--
	}
	r := sxx / d
	if v.Stddev {
		r = math.Sqrt(r)
	}
	return types.NewFloat(r)
}

// numericVarianceState accumulates a variance of integers or numerics
// exactly: their count, sum and sum of squares.
type numericVarianceState struct {
	v          Variance
	n          int64
	special    bool
	sum, sumSq *apd.Decimal
}

func (s *numericVarianceState) Add(args []types.Datum) error {
	x := args[0]
	if x.IsNull() {
		return nil
	}
	s.n++
	d := x.Decimal()
	if x.Kind() == types.KindInt {
		d = DecimalFromInt(x.Int())
	}
	if d.Form != apd.Finite {
		s.special = true
		return nil
	}
	sq, err := NumericMul(d, d)
	if err != nil {
		return err
	}
	if s.sum, err = NumericAdd(s.sum, d); err != nil {
		return err
	}
	s.sumSq, err = NumericAdd(s.sumSq, sq)
	return err
}

func (s *numericVarianceState) Result() (types.Datum, error) {
	return s.v.Numeric(s.n, s.special, s.sum, s.sumSq)
}

// floatVarianceState accumulates a variance of floats as PostgreSQL's
// float8_accum does.
type floatVarianceState struct {
	v   Variance
	acc floatAccum
}

func (s *floatVarianceState) Add(args []types.Datum) error {
	if args[0].IsNull() {
		return nil
	}
	return s.acc.add(args[0].Float())
}

func (s *floatVarianceState) Result() (types.Datum, error) {
	return s.v.Float(int64(s.acc.n), s.acc.sxx), nil
}

// bitState folds integers with bit_and, bit_or or bit_xor.
type bitState struct {
	name string
	any  bool
	v    int64
}

func (s *bitState) Add(args []types.Datum) error {
	if args[0].IsNull() {
		return nil
	}
	x := args[0].Int()
	switch {
	case !s.any:
		s.v, s.any = x, true
	case s.name == "bit_and":
		s.v &= x
	case s.name == "bit_or":
		s.v |= x
	default:
		s.v ^= x
	}
	return nil
}

func (s *bitState) Result() (types.Datum, error) {
	if !s.any {
		return types.Null, nil
	}
	return types.NewInt(s.v), nil
}
