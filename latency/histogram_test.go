package latency

import (
	"slices"
	"testing"
	"time"
)

func TestSummary(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		in   []time.Duration
		// want holds P50, P99 and Max; the quantiles may exceed the true
		// value by one bucket's width.
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []time.Duration{7 * ms}, Summary{Count: 1, P50: 7 * ms, P99: 7 * ms, Max: 7 * ms}},
		// Durations below 1µs share a bucket.
		{"below a microsecond", []time.Duration{0, 500}, Summary{Count: 2, P50: 500, P99: 500, Max: 500}},
		{"uniform", uniform(1000, ms), Summary{Count: 1000, P50: 500 * ms, P99: 990 * ms, Max: 1000 * ms}},
		{"one outlier", append(uniform(99, time.Microsecond), time.Hour), Summary{Count: 100, P50: 50 * time.Microsecond, P99: 99 * time.Microsecond, Max: time.Hour}},
		{"beyond the last bucket", []time.Duration{100 * time.Hour}, Summary{Count: 1, P50: 100 * time.Hour, P99: 100 * time.Hour, Max: 100 * time.Hour}},
	}
	for _, tt := range tests {
		var h Histogram
		for _, d := range tt.in {
			h.Record(d)
		}
		got := h.Summary()
		if got.Count != tt.want.Count || got.Max != tt.want.Max ||
			!within(got.P50, tt.want.P50) || !within(got.P99, tt.want.P99) {
			t.Errorf("%s: Summary() = %+v, want %+v (quantiles within 4.5%% above)", tt.name, got, tt.want)
		}
	}
}

// uniform returns n durations 1*unit, 2*unit, ..., n*unit.
func uniform(n int, unit time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * unit
	}
	return out
}

// within reports whether got is want or above it by less than a bucket.
func within(got, want time.Duration) bool {
	return got >= want && float64(got) <= float64(want)*1.045
}

func TestBucketBounds(t *testing.T) {
	for _, d := range []time.Duration{0, 999, time.Microsecond, 1500, time.Millisecond, time.Second, time.Hour} {
		i := bucket(d)
		if d >= upper(i) || (i > 0 && d < upper(i-1)) {
			t.Errorf("%v in bucket %d [%v, %v)", d, i, upper(i-1), upper(i))
		}
	}
}

func TestCumulative(t *testing.T) {
	ms := time.Millisecond
	bounds := []time.Duration{ms, 10 * ms, 100 * ms, time.Second}
	tests := []struct {
		name  string
		in    []time.Duration
		below []int64
		sum   time.Duration
	}{
		{"empty", nil, []int64{0, 0, 0, 0}, 0},
		{"one per range", []time.Duration{500 * time.Microsecond, 5 * ms, 50 * ms, 500 * ms, 5 * time.Second},
			[]int64{1, 2, 3, 4}, 500*time.Microsecond + 5*ms + 50*ms + 500*ms + 5*time.Second},
		// A bucket counts below a bound only if it ends there: 9.5ms and
		// 10ms share the bucket that ends just above 10ms.
		{"bucket straddles a bound", []time.Duration{9 * ms, 10 * ms}, []int64{0, 1, 2, 2}, 19 * ms},
	}
	for _, tt := range tests {
		var h Histogram
		for _, d := range tt.in {
			h.Record(d)
		}
		n, sum, below := h.Cumulative(bounds)
		if n != int64(len(tt.in)) || sum != tt.sum || !slices.Equal(below, tt.below) {
			t.Errorf("%s: Cumulative() = %d, %v, %v; want %d, %v, %v", tt.name, n, sum, below, len(tt.in), tt.sum, tt.below)
		}
	}
}

func TestSince(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name        string
		before, add []time.Duration
		// want holds the count, P50, P99 and Max of the added durations
		// (quantiles and Max within a bucket above).
		want Summary
	}{
		{"nothing added", uniform(10, ms), nil, Summary{}},
		{"from empty", nil, uniform(100, ms), Summary{Count: 100, P50: 50 * ms, P99: 99 * ms, Max: 100 * ms}},
		{"slow before, fast after", []time.Duration{time.Second, 2 * time.Second}, uniform(100, time.Microsecond),
			Summary{Count: 100, P50: 50 * time.Microsecond, P99: 99 * time.Microsecond, Max: 100 * time.Microsecond}},
		{"fast before, slow after", uniform(100, time.Microsecond), []time.Duration{time.Second},
			Summary{Count: 1, P50: time.Second, P99: time.Second, Max: time.Second}},
	}
	for _, tt := range tests {
		var h Histogram
		for _, d := range tt.before {
			h.Record(d)
		}
		prev := h
		for _, d := range tt.add {
			h.Record(d)
		}
		d := h.Since(&prev)
		got := d.Summary()
		if got.Count != tt.want.Count || !within(got.Max, tt.want.Max) ||
			!within(got.P50, tt.want.P50) || !within(got.P99, tt.want.P99) {
			t.Errorf("%s: Since().Summary() = %+v, want %+v (within a bucket above)", tt.name, got, tt.want)
		}
	}
}
