package expr

import "math"

// addFloat is float8pl (float4pl when float4) as sum() steps with it: a
// sum that turns infinite from finite values is an overflow error.
func addFloat(sum, v float64, float4 bool) (float64, error) {
	r := sum + v
	if float4 {
		r = float64(float32(sum) + float32(v))
	}
	if math.IsInf(r, 0) && !math.IsInf(sum, 0) && !math.IsInf(v, 0) {
		return 0, ErrFloatOverflow
	}
	return r, nil
}

// floatAccum is float8_accum's state, which avg() of floats steps: the
// count, the sum and the sum of squared differences from the mean. A sum
// or sum of squares that turns infinite from finite values is an overflow
// error, as in PostgreSQL (so avg(1e200, -1e200) is one).
type floatAccum struct{ n, sx, sxx float64 }

func (a *floatAccum) add(v float64) error {
	n, sx := a.n+1, a.sx+v
	if a.n > 0 {
		tmp := v*n - sx
		a.sxx += tmp * tmp / (n * a.n)
		if math.IsInf(sx, 0) || math.IsInf(a.sxx, 0) {
			if !math.IsInf(a.sx, 0) && !math.IsInf(v, 0) {
				return ErrFloatOverflow
			}
			a.sxx = math.NaN()
		}
	} else if math.IsNaN(v) || math.IsInf(v, 0) {
		a.sxx = math.NaN()
	}
	a.n, a.sx = n, sx
	return nil
}
