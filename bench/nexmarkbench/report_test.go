package nexmarkbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/bench/benchkit"
)

// TestJSONShape checks the field names of the JSON report: the ones every
// row has, and the optional ones only where set.
func TestJSONShape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	results := []Result{
		{Query: "q0", Parallelism: 2, Events: 1000, Seconds: 1, EventsPerSec: 1000, EventsPerSecPerCore: 2000, PeakRSSBytes: 1 << 20, BarrierP50Ms: 1.5, BarrierP99Ms: 3, Rows: 920},
		{Query: "q5", Parallelism: 2, Events: 1000, Skipped: "no HOP (SQLSTATE 0A000)"},
		{Query: "pg-compare:q1:insert:postgres-refresh", Events: 920, EventsPerSec: 500, MaxStalenessMs: 1200, SlowRefreshes: 1},
	}
	if err := benchkit.WriteJSON(path, results); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	always := []string{"query", "parallelism", "events", "seconds", "events_per_sec", "events_per_sec_per_core", "peak_rss_bytes", "barrier_p50_ms", "barrier_p99_ms", "rows"}
	want := [][]string{always, append(slices.Clone(always), "skipped"), append(slices.Clone(always), "max_staleness_ms", "slow_refreshes")}
	for i, row := range got {
		var keys []string
		for k := range row {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w := slices.Sorted(slices.Values(want[i]))
		if !slices.Equal(keys, w) {
			t.Errorf("row %d has fields %v, want %v", i, keys, w)
		}
	}
	if got[0]["query"] != "q0" || got[0]["events_per_sec_per_core"] != 2000.0 || got[0]["peak_rss_bytes"] != float64(1<<20) {
		t.Errorf("row 0 = %v", got[0])
	}
}

func TestWriteTable(t *testing.T) {
	var b strings.Builder
	err := writeTable(&b, []Result{
		{Query: "q0", Parallelism: 1, Events: 1_000_000, EventsPerSec: 123456.7, EventsPerSecPerCore: 99999, PeakRSSBytes: 100 << 20, BarrierP50Ms: 2, BarrierP99Ms: 30, Rows: 920_000},
		{Query: "q5", Parallelism: 1, Events: 1_000_000, Skipped: "missing FROM-clause entry"},
		{Query: "q7", Nodes: 1, Parallelism: 2, Events: 1000, EventsPerSec: 200, EventsPerSecPerCore: 100},
		{Query: "q7", Nodes: 3, Parallelism: 2, Events: 1000, EventsPerSec: 150, EventsPerSecPerCore: 80},
		{Query: "q7", Nodes: 3, Parallelism: 4, Events: 1000, Skipped: "failed: no"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"events/s/core", "123,456", "920,000", "skipped", "q5 (p=1) skipped: missing FROM-clause entry",
		"q7 (nodes=3, p=4) skipped: failed: no", "q7 p=2 on 3 nodes: 0.75x one node's events/s, 0.80x its events/s per busy core"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteMetricsCost(t *testing.T) {
	results := []Result{
		{Query: "q5", Nodes: 1, Parallelism: 2, Metrics: "on", EventsPerSec: 990, EventsPerSecPerCore: 495},
		{Query: "q5", Nodes: 1, Parallelism: 2, Metrics: "off", EventsPerSec: 1000, EventsPerSecPerCore: 500},
		{Query: "q0", Nodes: 1, Parallelism: 2, Metrics: "on", EventsPerSec: 1000, EventsPerSecPerCore: 500},
	}
	var b strings.Builder
	writeMetricsCost(&b, results)
	want := "q5 nodes=1, p=2: metrics on costs +1.0% events/s per busy core (+1.0% events/s) against metrics off\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestWriteCheckpointCost checks the comparison of barrier intervals: the
// means of the runs at the shortest and at the longest, per query, and
// nothing for a query run at one interval.
func TestWriteCheckpointCost(t *testing.T) {
	results := []Result{
		{Query: "q5", Nodes: 1, Parallelism: 1, BarrierIntervalMS: 1000, EventsPerSecPerCore: 90},
		{Query: "q5", Nodes: 1, Parallelism: 1, BarrierIntervalMS: 60000, EventsPerSecPerCore: 100},
		{Query: "q5", Nodes: 1, Parallelism: 1, BarrierIntervalMS: 60000, EventsPerSecPerCore: 100},
		{Query: "q5", Nodes: 1, Parallelism: 1, BarrierIntervalMS: 1000, EventsPerSecPerCore: 94},
		{Query: "q7", Nodes: 1, Parallelism: 1, BarrierIntervalMS: 1000, EventsPerSecPerCore: 80},
		{Query: "q0", Nodes: 1, Parallelism: 1, EventsPerSecPerCore: 500},
	}
	var b strings.Builder
	writeCheckpointCost(&b, results)
	want := "q5 nodes=1, p=1: checkpoints every 1000 ms cost +8.0% events/s per busy core against every 60000 ms (means of 2 and 2 runs: 92 and 100)\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
