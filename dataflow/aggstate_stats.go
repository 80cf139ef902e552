package dataflow

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// bitKind returns the state of bit_and, bit_or or bit_xor: the count of
// values and, per bit, of the values with the bit set (bytea of varints,
// up to the last non-zero one), which retractions count down.
func bitKind(name string) *aggKind {
	return &aggKind{cols: []types.T{types.TInt8, types.TBytea}, load: func(c []types.Datum, _ *Group) aggAcc {
		acc := &bitAcc{name: name, n: intCol(c, 0)}
		b := []byte(col(c, 1).Str())
		for i := 0; len(b) > 0 && i < 64; i++ {
			v, k := binary.Varint(b)
			if k <= 0 {
				break
			}
			acc.ones[i], b = v, b[k:]
		}
		return acc
	}}
}

// bitAcc keeps bit_and, bit_or or bit_xor of the live values: a bit is
// set in bit_and if every value has it, in bit_or if one has, in bit_xor
// if an odd number have.
type bitAcc struct {
	name string
	n    int64
	ones [64]int64
}

func (a *bitAcc) add(args []types.Datum, retract bool) error {
	if args[0].IsNull() {
		return nil
	}
	d := step(retract)
	a.n += d
	for u := uint64(args[0].Int()); u != 0; u &= u - 1 {
		a.ones[bits.TrailingZeros64(u)] += d
	}
	return nil
}

func (a *bitAcc) result() (types.Datum, error) {
	if a.n == 0 {
		return types.Null, nil
	}
	var v uint64
	for i, n := range a.ones {
		var set bool
		switch a.name {
		case "bit_and":
			set = n == a.n
		case "bit_or":
			set = n > 0
		default:
			set = n%2 != 0
		}
		if set {
			v |= 1 << i
		}
	}
	// Values of narrower types are sign-extended, so is the result.
	return types.NewInt(int64(v)), nil
}

func (a *bitAcc) save(dst []types.Datum) []types.Datum {
	last := len(a.ones)
	for last > 0 && a.ones[last-1] == 0 {
		last--
	}
	var b []byte
	for _, n := range a.ones[:last] {
		b = binary.AppendVarint(b, n)
	}
	return append(dst, types.NewInt(a.n), types.NewBytes(b))
}

// varianceKind returns the state of variance v of a's argument: the
// count, the exact sum and sum of squares of the finite values (floats
// taken as the exact decimals they are), the scales of the live numeric
// values (which set the result's) and the counts of NaN and infinite ones.
func varianceKind(a *expr.AggFunc, v expr.Variance) *aggKind {
	float := a.T.Family == types.Float8
	return &aggKind{cols: []types.T{types.TInt8, types.TNumeric, types.TNumeric, types.TBytea, types.TInt8, types.TInt8, types.TInt8},
		load: func(c []types.Datum, _ *Group) aggAcc {
			acc := &varianceAcc{v: v, float: float, n: intCol(c, 0), sum: new(apd.Decimal), sumSq: new(apd.Decimal),
				scales: decodeScales(col(c, 3)), special: specialCounts{intCol(c, 4), intCol(c, 5), intCol(c, 6)}}
			if d := col(c, 1); !d.IsNull() {
				acc.sum, acc.sumSq = d.Decimal(), col(c, 2).Decimal()
			}
			return acc
		}}
}

// varianceAcc keeps a variance or standard deviation of the live values.
// Over integers and numerics it is exactly PostgreSQL's; over floats the
// exact statistic rounded once, which may differ in the last digit from
// PostgreSQL's (and the batch query's) running float computation.
type varianceAcc struct {
	v          expr.Variance
	float      bool
	n          int64
	sum, sumSq *apd.Decimal
	scales     scaleCounts
	special    specialCounts
}

func (a *varianceAcc) add(args []types.Datum, retract bool) error {
	x := args[0]
	var d *apd.Decimal
	switch x.Kind() {
	case types.KindNull:
		return nil
	case types.KindInt:
		d = expr.DecimalFromInt(x.Int())
	case types.KindFloat:
		d = exactDecimal(x.Float())
	default:
		d = x.Decimal()
	}
	a.n += step(retract)
	if a.special.addDecimal(d, retract) {
		return nil
	}
	if !a.float {
		a.scales.add(expr.Scale(d), step(retract))
	}
	sq, err := expr.NumericMul(d, d)
	if err == nil {
		a.sum, err = addDecimal(a.sum, d, retract)
	}
	if err == nil {
		a.sumSq, err = addDecimal(a.sumSq, sq, retract)
	}
	return err
}

func (a *varianceAcc) result() (types.Datum, error) {
	special := a.special.value() != finite
	if !a.float {
		// Retractions may have left larger scales; the live values'
		// digits beyond them are zeros, so this rounding is exact.
		scale := a.scales.max()
		sum, err := expr.NumericRound(a.sum, scale)
		if err != nil {
			return types.Null, err
		}
		sumSq, err := expr.NumericRound(a.sumSq, 2*scale)
		if err != nil {
			return types.Null, err
		}
		return a.v.Numeric(a.n, special, sum, sumSq)
	}
	if a.n == 0 || special {
		return a.v.Float(a.n, math.NaN()), nil
	}
	// The sum of squared differences from the mean: sumSq - sum²/n.
	n := expr.DecimalFromInt(a.n)
	nSq, err := expr.NumericMul(n, a.sumSq)
	if err != nil {
		return types.Null, err
	}
	sq, err := expr.NumericMul(a.sum, a.sum)
	if err != nil {
		return types.Null, err
	}
	num, err := expr.NumericSub(nSq, sq)
	if err != nil {
		return types.Null, err
	}
	ctx := apd.BaseContext.WithPrecision(20)
	var sxx apd.Decimal
	if _, err := ctx.Quo(&sxx, num, n); err != nil {
		return types.Null, err
	}
	f, err := sxx.Float64()
	if err != nil || math.IsInf(f, 0) {
		return types.Null, expr.ErrFloatOverflow
	}
	return a.v.Float(a.n, f), nil
}

func (a *varianceAcc) save(dst []types.Datum) []types.Datum {
	dst = append(dst, types.NewInt(a.n), types.NewDecimal(a.sum), types.NewDecimal(a.sumSq), a.scales.datum())
	return a.special.save(dst)
}

// exactDecimal returns the exact decimal value of f (NaN and infinities as
// numeric's).
func exactDecimal(f float64) *apd.Decimal {
	switch {
	case math.IsNaN(f):
		return &apd.Decimal{Form: apd.NaN}
	case math.IsInf(f, 0):
		return &apd.Decimal{Form: apd.Infinite, Negative: f < 0}
	}
	mant, exp := math.Frexp(f)
	// f = m * 2^e with m an integer of 53 bits.
	m, e := int64(mant*(1<<53)), exp-53
	coeff := new(big.Int).SetInt64(m)
	if e >= 0 {
		coeff.Lsh(coeff, uint(e))
		return apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(coeff), 0)
	}
	// m / 2^-e = m * 5^-e / 10^-e.
	coeff.Mul(coeff, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(-e)), nil))
	d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(coeff), int32(e))
	d.Reduce(d)
	return d
}
