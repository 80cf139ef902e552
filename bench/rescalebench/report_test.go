package rescalebench

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONShape checks that every object of the JSON report has the
// fields the report promises.
func TestJSONShape(t *testing.T) {
	results := []Result{
		{Strategy: Fluid, From: 2, To: 3, StateBytes: 1 << 30, SteadyP50Ms: 2, SteadyP99Ms: 9, RescaleP99Ms: 40, RescaleMaxMs: 50,
			LongestGapMs: 30, ThroughputDipPct: 12.5, DurationMs: 900, VNodesMoved: 85, VNodesTotal: 85},
		{Strategy: Restart, From: 3, To: 2, Error: "the ALTER failed: not supported"},
	}
	b, err := json.Marshal(results)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d objects, want 2", len(got))
	}
	for i, obj := range got {
		for _, f := range []string{"strategy", "state_bytes", "steady_p50_ms", "steady_p99_ms", "rescale_p99_ms", "rescale_max_ms",
			"longest_gap_ms", "throughput_dip_pct", "duration_ms"} {
			if _, ok := obj[f]; !ok {
				t.Errorf("object %d lacks %q: %v", i, f, obj)
			}
		}
	}
	if got[0]["strategy"] != "fluid" || got[0]["state_bytes"] != float64(1<<30) || got[0]["throughput_dip_pct"] != 12.5 {
		t.Errorf("object 0 = %v", got[0])
	}
	if _, ok := got[0]["error"]; ok {
		t.Errorf("object 0 has an error field: %v", got[0])
	}
	if got[1]["error"] != "the ALTER failed: not supported" {
		t.Errorf("object 1 = %v", got[1])
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	err := writeTable(&b, []Result{
		{Strategy: Fluid, From: 2, To: 3, StateBytes: 1200 << 20, RowsPerSec: 3681, TargetRowsPerSec: 3682, SteadyP99Ms: 8.9,
			RescaleMaxMs: 5033, VNodesMoved: 85, VNodesTotal: 85, BytesMoved: 437 << 20},
		{Strategy: AllAtOnce, From: 2, To: 3, RowsPerSec: 1000, TargetRowsPerSec: 3682, Error: "the ALTER failed: syntax error"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"longest gap ms", "2→3", "1200", "3,681", "5033.0", "85/85", "437",
		"all_at_once (2→3): the ALTER failed: syntax error",
		"all_at_once (2→3): the writers fell behind their rate in the steady window (1,000 of 3,682 rows/s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "fluid (2→3)") {
		t.Errorf("a note for fluid, which kept its rate and rescaled:\n%s", b.String())
	}
}

func TestWriteTargets(t *testing.T) {
	fluid := Result{Strategy: Fluid, SteadyP99Ms: 10, RescaleMaxMs: 100}
	tests := []struct {
		name    string
		results []Result
		want    []string
	}{
		{"both hold", []Result{fluid, {Strategy: Restart, RescaleMaxMs: 10_000}},
			[]string{"fluid: rescale max 100.0 ms within 100 ms of steady p99 10.0 ms: holds", "restart: rescale max 10000.0 ms >= 100x fluid's 100.0 ms: holds"}},
		{"both missed", []Result{{Strategy: Fluid, SteadyP99Ms: 10, RescaleMaxMs: 111}, {Strategy: Restart, RescaleMaxMs: 500}},
			[]string{"steady p99 10.0 ms: MISSED", "fluid's 111.0 ms: MISSED"}},
		{"fluid failed", []Result{{Strategy: Fluid, Error: "x"}, {Strategy: Restart, RescaleMaxMs: 500}},
			[]string{"fluid: not measured", "restart vs fluid: not measured"}},
		{"no restart", []Result{fluid}, []string{"holds", "restart vs fluid: not measured (restart did not rescale"}},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeTargets(&b, tt.results)
		for _, want := range tt.want {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: targets lack %q:\n%s", tt.name, want, b.String())
			}
		}
	}
}
