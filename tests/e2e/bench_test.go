package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBenchNexmark runs `streamdb bench nexmark` on a small input and
// checks its JSON report: the generator-only rate and one row per query,
// every figure present and positive.
func TestBenchNexmark(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nexmark.json")
	cmd := exec.Command(binary(t), "bench", "nexmark", "--events", "20000", "--queries", "q0,q1", "--parallelism", "1", "--json", path, "--postgres", "off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bench nexmark: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var queries []string
	for _, row := range rows {
		q, _ := row["query"].(string)
		queries = append(queries, q)
		fields := []string{"parallelism", "events", "events_per_sec", "events_per_sec_per_core", "peak_rss_bytes"}
		if q != "generator" {
			// The generator runs without a server: no barriers, no view.
			fields = append(fields, "barrier_p50_ms", "barrier_p99_ms", "rows")
		}
		for _, f := range fields {
			if v, ok := row[f].(float64); !ok || v <= 0 {
				t.Errorf("%s: field %s = %v, want a positive number", q, f, row[f])
			}
		}
		if row["events"] != 20000.0 {
			t.Errorf("%s: events = %v, want 20000", q, row["events"])
		}
	}
	if len(queries) != 3 || queries[0] != "generator" || queries[1] != "q0" || queries[2] != "q1" {
		t.Errorf("queries %v, want [generator q0 q1]\n%s", queries, out)
	}
}
