package dataflow

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// aggAcc is one aggregate's running state for one group during an epoch:
// loaded from the group's state row (and its multiset group) when the
// group is first touched, saved back at the barrier. Unlike
// expr.AggState it takes retractions.
type aggAcc interface {
	// add folds one row's argument values in, or takes them out.
	add(args []types.Datum, retract bool) error
	// result returns the aggregate's current value, as expr.AggFunc
	// computes it over the live rows.
	result() (types.Datum, error)
	// save appends the state columns to dst.
	save(dst []types.Datum) []types.Datum
}

// aggKind says how a streaming aggregate keeps its state.
type aggKind struct {
	// cols are the types of its columns in the group's state row.
	cols []types.T
	// multiset: it keeps values in the multiset table.
	multiset bool
	// load returns the accumulator over saved state columns (nil: the
	// empty state) and the group's multiset entries of this aggregate.
	load func(cols []types.Datum, ms *Group) aggAcc
}

// NeedsMultiset reports whether the streaming state of aggregate a, over
// an input with retractions or an append-only one, keeps values in the
// aggregation's multiset table.
func NeedsMultiset(a *expr.AggFunc, appendOnly bool) bool {
	k, err := newAggKind(a, appendOnly)
	return err == nil && k.multiset
}

// newAggKind chooses the state of a for an input with or without
// retractions.
func newAggKind(a *expr.AggFunc, appendOnly bool) (*aggKind, error) {
	if a.Ordered() {
		return orderedKind(a, appendOnly), nil
	}
	var k *aggKind
	switch a.Name {
	case "count":
		star := a.Args == nil
		k = &aggKind{cols: []types.T{types.TInt8}, load: func(c []types.Datum, _ *Group) aggAcc {
			return &countAcc{star: star, n: intCol(c, 0)}
		}}
	case "sum", "avg":
		k = sumKind(a)
	case "min", "max":
		isMax := a.Name == "max"
		if appendOnly {
			return &aggKind{cols: []types.T{a.T}, load: func(c []types.Datum, _ *Group) aggAcc {
				return &minMaxAcc{max: isMax, v: col(c, 0)}
			}}, nil
		}
		// DISTINCT does not change min or max.
		return &aggKind{multiset: true, load: func(_ []types.Datum, ms *Group) aggAcc {
			return &minMaxSetAcc{max: isMax, ms: ms}
		}}, nil
	case "string_agg":
		bytea := a.T.Family == types.Bytea
		if appendOnly && !a.Distinct {
			return &aggKind{cols: []types.T{a.T}, load: func(c []types.Datum, _ *Group) aggAcc {
				acc := &stringAggAcc{bytea: bytea, any: len(c) > 0 && !c[0].IsNull()}
				if acc.any {
					acc.b.WriteString(c[0].Str())
				}
				return acc
			}}, nil
		}
		return orderedKind(a, appendOnly), nil
	case "array_agg":
		return arrayAggKind(a, appendOnly)
	case "bool_and", "bool_or", "every":
		and := a.Name != "bool_or"
		k = &aggKind{cols: []types.T{types.TInt8, types.TInt8}, load: func(c []types.Datum, _ *Group) aggAcc {
			return &boolAcc{and: and, t: intCol(c, 0), f: intCol(c, 1)}
		}}
	case "bit_and", "bit_or", "bit_xor":
		k = bitKind(a.Name)
	}
	if v, ok := expr.VarianceOf(a.Name); ok {
		k = varianceKind(a, v)
	}
	if k == nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "aggregate %s is not supported in streaming queries", a)
	}
	if a.Distinct {
		inner := k.load
		k = &aggKind{cols: k.cols, multiset: true, load: func(c []types.Datum, ms *Group) aggAcc {
			return &distinctAcc{inner: inner(c, nil), ms: ms}
		}}
	}
	return k, nil
}

// sumKind returns the state of sum or avg of a's argument type.
func sumKind(a *expr.AggFunc) *aggKind {
	avg := a.Name == "avg"
	switch in := a.Args[0].Type(); in.Family {
	case types.Int2, types.Int4, types.Int8:
		return &aggKind{cols: []types.T{types.TInt8, types.TInt8, types.TNumeric}, load: func(c []types.Datum, _ *Group) aggAcc {
			acc := &sumIntAcc{out: a.T, avg: avg, n: intCol(c, 0), i: intCol(c, 1)}
			if d := col(c, 2); !d.IsNull() {
				acc.dec = d.Decimal()
			}
			return acc
		}}
	case types.Numeric:
		return &aggKind{cols: []types.T{types.TInt8, types.TNumeric, types.TBytea, types.TInt8, types.TInt8, types.TInt8},
			load: func(c []types.Datum, _ *Group) aggAcc {
				acc := &sumNumericAcc{avg: avg, n: intCol(c, 0), sum: new(apd.Decimal),
					special: specialCounts{intCol(c, 3), intCol(c, 4), intCol(c, 5)}}
				if d := col(c, 1); !d.IsNull() {
					acc.sum = d.Decimal()
				}
				acc.scales = decodeScales(col(c, 2))
				return acc
			}}
	case types.Float4, types.Float8:
		return &aggKind{cols: []types.T{types.TInt8, types.TFloat8, types.TInt8, types.TInt8, types.TInt8, types.TInt8},
			load: func(c []types.Datum, _ *Group) aggAcc {
				return &sumFloatAcc{out: a.T, avg: avg, n: intCol(c, 0),
					sum:     floatSum{f: col(c, 1).Float(), units: intCol(c, 5)},
					special: specialCounts{intCol(c, 2), intCol(c, 3), intCol(c, 4)}}
			}}
	case types.Interval:
		return &aggKind{cols: []types.T{types.TInt8, types.TInt8, types.TInt8, types.TInt8, types.TInt8},
			load: func(c []types.Datum, _ *Group) aggAcc {
				return &sumIntervalAcc{avg: avg, n: intCol(c, 0), sum: types.IntervalSum{
					Months: intCol(c, 1), Days: intCol(c, 2), Micros: intCol(c, 3), MicrosWraps: intCol(c, 4)}}
			}}
	}
	return nil
}

// col returns saved column i, or NULL for the empty state.
func col(c []types.Datum, i int) types.Datum {
	if c == nil {
		return types.Null
	}
	return c[i]
}

// intCol returns saved integer column i, or 0 for the empty state.
func intCol(c []types.Datum, i int) int64 { return col(c, i).Int() }

// step returns +1, or -1 for a retraction.
func step(retract bool) int64 {
	if retract {
		return -1
	}
	return 1
}

// countAcc counts rows (count(*)) or non-NULL values.
type countAcc struct {
	star bool
	n    int64
}

func (a *countAcc) add(args []types.Datum, retract bool) error {
	a.addN(args, step(retract))
	return nil
}

// addN counts args n times (negative n: retracts them -n times).
func (a *countAcc) addN(args []types.Datum, n int64) {
	if a.star || !args[0].IsNull() {
		a.n += n
	}
}

func (a *countAcc) result() (types.Datum, error) { return types.NewInt(a.n), nil }

func (a *countAcc) save(dst []types.Datum) []types.Datum { return append(dst, types.NewInt(a.n)) }

// sumIntAcc sums integers in an int64, with what overflows it in a
// numeric (as expr's sum does).
type sumIntAcc struct {
	out  types.T
	avg  bool
	n, i int64
	dec  *apd.Decimal // nil when nothing overflowed
}

func (a *sumIntAcc) add(args []types.Datum, retract bool) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	a.n += step(retract)
	x := v.Int()
	var s int64
	var ok bool
	if retract {
		s = a.i - x
		ok = (s < a.i) == (x > 0) || x == 0
	} else {
		s = a.i + x
		ok = (s > a.i) == (x > 0) || x == 0
	}
	if ok {
		a.i = s
		return nil
	}
	d := expr.DecimalFromInt(x)
	if a.dec == nil {
		a.dec = new(apd.Decimal)
	}
	var err error
	a.dec, err = addDecimal(a.dec, d, retract)
	if a.dec.IsZero() {
		a.dec = nil
	}
	return err
}

func (a *sumIntAcc) result() (types.Datum, error) {
	if a.n == 0 {
		return types.Null, nil
	}
	total := expr.DecimalFromInt(a.i)
	if a.dec != nil {
		var err error
		if total, err = expr.NumericAdd(total, a.dec); err != nil {
			return types.Null, err
		}
	}
	switch {
	case a.out.Family == types.Int8:
		if a.dec == nil {
			return types.NewInt(a.i), nil
		}
		v, err := total.Int64()
		if err != nil {
			return types.Null, expr.IntRangeError(a.out)
		}
		return types.NewInt(v), nil
	case a.avg:
		q, err := expr.NumericDiv(total, expr.DecimalFromInt(a.n))
		return types.NewDecimal(q), err
	}
	return types.NewDecimal(total), nil
}

func (a *sumIntAcc) save(dst []types.Datum) []types.Datum {
	dec := types.Null
	if a.dec != nil {
		dec = types.NewDecimal(a.dec)
	}
	return append(dst, types.NewInt(a.n), types.NewInt(a.i), dec)
}

// specialCounts counts the NaN, +Infinity and -Infinity values of a float
// or numeric sum, which a running sum could not take out again.
type specialCounts struct{ nan, posInf, negInf int64 }

// addDecimal counts d if it is NaN or infinite and reports whether it
// was.
func (s *specialCounts) addDecimal(d *apd.Decimal, retract bool) bool {
	return s.add(d.Form == apd.NaN || d.Form == apd.NaNSignaling, d.Form == apd.Infinite, d.Negative, retract)
}

// add counts v if it is special (nan, or infinite with sign neg) and
// reports whether it was.
func (s *specialCounts) add(nan, inf, neg, retract bool) bool {
	d := step(retract)
	switch {
	case nan:
		s.nan += d
	case inf && neg:
		s.negInf += d
	case inf:
		s.posInf += d
	default:
		return false
	}
	return true
}

// Special values of a sum.
const (
	finite = iota
	sumNaN
	sumPosInf
	sumNegInf
)

// value returns what the special values make of the sum, as PostgreSQL
// adds them: finite when there are none.
func (s *specialCounts) value() int {
	switch {
	case s.nan > 0 || (s.posInf > 0 && s.negInf > 0):
		return sumNaN
	case s.posInf > 0:
		return sumPosInf
	case s.negInf > 0:
		return sumNegInf
	}
	return finite
}

func (s *specialCounts) save(dst []types.Datum) []types.Datum {
	return append(dst, types.NewInt(s.nan), types.NewInt(s.posInf), types.NewInt(s.negInf))
}

// sumNumericAcc sums numerics exactly. PostgreSQL shows a sum with the
// largest scale of its inputs, so the scales of the live values are
// counted too.
type sumNumericAcc struct {
	avg     bool
	n       int64
	sum     *apd.Decimal // of the finite values
	scales  scaleCounts
	special specialCounts
}

// scaleCounts counts the live numeric values of each scale, sorted by
// scale.
type scaleCounts []scaleCount

// scaleCount is how many live values have a scale.
type scaleCount struct {
	scale int32
	n     int64
}

func (a *sumNumericAcc) add(args []types.Datum, retract bool) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	a.n += step(retract)
	d := v.Decimal()
	if a.special.addDecimal(d, retract) {
		return nil
	}
	a.scales.add(expr.Scale(d), step(retract))
	var err error
	a.sum, err = addDecimal(a.sum, d, retract)
	return err
}

// addDecimal returns sum+d, or sum-d for a retraction, exactly.
func addDecimal(sum, d *apd.Decimal, retract bool) (*apd.Decimal, error) {
	if retract {
		return expr.NumericSub(sum, d)
	}
	return expr.NumericAdd(sum, d)
}

// add adds delta to the count of scale.
func (s *scaleCounts) add(scale int32, delta int64) {
	i := 0
	for i < len(*s) && (*s)[i].scale < scale {
		i++
	}
	if i == len(*s) || (*s)[i].scale != scale {
		*s = slices.Insert(*s, i, scaleCount{scale: scale})
	}
	if (*s)[i].n += delta; (*s)[i].n == 0 {
		*s = slices.Delete(*s, i, i+1)
	}
}

// max returns the largest scale of the live values (0: none).
func (s scaleCounts) max() int32 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1].scale
}

func (a *sumNumericAcc) result() (types.Datum, error) {
	if a.n == 0 {
		return types.Null, nil
	}
	switch a.special.value() {
	case sumNaN:
		return types.NewDecimal(&apd.Decimal{Form: apd.NaN}), nil
	case sumPosInf:
		return types.NewDecimal(&apd.Decimal{Form: apd.Infinite}), nil
	case sumNegInf:
		return types.NewDecimal(&apd.Decimal{Form: apd.Infinite, Negative: true}), nil
	}
	// Retracted values may have left a larger scale; the live values'
	// digits beyond scale are zeros, so this rounding is exact.
	total, err := expr.NumericRound(a.sum, a.scales.max())
	if err != nil || !a.avg {
		return types.NewDecimal(total), err
	}
	q, err := expr.NumericDiv(total, expr.DecimalFromInt(a.n))
	return types.NewDecimal(q), err
}

func (a *sumNumericAcc) save(dst []types.Datum) []types.Datum {
	dst = append(dst, types.NewInt(a.n), types.NewDecimal(a.sum), a.scales.datum())
	return a.special.save(dst)
}

// datum encodes the counts as bytea.
func (s scaleCounts) datum() types.Datum {
	var b []byte
	for _, c := range s {
		b = binary.AppendUvarint(b, uint64(c.scale))
		b = binary.AppendUvarint(b, uint64(c.n))
	}
	return types.NewBytes(b)
}

// decodeScales decodes the scale counts of scaleCounts.datum (none from
// NULL, the empty state's column).
func decodeScales(d types.Datum) scaleCounts {
	var out scaleCounts
	b := []byte(d.Str())
	for len(b) > 0 {
		scale, k := binary.Uvarint(b)
		n, k2 := binary.Uvarint(b[k:])
		if k <= 0 || k2 <= 0 {
			break
		}
		out = append(out, scaleCount{scale: int32(scale), n: int64(n)})
		b = b[k+k2:]
	}
	return out
}

// sumFloatAcc sums floats. Finite values are summed in a floatSum (so a
// retraction may leave rounding differences in the last digits); special
// values are counted.
type sumFloatAcc struct {
	out     types.T
	avg     bool
	n       int64
	sum     floatSum
	special specialCounts
}

func (a *sumFloatAcc) add(args []types.Datum, retract bool) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	a.n += step(retract)
	f := v.Float()
	if a.special.add(math.IsNaN(f), math.IsInf(f, 0), f < 0, retract) {
		return nil
	}
	a.sum.add(float64(step(retract)) * f)
	return nil
}

func (a *sumFloatAcc) result() (types.Datum, error) {
	if a.n == 0 {
		return types.Null, nil
	}
	var f float64
	switch a.special.value() {
	case finite:
		// Finite values that sum to an infinity overflow, as each of
		// PostgreSQL's steps checks.
		if f = a.sum.value(); math.IsInf(f, 0) || (a.out.Family == types.Float4 && math.IsInf(float64(float32(f)), 0)) {
			return types.Null, expr.ErrFloatOverflow
		}
		if a.avg {
			f /= float64(a.n)
		}
	case sumNaN:
		f = math.NaN()
	case sumPosInf:
		f = math.Inf(1)
	case sumNegInf:
		f = math.Inf(-1)
	}
	if a.out.Family == types.Float4 {
		f = float64(float32(f))
	}
	return types.NewFloat(f), nil
}

func (a *sumFloatAcc) save(dst []types.Datum) []types.Datum {
	dst = a.special.save(append(dst, types.NewInt(a.n), types.NewFloat(a.sum.f)))
	return append(dst, types.NewInt(a.sum.units))
}

// floatSum is a sum of finite floats that never overflows on the way, so
// that retractions can bring a sum that overflowed back into range: the
// float64 sum, less whole multiples of 2^1023 counted in units whenever
// an addition would overflow.
type floatSum struct {
	f     float64
	units int64
}

const floatSumUnit = 0x1p1023

func (s *floatSum) add(v float64) {
	if r := s.f + v; !math.IsInf(r, 0) {
		s.f = r
		return
	}
	h := s.f/2 + v/2 // the same sum, rounded alike, halved
	q := math.Trunc(h / (floatSumUnit / 2))
	s.units += int64(q)
	s.f = 2 * (h - q*(floatSumUnit/2))
}

// value returns the sum, infinite when it overflows (added in halves:
// f and units*2^1023 may each be out of range while their sum is not).
func (s floatSum) value() float64 {
	if s.units == 0 {
		return s.f
	}
	return 2 * (s.f/2 + float64(s.units)*(floatSumUnit/2))
}

// sumIntervalAcc sums intervals exactly, so that retractions never leave a
// wrapped-around sum; a sum (or average) out of range is PostgreSQL's
// "interval out of range".
type sumIntervalAcc struct {
	avg bool
	n   int64
	sum types.IntervalSum
}

func (a *sumIntervalAcc) add(args []types.Datum, retract bool) error {
	v := args[0]
	if v.IsNull() {
		return nil
	}
	a.n += step(retract)
	a.sum.Add(v.Interval(), retract)
	return nil
}

func (a *sumIntervalAcc) result() (types.Datum, error) {
	if a.n == 0 {
		return types.Null, nil
	}
	iv, err := a.sum.Interval()
	if err == nil && a.avg {
		iv, err = iv.Div(float64(a.n))
	}
	if err != nil {
		return types.Null, err
	}
	return types.NewInterval(iv), nil
}

func (a *sumIntervalAcc) save(dst []types.Datum) []types.Datum {
	return append(dst, types.NewInt(a.n), types.NewInt(a.sum.Months), types.NewInt(a.sum.Days),
		types.NewInt(a.sum.Micros), types.NewInt(a.sum.MicrosWraps))
}

// minMaxAcc keeps the minimum or maximum of an append-only input, the last
// of equal values as expr's batch min and max.
type minMaxAcc struct {
	max bool
	v   types.Datum
}

func (a *minMaxAcc) add(args []types.Datum, retract bool) error {
	if retract {
		return errAppendOnly
	}
	if replacesExtreme(a.max, a.v, args[0]) {
		a.v = args[0]
	}
	return nil
}

// replacesExtreme reports whether v replaces cur as the running max (min
// unless isMax): a NULL never does, and of equal values the later one
// wins, so that whoever reduces rows in order keeps the same value.
func replacesExtreme(isMax bool, cur, v types.Datum) bool {
	if v.IsNull() {
		return false
	}
	c := types.Compare(v, cur)
	return cur.IsNull() || (isMax && c >= 0) || (!isMax && c <= 0)
}

func (a *minMaxAcc) result() (types.Datum, error) { return a.v, nil }

func (a *minMaxAcc) save(dst []types.Datum) []types.Datum { return append(dst, a.v) }

// risingMaxKind is the state of a max over values that only rise
// (HashAggSpec.Rising): the multiset holds the maximum alone, so the
// table is the one a max under retractions uses, and a multiset written
// by one still reads right (its greatest value is the maximum).
var risingMaxKind = &aggKind{multiset: true, load: func(_ []types.Datum, ms *Group) aggAcc {
	return &risingMaxAcc{ms: ms}
}}

// risingMaxAcc keeps the maximum of values that only rise: a retraction
// is followed by the insert of a value not below it, so it is ignored,
// and a new maximum replaces the old one in the multiset.
type risingMaxAcc struct {
	ms *Group
	// cur is the maximum and curKey its multiset key, once read from the
	// multiset (read); key is scratch space for the next one's.
	cur         types.Datum
	curKey, key []byte
	read        bool
}

func (a *risingMaxAcc) add(args []types.Datum, retract bool) error {
	if retract {
		return nil
	}
	a.load()
	if !replacesExtreme(true, a.cur, args[0]) {
		return nil
	}
	a.key = types.AppendKey(a.key[:0], args[0], false)
	if !a.cur.IsNull() && !bytes.Equal(a.curKey, a.key) {
		a.ms.Delete(a.curKey)
	}
	a.ms.Put(a.key, []types.Datum{types.NewInt(1), args[0]})
	a.cur = args[0]
	a.curKey, a.key = a.key, a.curKey
	return nil
}

// load reads the maximum from the multiset once.
func (a *risingMaxAcc) load() {
	if !a.read {
		a.read = true
		var key []byte
		a.cur, key = multisetExtreme(a.ms, true)
		a.curKey = append(a.curKey[:0], key...)
	}
}

func (a *risingMaxAcc) result() (types.Datum, error) {
	a.load()
	return a.cur, nil
}

func (a *risingMaxAcc) save(dst []types.Datum) []types.Datum { return dst }

// multisetExtreme returns the greatest value of the multiset group ms
// (the least unless isMax) and its key; NULL if ms is empty.
func multisetExtreme(ms *Group, isMax bool) (v types.Datum, key []byte) {
	visit := func(k []byte, row []types.Datum) bool {
		v, key = row[1], k
		return false
	}
	if isMax {
		ms.Descend(visit)
	} else {
		ms.Ascend(visit)
	}
	return v, key
}

// minMaxSetAcc finds the minimum or maximum in the multiset of live
// values.
type minMaxSetAcc struct {
	max bool
	ms  *Group
	key []byte
}

func (a *minMaxSetAcc) add(args []types.Datum, retract bool) error {
	if args[0].IsNull() {
		return nil
	}
	a.key = types.AppendKey(a.key[:0], args[0], false)
	n, vals, err := multisetAdd(a.ms, a.key, args[:1], retract)
	if err == nil && !retract && n > 0 && !types.Identical(vals[0], args[0]) {
		// Of equal values (1.0 and 1.00) the last added stands for them,
		// as in expr's batch min and max. A new row, so that the state
		// cache sees the size change.
		a.ms.Put(a.key, []types.Datum{types.NewInt(n + 1), args[0]})
	}
	return err
}

func (a *minMaxSetAcc) result() (types.Datum, error) {
	v, _ := multisetExtreme(a.ms, a.max)
	return v, nil
}

func (a *minMaxSetAcc) save(dst []types.Datum) []types.Datum { return dst }

// stringAggAcc concatenates the values of an append-only input in arrival
// order, as expr's string_agg does.
type stringAggAcc struct {
	bytea bool
	any   bool
	b     strings.Builder
}

func (a *stringAggAcc) add(args []types.Datum, retract bool) error {
	if retract {
		return errAppendOnly
	}
	if args[0].IsNull() {
		return nil
	}
	if a.any && !args[1].IsNull() {
		a.b.WriteString(args[1].Str())
	}
	a.any = true
	a.b.WriteString(args[0].Str())
	return nil
}

func (a *stringAggAcc) result() (types.Datum, error) {
	return stringDatum(a.any, a.bytea, a.b.String()), nil
}

func (a *stringAggAcc) save(dst []types.Datum) []types.Datum {
	v, _ := a.result()
	return append(dst, v)
}

// stringDatum returns s as text or bytea, or NULL if there was no value.
func stringDatum(any, bytea bool, s string) types.Datum {
	switch {
	case !any:
		return types.Null
	case bytea:
		return types.NewBytes([]byte(s))
	}
	return types.NewString(s)
}

// arrayAggKind returns array_agg's state. An append-only input keeps the
// array itself, in arrival order, as expr's array_agg does. Otherwise the
// group's state row holds the multiset of live values: the distinct values
// sorted (NULL last) and their counts, and the result lists them in that
// order (PostgreSQL leaves it unspecified without ORDER BY); with DISTINCT
// each value once. The result is rebuilt whole at every change anyway, so
// the row costs no more than a multiset table would.
func arrayAggKind(a *expr.AggFunc, appendOnly bool) (*aggKind, error) {
	if appendOnly && !a.Distinct {
		return &aggKind{cols: []types.T{a.T}, load: func(c []types.Datum, _ *Group) aggAcc {
			v := col(c, 0)
			return &arrayAggAcc{any: !v.IsNull(), vals: slices.Clone(v.Array())}
		}}, nil
	}
	counts, err := types.ArrayOf(types.TInt8)
	if err != nil {
		return nil, err
	}
	distinct := a.Distinct
	return &aggKind{cols: []types.T{a.T, counts}, load: func(c []types.Datum, _ *Group) aggAcc {
		acc := &arrayAggSetAcc{distinct: distinct, vals: slices.Clone(col(c, 0).Array())}
		for _, n := range col(c, 1).Array() {
			acc.counts = append(acc.counts, n.Int())
		}
		return acc
	}}, nil
}

// arrayAggAcc collects the values of an append-only input, NULLs included.
type arrayAggAcc struct {
	any  bool
	vals []types.Datum
}

func (a *arrayAggAcc) add(args []types.Datum, retract bool) error {
	if retract {
		return errAppendOnly
	}
	a.any = true
	a.vals = append(a.vals, args[0])
	return nil
}

func (a *arrayAggAcc) result() (types.Datum, error) {
	if !a.any {
		return types.Null, nil
	}
	return types.NewArray(slices.Clone(a.vals)), nil
}

func (a *arrayAggAcc) save(dst []types.Datum) []types.Datum {
	v, _ := a.result()
	return append(dst, v)
}

// arrayAggSetAcc keeps the multiset of live values as sorted distinct
// values with their counts.
type arrayAggSetAcc struct {
	distinct bool
	vals     []types.Datum
	counts   []int64
}

func (a *arrayAggSetAcc) add(args []types.Datum, retract bool) error {
	v := args[0]
	i, found := slices.BinarySearchFunc(a.vals, v, types.Compare)
	switch {
	case retract && !found:
		return errRetractMissing
	case retract && a.counts[i] == 1:
		a.vals, a.counts = slices.Delete(a.vals, i, i+1), slices.Delete(a.counts, i, i+1)
	case retract:
		a.counts[i]--
	case found:
		a.counts[i]++
	default:
		a.vals, a.counts = slices.Insert(a.vals, i, v), slices.Insert(a.counts, i, 1)
	}
	return nil
}

func (a *arrayAggSetAcc) result() (types.Datum, error) {
	if len(a.vals) == 0 {
		return types.Null, nil
	}
	if a.distinct {
		return types.NewArray(slices.Clone(a.vals)), nil
	}
	var out []types.Datum
	for i, v := range a.vals {
		for range a.counts[i] {
			out = append(out, v)
		}
	}
	return types.NewArray(out), nil
}

func (a *arrayAggSetAcc) save(dst []types.Datum) []types.Datum {
	if len(a.vals) == 0 {
		return append(dst, types.Null, types.Null)
	}
	counts := make([]types.Datum, len(a.counts))
	for i, n := range a.counts {
		counts[i] = types.NewInt(n)
	}
	return append(dst, types.NewArray(slices.Clone(a.vals)), types.NewArray(counts))
}

// boolAcc counts true and false values for bool_and and bool_or.
type boolAcc struct {
	and  bool
	t, f int64
}

func (a *boolAcc) add(args []types.Datum, retract bool) error {
	switch v := args[0]; {
	case v.IsNull():
	case v.Bool():
		a.t += step(retract)
	default:
		a.f += step(retract)
	}
	return nil
}

func (a *boolAcc) result() (types.Datum, error) {
	switch {
	case a.t+a.f == 0:
		return types.Null, nil
	case a.and:
		return types.NewBool(a.f == 0), nil
	}
	return types.NewBool(a.t > 0), nil
}

func (a *boolAcc) save(dst []types.Datum) []types.Datum {
	return append(dst, types.NewInt(a.t), types.NewInt(a.f))
}

// distinctAcc feeds its inner aggregate each distinct argument tuple
// once: when the tuple's count in the multiset rises from zero, or drops
// to it (a tuple with a NULL is skipped, as expr's DISTINCT does).
type distinctAcc struct {
	inner aggAcc
	ms    *Group
	key   []byte
}

func (a *distinctAcc) add(args []types.Datum, retract bool) error {
	a.key = a.key[:0]
	for _, v := range args {
		if v.IsNull() {
			return nil
		}
		a.key = types.AppendKey(a.key, v, false)
	}
	n, stored, err := multisetAdd(a.ms, a.key, args, retract)
	if err != nil || n != 0 {
		return err
	}
	// The tuple appeared or vanished: the inner aggregate sees the values
	// first stored for it (their representation may differ from args').
	return a.inner.add(stored, retract)
}

func (a *distinctAcc) result() (types.Datum, error) { return a.inner.result() }

func (a *distinctAcc) save(dst []types.Datum) []types.Datum { return a.inner.save(dst) }

// multisetAdd adds one occurrence of vals under key to a multiset group
// (or removes one) whose entries are [count, vals...]. It returns the
// count before an add or after a removal (0: the key appeared or
// vanished) and the values stored for the key.
func multisetAdd(ms *Group, key []byte, vals []types.Datum, retract bool) (int64, []types.Datum, error) {
	row, ok := ms.Get(key)
	switch {
	case retract && !ok:
		return 0, nil, errRetractMissing
	case retract && row[0].Int() == 1:
		ms.Delete(key)
		return 0, row[1:], nil
	case ok:
		// The group owns its rows: update the count in place.
		n := row[0].Int()
		if retract {
			row[0] = types.NewInt(n - 1)
			ms.Put(key, row)
			return n - 1, row[1:], nil
		}
		row[0] = types.NewInt(n + 1)
		ms.Put(key, row)
		return n, row[1:], nil
	}
	row = make([]types.Datum, 1+len(vals))
	row[0] = types.NewInt(1)
	copy(row[1:], vals)
	ms.Put(key, row)
	return 0, row[1:], nil
}

// orderedKind returns the state of an aggregate whose result depends on
// the order of its values: string_agg (ordered by value without ORDER
// BY), array_agg, first_value and last_value with ORDER BY, and the
// ordered-set aggregates. An append-only first_value or last_value keeps
// one value; the others keep the multiset of live rows, ordered as the
// result takes them.
func orderedKind(a *expr.AggFunc, appendOnly bool) *aggKind {
	nargs := len(a.ValueArgs())
	if appendOnly && !a.Distinct && (a.Name == "first_value" || a.Name == "last_value") {
		last := a.Name == "last_value"
		return &aggKind{cols: []types.T{a.T, types.TBytea}, load: func(c []types.Datum, _ *Group) aggAcc {
			acc := &firstLastAcc{last: last, order: a.Order, nargs: nargs, v: col(c, 0)}
			if k := col(c, 1); !k.IsNull() {
				acc.key = []byte(k.Str())
			}
			return acc
		}}
	}
	return &aggKind{multiset: true, load: func(_ []types.Datum, ms *Group) aggAcc {
		return &orderedSetAcc{agg: a, nargs: nargs, ms: ms}
	}}
}

// appendOrderKey appends the key of the ORDER BY key values keys and then
// of the argument values vals: their memcomparable encodings, each ORDER
// BY value after a byte that puts NULL first or last as its direction
// says.
func appendOrderKey(dst []byte, order []expr.AggOrder, keys, vals []types.Datum) []byte {
	for i, v := range keys {
		switch {
		case !v.IsNull():
			dst = types.AppendKey(append(dst, 1), v, order[i].Desc)
		case order[i].NullsFirst:
			dst = append(dst, 0)
		default:
			dst = append(dst, 2)
		}
	}
	for _, v := range vals {
		dst = types.AppendKey(dst, v, false)
	}
	return dst
}

// orderedSetAcc keeps the live rows of an order-dependent aggregate in
// the multiset (what the aggregate takes of them, expr.AggFunc.Fed),
// keyed by appendOrderKey (ties of the ORDER BY keys go by the argument
// values, as expr's ordered aggregates break them), and feeds them in key
// order to the aggregate's sorted state for the result. With DISTINCT
// each argument tuple counts once.
type orderedSetAcc struct {
	agg   *expr.AggFunc
	nargs int
	ms    *Group
	key   []byte
}

func (a *orderedSetAcc) add(args []types.Datum, retract bool) error {
	vals := args[:a.nargs]
	switch a.agg.Name {
	case "string_agg":
		// NULL values are skipped; under DISTINCT, NULL delimiters too.
		if vals[0].IsNull() || (a.agg.Distinct && vals[1].IsNull()) {
			return nil
		}
	}
	a.key = appendOrderKey(a.key[:0], a.agg.Order, args[a.nargs:], vals)
	_, _, err := multisetAdd(a.ms, a.key, a.agg.Fed(args), retract)
	return err
}

func (a *orderedSetAcc) result() (types.Datum, error) {
	switch a.agg.Name {
	case "first_value", "last_value":
		// The first or last row is the value: no need to walk the rest.
		v := types.Null
		visit := func(_ []byte, row []types.Datum) bool {
			v = row[1]
			return false
		}
		if a.agg.Name == "last_value" {
			a.ms.Descend(visit)
		} else {
			a.ms.Ascend(visit)
		}
		return v, nil
	}
	s := a.agg.NewSortedState()
	var err error
	a.ms.Ascend(func(_ []byte, row []types.Datum) bool {
		n := row[0].Int()
		if a.agg.Distinct {
			n = 1
		}
		for ; n > 0 && err == nil; n-- {
			err = s.Add(row[1:])
		}
		return err == nil
	})
	if err != nil {
		return types.Null, err
	}
	return s.Result()
}

func (a *orderedSetAcc) save(dst []types.Datum) []types.Datum { return dst }

// firstLastAcc keeps the value of an append-only first_value or
// last_value with the key (appendOrderKey) it sorts under: the smallest
// key's for first_value, the largest's for last_value.
type firstLastAcc struct {
	last  bool
	order []expr.AggOrder
	nargs int
	v     types.Datum
	key   []byte // nil: no value yet
	buf   []byte
}

func (a *firstLastAcc) add(args []types.Datum, retract bool) error {
	if retract {
		return errAppendOnly
	}
	a.buf = appendOrderKey(a.buf[:0], a.order, args[a.nargs:], args[:a.nargs])
	if c := bytes.Compare(a.buf, a.key); a.key == nil || (a.last && c > 0) || (!a.last && c < 0) {
		a.v, a.key = args[0], append(a.key[:0], a.buf...)
	}
	return nil
}

func (a *firstLastAcc) result() (types.Datum, error) { return a.v, nil }

func (a *firstLastAcc) save(dst []types.Datum) []types.Datum {
	if a.key == nil {
		return append(dst, types.Null, types.Null)
	}
	return append(dst, a.v, types.NewBytes(a.key))
}
