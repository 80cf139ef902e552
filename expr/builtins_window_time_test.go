package expr

import (
	"fmt"
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

func TestHopStarts(t *testing.T) {
	min := int64(60e6)
	iv := func(us int64) types.Datum { return types.NewInterval(types.IntervalValue{Micros: us}) }
	tests := []struct {
		ts, slide, size int64
		want            []int64
	}{
		{ts: 7 * min, slide: 5 * min, size: 15 * min, want: []int64{-5 * min, 0, 5 * min}},
		{ts: 5 * min, slide: 5 * min, size: 10 * min, want: []int64{0, 5 * min}},
		{ts: 4 * min, slide: 5 * min, size: 5 * min, want: []int64{0}},
		{ts: 3 * min, slide: 5 * min, size: 2 * min, want: nil},
		{ts: 1 * min, slide: 5 * min, size: 2 * min, want: []int64{0}},
		{ts: -1, slide: min, size: 2 * min, want: []int64{-2 * min, -min}},
	}
	for _, tc := range tests {
		it, err := hopStarts(types.MakeTimestamp)(nil, []types.Datum{types.NewTimestamp(tc.ts), iv(tc.slide), iv(tc.size)})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for v, ok, err := it(); ok || err != nil; v, ok, err = it() {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v.Int())
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("hop starts of %d (slide %d, size %d) = %v, want %v", tc.ts, tc.slide, tc.size, got, tc.want)
		}
	}
}
