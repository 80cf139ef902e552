package datagen

import (
	"math/rand/v2"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// generator produces one column's values. A value is a pure function of
// the global row number g (and, for timestamps relative to the clock, of
// now), so the table does not depend on how it is split.
type generator interface {
	// ends reports whether the column is a sequence, which ends.
	ends() bool
	// past reports whether row g lies beyond the sequence's end.
	past(g int64) bool
	// value returns the column's value in row g, drawing any randomness
	// from src; now is the clock in microseconds.
	value(g int64, src *source, now int64) types.Datum
}

// source is the random number generator a split lends its columns.
type source struct {
	pcg  *rand.PCG
	rand *rand.Rand
}

func newSource() *source {
	pcg := rand.NewPCG(0, 0)
	return &source{pcg: pcg, rand: rand.New(pcg)}
}

// random is embedded by the random generators: they never end, and each
// row's draws come from a generator seeded with the column's seed and the
// row number.
type random struct{ key uint64 }

func (random) ends() bool { return false }

func (random) past(int64) bool { return false }

// draw seeds src for the column's draws in row g. Multiplying by an odd
// constant (2^64 over the golden ratio) is a bijection that spreads
// consecutive rows far apart in the PCG's state.
func (r random) draw(src *source, g int64) *rand.Rand {
	src.pcg.Seed(r.key, uint64(g)*0x9e3779b97f4a7c15)
	return src.rand
}

// sequence is embedded by the sequence generators: rows 0..last exist.
type sequence struct{ last int64 }

func (sequence) ends() bool { return true }

func (s sequence) past(g int64) bool { return g > s.last }

// intSequence counts start, start+1, ... for integer columns.
type intSequence struct {
	sequence
	start int64
}

func (s *intSequence) value(g int64, _ *source, _ int64) types.Datum {
	return types.NewInt(s.start + g)
}

// numericSequence counts start, start+1, ... for numeric columns.
type numericSequence struct {
	sequence
	start *apd.Decimal
}

func (s *numericSequence) value(g int64, _ *source, _ int64) types.Datum {
	d := new(apd.Decimal)
	d.SetInt64(g)
	if _, err := apd.BaseContext.Add(d, d, s.start); err != nil {
		panic(err) // exact: start+g has fewer digits than any precision limit
	}
	return types.NewDecimal(d)
}

// floatSequence counts start, start+1, ... in the column's precision
// until the value passes end.
type floatSequence struct {
	start, end float64
	single     bool // float4: single-precision arithmetic
}

func (s *floatSequence) at(g int64) float64 {
	if s.single {
		return float64(float32(float32(s.start) + float32(g)))
	}
	return s.start + float64(g)
}

func (*floatSequence) ends() bool { return true }

func (s *floatSequence) past(g int64) bool { return s.at(g) > s.end }

func (s *floatSequence) value(g int64, _ *source, _ int64) types.Datum {
	return types.NewFloat(s.at(g))
}

// intRandom draws integers uniformly from [min, max].
type intRandom struct {
	random
	min, max int64
}

func (f *intRandom) value(g int64, src *source, _ int64) types.Datum {
	rng := f.draw(src, g)
	span := uint64(f.max-f.min) + 1
	if span == 0 { // the whole int64 range
		return types.NewInt(int64(rng.Uint64()))
	}
	return types.NewInt(f.min + int64(rng.Uint64N(span)))
}

// floatRandom draws floats uniformly from [min, max].
type floatRandom struct {
	random
	min, max float64
	single   bool
}

func (f *floatRandom) value(g int64, src *source, _ int64) types.Datum {
	v := min(f.min+(f.max-f.min)*f.draw(src, g).Float64(), f.max)
	if f.single {
		v = float64(float32(v))
	}
	return types.NewFloat(v)
}

// numericRandom draws decimals with scale digits after the point uniformly
// from [min, max], as min + k·10^-scale.
type numericRandom struct {
	random
	min   int64 // min·10^scale
	span  uint64
	scale int32
}

func (f *numericRandom) value(g int64, src *source, _ int64) types.Datum {
	return types.NewDecimal(apd.New(f.min+int64(f.draw(src, g).Uint64N(f.span+1)), -f.scale))
}

// boolRandom draws true or false.
type boolRandom struct{ random }

func (f *boolRandom) value(g int64, src *source, _ int64) types.Datum {
	return types.NewBool(f.draw(src, g).Uint64()&1 == 1)
}

// alphanumeric is rand's Alphanumeric alphabet, which RisingWave draws
// varchar values from.
const alphanumeric = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// stringRandom draws strings of length alphanumeric characters.
type stringRandom struct {
	random
	length int
}

func (f *stringRandom) value(g int64, src *source, _ int64) types.Datum {
	rng := f.draw(src, g)
	b := make([]byte, f.length)
	for i := range b {
		b[i] = alphanumeric[rng.Uint64N(uint64(len(alphanumeric)))]
	}
	return types.NewString(string(b))
}

// timeRandom draws times up to maxPast milliseconds before a base time:
// fixed (absolute mode), or the clock when the row is generated (relative
// mode). Dates are the day of such a time.
type timeRandom struct {
	random
	family   types.Family
	maxPast  int64 // milliseconds
	base     int64 // microseconds since 1970; unused when relative
	relative bool
}

func (f *timeRandom) value(g int64, src *source, now int64) types.Datum {
	base := f.base
	if f.relative {
		base = now
	}
	t := base - f.draw(src, g).Int64N(f.maxPast+1)*1000
	switch f.family {
	case types.TimestampTZ:
		return types.NewTimestampTZ(t + types.UnixEpochTimestamp)
	case types.Date:
		return types.NewDate(floorDiv(t, 86_400_000_000))
	}
	return types.NewTimestamp(t + types.UnixEpochTimestamp)
}

// floorDiv is a/b rounded toward minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
