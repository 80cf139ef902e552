package types

import "math"

// addInt64 returns a+b and whether it did not overflow.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

// mulInt64 returns a*b and whether it did not overflow.
func mulInt64(a, b int64) (int64, bool) {
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
