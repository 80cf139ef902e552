package nexmark

import (
	"math"
	"testing"
)

// TestPow10 checks the tabled 10^y against math.Pow over a sample of the
// exponents price draws.
func TestPow10(t *testing.T) {
	for k := uint32(0); k < 1<<24; k += 97 {
		y := float32(float32(k)*(1.0/(1<<24))) * 6
		if got, want := float32(pow10(y)), float32(math.Pow(10, float64(y))); got != want {
			t.Fatalf("10^%v = %v, want %v", y, got, want)
		}
	}
}

// TestSampling checks the ranges of rand's samplers as ported.
func TestSampling(t *testing.T) {
	var r smallRng
	r.seed(7)
	for range 10_000 {
		if v := r.below64(3); v >= 3 {
			t.Fatalf("below64(3) = %d", v)
		}
		if v := r.below32(10_000); v >= 10_000 {
			t.Fatalf("below32(10000) = %d", v)
		}
		if p := r.price(); p < 100 || p > 100_000_000 {
			t.Fatalf("price %d out of [100, 1e8]", p)
		}
	}
	for _, c := range []struct{ current, avg, lo, hi int64 }{
		{0, 100, 80, 119}, {32, 100, 54, 81}, {100, 100, 0, 0}, {150, 100, 0, 0}, {99, 100, 1, 1},
	} {
		for range 200 {
			if n := int64(len(r.appendExtra(nil, c.current, c.avg))); n < c.lo || n > c.hi {
				t.Fatalf("extra for %d of %d: %d letters, want %d..%d", c.current, c.avg, n, c.lo, c.hi)
			}
		}
	}
}
