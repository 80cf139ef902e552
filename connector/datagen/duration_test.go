package datagen

import (
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1day", 24 * time.Hour, true},
		{"2h 37min", 2*time.Hour + 37*time.Minute, true},
		{"1h30m", 90 * time.Minute, true},
		{" 10 s ", 10 * time.Second, true},
		{"500ms", 500 * time.Millisecond, true},
		{"1M", 2_630_016 * time.Second, true},
		{"2years", 2 * 31_557_600 * time.Second, true},
		{"", 0, false},
		{"5", 0, false},
		{"h", 0, false},
		{"3 fortnights", 0, false},
		{"-1s", 0, false},
		{"1.5h", 0, false},
		{"99999999999999y", 0, false},
	} {
		got, err := parseDuration(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}
