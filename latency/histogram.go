// Package latency summarizes durations (barrier latencies, say) in a
// fixed-size logarithmic histogram: recording is constant time and memory
// does not grow with the count, quantiles are within one bucket (about 4%)
// of the true value and the maximum is exact.
package latency

import (
	"math"
	"time"
)

// Buckets: bucket 0 holds durations below 1µs; bucket i > 0 holds
// [2^((i-1)/perOctave), 2^(i/perOctave)) µs; the last one everything from
// about 71 minutes on.
const (
	perOctave = 16
	octaves   = 32
	buckets   = perOctave*octaves + 2
)

// Histogram counts durations. The zero value is empty and ready; it is not
// safe for concurrent use.
type Histogram struct {
	counts [buckets]int64
	n      int64
	max    time.Duration
	sum    time.Duration
}

// Summary is what a Histogram reports.
type Summary struct {
	// Count is the number of durations recorded.
	Count int64
	// P50 and P99 are the median and the 99th percentile, Max the largest
	// duration; all zero while Count is 0.
	P50, P99, Max time.Duration
}

// Record adds one duration.
func (h *Histogram) Record(d time.Duration) {
	h.counts[bucket(d)]++
	h.n++
	h.max = max(h.max, d)
	h.sum += d
}

// Cumulative returns the count and sum of the recorded durations and, for
// each of bounds (ascending), how many do not exceed it, to within one
// bucket: a bucket counts below a bound its upper end does not exceed.
// It is what a Prometheus histogram exports.
func (h *Histogram) Cumulative(bounds []time.Duration) (count int64, sum time.Duration, below []int64) {
	below = make([]int64, len(bounds))
	var seen int64
	b := 0
	for i, c := range h.counts {
		for b < len(bounds) && upper(i) > bounds[b] {
			below[b] = seen
			b++
		}
		seen += c
	}
	for ; b < len(bounds); b++ {
		below[b] = seen
	}
	return h.n, h.sum, below
}

// Since returns the durations h recorded after prev, an earlier copy of
// h: counts and sum by difference. Its maximum is the upper end of the
// highest bucket that gained durations (no more than h's maximum), so
// its quantiles stay within one bucket too.
func (h *Histogram) Since(prev *Histogram) Histogram {
	d := Histogram{n: h.n - prev.n, sum: h.sum - prev.sum}
	for i := range h.counts {
		if d.counts[i] = h.counts[i] - prev.counts[i]; d.counts[i] > 0 {
			d.max = min(upper(i), h.max)
		}
	}
	return d
}

// Summary returns the count, median, 99th percentile and maximum.
func (h *Histogram) Summary() Summary {
	return Summary{Count: h.n, P50: h.Quantile(0.5), P99: h.Quantile(0.99), Max: h.max}
}

// Quantile returns the duration that a fraction q (0 < q <= 1) of the
// recorded ones do not exceed: the upper bound of the bucket holding it,
// but never more than the maximum. It is 0 for an empty histogram.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(h.n))), 1)
	var seen int64
	for i, c := range h.counts {
		if seen += c; seen >= rank {
			return min(upper(i), h.max)
		}
	}
	return h.max
}

// bucket is the index of d's bucket.
func bucket(d time.Duration) int {
	us := float64(d) / float64(time.Microsecond)
	if us < 1 {
		return 0
	}
	return min(int(math.Log2(us)*perOctave)+1, buckets-1)
}

// upper is the exclusive upper bound of bucket i (the largest duration
// for the last bucket).
func upper(i int) time.Duration {
	if i == buckets-1 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(math.Exp2(float64(i)/perOctave) * float64(time.Microsecond))
}
