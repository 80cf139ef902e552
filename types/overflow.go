package types

import "math"

// AddInt64 returns a+b and whether it did not overflow.
func AddInt64(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

// SubInt64 returns a-b and whether it did not overflow.
func SubInt64(a, b int64) (int64, bool) {
	c := a - b
	return c, (c < a) == (b > 0)
}

// MulInt64 returns a*b and whether it did not overflow.
func MulInt64(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || c/b != a {
		return c, false
	}
	return c, true
}

// fitsInt32 reports whether v is an int32.
func fitsInt32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// addInt32 returns a+b and whether it did not overflow.
func addInt32(a, b int32) (int32, bool) {
	c := int64(a) + int64(b)
	return int32(c), fitsInt32(c)
}

// float64FitsInt32 and float64FitsInt64 are PostgreSQL's FLOAT8_FITS_IN_INT32
// and FLOAT8_FITS_IN_INT64: f truncates to an integer of that size (NaN
// does not).
func float64FitsInt32(f float64) bool { return f >= math.MinInt32 && f < -math.MinInt32 }

func float64FitsInt64(f float64) bool { return f >= math.MinInt64 && f < -math.MinInt64 }
