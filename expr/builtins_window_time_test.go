package expr

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestBinStart(t *testing.T) {
	minute := types.IntervalValue{Micros: 60e6}
	tests := []struct {
		stride         types.IntervalValue
		source, origin int64
		want           int64
		err            string
	}{
		{stride: minute, source: 90e6, want: 60e6},
		{stride: minute, source: 60e6, want: 60e6},
		{stride: minute, source: -1, want: -60e6},
		{stride: minute, source: 90e6, origin: 15e6, want: 75e6},
		{stride: minute, source: 10e6, origin: 15e6, want: -45e6},
		{stride: types.IntervalValue{Days: 1}, source: 3*microsPerDay + 5, want: 3 * microsPerDay},
		{stride: types.IntervalValue{Months: 1}, err: "timestamps cannot be binned into intervals containing months or years"},
		{stride: types.IntervalValue{}, err: "stride must be greater than zero"},
		{stride: types.IntervalValue{Micros: -5}, err: "stride must be greater than zero"},
	}
	for _, tc := range tests {
		got, err := binStart(tc.stride, tc.source, tc.origin)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("binStart(%v, %d, %d) error %v, want %q", tc.stride, tc.source, tc.origin, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("binStart(%v, %d, %d) = %d, %v; want %d", tc.stride, tc.source, tc.origin, got, err, tc.want)
		}
	}
}
