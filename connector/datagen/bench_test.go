package datagen

import "testing"

// BenchmarkSplit measures a split of mixedColumns filling 1024-row chunks,
// reusing the rows.
func BenchmarkSplit(b *testing.B) {
	cfg := mustParse(b, mixedColumns, map[string]string{
		"fields.id.kind": "sequence", "fields.id.end": "9223372036854775807",
	})
	s := NewSplit(cfg, 0)
	rows := newRows(1024, s.Width())
	b.ReportAllocs()
	for b.Loop() {
		s.Next(rows)
	}
	b.ReportMetric(float64(b.N)*1024/b.Elapsed().Seconds(), "rows/s")
}
