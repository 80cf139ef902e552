package dashboard

import (
	"context"
	"sync"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/latency"
)

// The time series holds one sample a second for ten minutes.
const (
	sampleEvery = time.Second
	seriesLen   = 600
)

// Sample is what the node did in one interval (/api/v1/timeseries).
type Sample struct {
	At time.Time `json:"at"`
	// Barriers counts the epochs committed in the interval; P50MS and
	// P99MS are their barrier latency (injection to commit), 0 if none.
	Barriers int64   `json:"barriers"`
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
	// RowsPerS is the rate of rows the node's fragments took in, summed
	// over fragments (a row counts once per fragment it enters).
	RowsPerS float64 `json:"rows_per_s"`
}

// series is a fixed-size ring of samples, each made from the difference
// of two readings of the node's cumulative figures. It is safe for
// concurrent use.
type series struct {
	mu   sync.Mutex
	ring []Sample
	// next is the slot the next sample goes in; full reports that the
	// ring has wrapped.
	next int
	full bool
	// last is the previous reading (none while at is zero).
	last struct {
		at      time.Time
		latency latency.Histogram
		rows    int64
	}
}

// newSeries returns an empty series of n samples at most.
func newSeries(n int) *series { return &series{ring: make([]Sample, n)} }

// add reads st, the node's figures at at: the first reading only starts
// the series, each later one adds the sample of the interval since the
// one before. Counters that went back (a job restarted) count as 0.
func (s *series) add(at time.Time, st control.Stats) {
	var rows int64
	for _, f := range st.Fragments {
		rows += f.In
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prev := s.last
	s.last.at, s.last.latency, s.last.rows = at, st.CommitLatency, rows
	if prev.at.IsZero() || !at.After(prev.at) {
		return
	}
	since := st.CommitLatency.Since(&prev.latency)
	lat := since.Summary()
	s.ring[s.next] = Sample{At: at, Barriers: lat.Count, P50MS: millis(lat.P50), P99MS: millis(lat.P99),
		RowsPerS: float64(max(rows-prev.rows, 0)) / at.Sub(prev.at).Seconds()}
	s.next = (s.next + 1) % len(s.ring)
	s.full = s.full || s.next == 0
}

// samples returns the samples, oldest first.
func (s *series) samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.full {
		return append([]Sample{}, s.ring[:s.next]...)
	}
	return append(append([]Sample{}, s.ring[s.next:]...), s.ring[:s.next]...)
}

// Run samples the source's figures once a second until ctx ends.
func (d *Dashboard) Run(ctx context.Context) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	d.series.add(time.Now(), d.src.Stats())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			d.series.add(now, d.src.Stats())
		}
	}
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
