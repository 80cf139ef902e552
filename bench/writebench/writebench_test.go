package writebench

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	ours := Result{System: Streamdb, Writers: 16, Nodes: 1, RowsPerSec: 10000, P50MS: 2, P99MS: 4, BarrierP50MS: 1, BarrierP99MS: 3}
	theirs := Result{System: Postgres, Writers: 16, Nodes: 1, RowsPerSec: 20000, P50MS: 1, P99MS: 8}
	tests := []struct {
		theirs *Result
		want   []string
		not    string
	}{
		{nil, []string{"16 writers", "10,000 rows/s", "barrier round trip p50 1.00 ms p99 3.00 ms: ack p99 = 4.0x its p50, 1.3x its p99"}, "PostgreSQL"},
		{&theirs, []string{"PostgreSQL 15.4", "20,000 rows/s", "streamdb/PostgreSQL: rows/s 0.50x, ack p50 2.00x, p99 0.50x"}, ""},
	}
	for _, tt := range tests {
		var b strings.Builder
		report(&b, ours, tt.theirs, "15.4")
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("the report lacks %q:\n%s", w, b.String())
			}
		}
		if tt.not != "" && strings.Contains(b.String(), tt.not) {
			t.Errorf("the report has %q:\n%s", tt.not, b.String())
		}
	}
}
