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
		{name: "steady", samples: []progressSample{s(0, time.Second), s(100, 6*time.Second), s(500, 26*time.Second), s(900, 46*time.Second), s(1000, 51*time.Second)},
			first: 20, last: 20},
		{name: "slowing down", samples: []progressSample{s(0, 0), s(120, 6*time.Second), s(880, 50*time.Second), s(1000, 62*time.Second)},
			first: 20, last: 10},
		{name: "windows too short in CPU", samples: []progressSample{s(0, 0), s(120, time.Second), s(880, 50*time.Second), s(1000, 53*time.Second)}},
		{name: "no samples between", samples: []progressSample{s(0, 0), s(1000, 4*time.Second)}},
		{name: "coarse", samples: []progressSample{s(0, 0), s(150, 5*time.Second), s(700, 25*time.Second), s(1000, 40*time.Second)}, first: 30},
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
