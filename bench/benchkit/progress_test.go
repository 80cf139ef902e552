package benchkit

import (
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{0, 1000, 0, "q0 p=1         [>                             ]   0%  0 events/s  0.0s"},
		{500, 1000, time.Second, "q0 p=1         [===============>              ]  50%  500 events/s  1.0s"},
		{1000, 1000, 2 * time.Second, "q0 p=1         [==============================] 100%  500 events/s  2.0s"},
		{2_000_000, 1000, time.Second, "q0 p=1         [==============================] 100%  2,000,000 events/s  1.0s"},
	}
	for _, tt := range tests {
		if got := ProgressLine("q0 p=1", "events", tt.done, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("ProgressLine(%d, %d, %v) =\n%q, want\n%q", tt.done, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
