package nexmarkbench

import (
	"testing"
	"time"
)

// TestSteadyRates checks the rates over the first and the last tenth of a
// run: from the start to the first sample past a tenth of the events, and
// from the last sample before nine tenths to the end.
func TestSteadyRates(t *testing.T) {
	s := func(events int64, cpu time.Duration) progressSample { return progressSample{events: events, cpu: cpu} }
	for _, tc := range []struct {
		name        string
		samples     []progressSample
		first, last float64
	}{
		{name: "steady", samples: []progressSample{s(0, time.Second), s(100, 2*time.Second), s(500, 6*time.Second), s(900, 10*time.Second), s(1000, 11*time.Second)},
			first: 100, last: 100},
		{name: "slowing down", samples: []progressSample{s(0, 0), s(120, time.Second), s(880, 10*time.Second), s(1000, 13*time.Second)},
			first: 120, last: 40},
		{name: "no samples between", samples: []progressSample{s(0, 0), s(1000, 4*time.Second)}},
		{name: "coarse", samples: []progressSample{s(0, 0), s(150, time.Second), s(700, 5*time.Second), s(1000, 8*time.Second)}, first: 150},
		{name: "no run", samples: []progressSample{s(0, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first, last := steadyRates(tc.samples, 1000)
			if first != tc.first || last != tc.last {
				t.Fatalf("steadyRates = %v, %v; want %v, %v", first, last, tc.first, tc.last)
			}
		})
	}
}
