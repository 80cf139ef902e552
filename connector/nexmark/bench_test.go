package nexmark

import "testing"

// BenchmarkGenerator measures the all-types event stream (46 bids, 3
// auctions, 1 person per 50 events).
func BenchmarkGenerator(b *testing.B) {
	g := NewGenerator(DefaultConfig())
	b.ReportAllocs()
	var n int64
	for b.Loop() {
		g.Event(n)
		n++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSplit measures a split filling 1024-row chunks of each table,
// reusing the rows.
func BenchmarkSplit(b *testing.B) {
	for _, table := range []EventType{PersonEvent, AuctionEvent, BidEvent} {
		b.Run(table.String(), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Table = table
			s := NewSplit(cfg, 0)
			rows := newRows(1024, s.Width())
			b.ReportAllocs()
			for b.Loop() {
				s.Next(rows)
			}
			b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
