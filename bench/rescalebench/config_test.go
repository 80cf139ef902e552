package rescalebench

import (
	"slices"
	"strings"
	"testing"
)

func TestParseStrategies(t *testing.T) {
	tests := []struct {
		in   string
		want []Strategy
		err  string
	}{
		{"fluid,all_at_once,restart", Strategies, ""},
		{" restart , fluid", []Strategy{Restart, Fluid}, ""},
		{"fluid,fluid", []Strategy{Fluid, Fluid}, ""},
		{"fluid,stop", nil, `no strategy "stop"`},
		{"fluid:lazy,fluid:eager,restart:handover", []Strategy{"fluid:lazy", "fluid:eager", "restart:handover"}, ""},
		{"fluid:cold", nil, `no cache mode "cold"`},
		{"", nil, `no strategy ""`},
	}
	for _, tt := range tests {
		got, err := ParseStrategies(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseStrategies(%q) error %v, want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseStrategies(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestAlterStatement(t *testing.T) {
	tests := []struct {
		s        Strategy
		to, step int
		want     string
	}{
		{Fluid, 3, 16, "ALTER MATERIALIZED VIEW v SET PARALLELISM = 3 WITH (strategy = 'fluid', step = 16)"},
		{Fluid, 3, 0, "ALTER MATERIALIZED VIEW v SET PARALLELISM = 3 WITH (strategy = 'fluid')"},
		{"fluid:lazy", 3, 4, "ALTER MATERIALIZED VIEW v SET PARALLELISM = 3 WITH (strategy = 'fluid', step = 4, cache = 'lazy')"},
		{AllAtOnce, 2, 16, "ALTER MATERIALIZED VIEW v SET PARALLELISM = 2 WITH (strategy = 'all_at_once')"},
		{Restart, 4, 8, "ALTER MATERIALIZED VIEW v SET PARALLELISM = 4 WITH (strategy = 'restart')"},
	}
	for _, tt := range tests {
		if got := alterStatement(tt.s, tt.to, tt.step); got != tt.want {
			t.Errorf("alterStatement(%s, %d, %d) = %q, want %q", tt.s, tt.to, tt.step, got, tt.want)
		}
	}
}
