package dashboard

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dataflow"
)

// reading is one reading of the node's figures: seconds since the
// start, barrier latencies recorded since the reading before and the
// rows each fragment took in so far.
type reading struct {
	at    int
	lat   []time.Duration
	rowIn []int64
}

func TestSeries(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		size     int
		readings []reading
		want     []Sample // At in seconds since the start
	}{
		{"one reading starts it", 4, []reading{{at: 0, rowIn: []int64{10}}}, nil},
		{"rates and latencies per interval", 4, []reading{
			{at: 0, lat: []time.Duration{100 * ms}, rowIn: []int64{10, 5}},
			{at: 1, lat: []time.Duration{2 * ms, 2 * ms, 9 * ms}, rowIn: []int64{110, 105}},
			{at: 3, rowIn: []int64{150, 105}},
		}, []Sample{
			{At: sec(1), Barriers: 3, P50MS: 2, P99MS: 9, RowsPerS: 200},
			{At: sec(3), RowsPerS: 20},
		}},
		{"a restarted job's counters count as none", 4, []reading{
			{at: 0, rowIn: []int64{1000}},
			{at: 1, rowIn: []int64{10}},
		}, []Sample{{At: sec(1)}}},
		{"a reading at the same time is skipped", 4, []reading{
			{at: 0, rowIn: []int64{1}},
			{at: 0, rowIn: []int64{2}},
			{at: 1, rowIn: []int64{4}},
		}, []Sample{{At: sec(1), RowsPerS: 2}}},
		{"the ring keeps the newest", 2, []reading{
			{at: 0}, {at: 1, rowIn: []int64{1}}, {at: 2, rowIn: []int64{3}}, {at: 3, rowIn: []int64{6}},
		}, []Sample{{At: sec(2), RowsPerS: 2}, {At: sec(3), RowsPerS: 3}}},
	}
	for _, tt := range tests {
		s := newSeries(tt.size)
		var st control.Stats
		for _, r := range tt.readings {
			for _, d := range r.lat {
				st.CommitLatency.Record(d)
			}
			st.Fragments = nil
			for _, n := range r.rowIn {
				st.Fragments = append(st.Fragments, control.FragmentStats{FragmentRows: dataflow.FragmentRows{In: n}})
			}
			s.add(sec(r.at), st)
		}
		got := s.samples()
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d samples %+v, want %+v", tt.name, len(got), got, tt.want)
			continue
		}
		for i, w := range tt.want {
			g := got[i]
			// Latencies are within a histogram bucket (4.5%) above.
			if !g.At.Equal(w.At) || g.Barriers != w.Barriers || g.RowsPerS != w.RowsPerS ||
				g.P50MS < w.P50MS || g.P50MS > w.P50MS*1.045 || g.P99MS < w.P99MS || g.P99MS > w.P99MS*1.045 {
				t.Errorf("%s: sample %d = %+v, want %+v", tt.name, i, g, w)
			}
		}
	}
}

// sec is a time s seconds after a fixed start.
func sec(s int) time.Time { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC) }
