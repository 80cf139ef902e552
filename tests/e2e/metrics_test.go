package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/streamdb/streamdb/tests/testkit"
)

// scrape reads the process's /metrics.
func scrape(t *testing.T, p *process) map[string]*dto.MetricFamily {
	t.Helper()
	body, code := httpGet(t, "http://"+p.httpAddr()+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: status %d: %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return families
}

func httpGet(t *testing.T, url string) (string, int) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.StatusCode
}

// sum adds the values of family name's metrics whose labels include
// labels (counters, gauges, and histograms' counts).
func sum(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := families[name]
	if f == nil {
		return 0
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		match := 0
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; ok && v == l.GetValue() {
				match++
			}
		}
		if match < len(labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// TestMetricsMove runs a view and rescales it on a node with JSON logs,
// scraping /metrics before and after: the view's rows, the rescale's
// vnodes and steps, the statements by kind and class and the barriers
// move; /healthz and /readyz answer; the DDL has its log line.
func TestMetricsMove(t *testing.T) {
	p := startProcess(t, t.TempDir(), freeAddr(t), "--log-format", "json")
	defer p.kill()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.ConnString(p.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range []string{
		"CREATE TABLE m (id INT PRIMARY KEY, k INT)",
		"CREATE MATERIALIZED VIEW mk WITH (parallelism = 2) AS SELECT k, count(*) AS n FROM m GROUP BY k",
		"INSERT INTO m SELECT g, g % 50 FROM generate_series(1, 2000) g",
	} {
		mustExec(t, conn, s)
	}
	if body, code := httpGet(t, "http://"+p.httpAddr()+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	if body, code := httpGet(t, "http://"+p.httpAddr()+"/readyz"); code != http.StatusOK || !strings.Contains(body, "ready") {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	before := scrape(t, p)

	if _, err := conn.Exec(ctx, "SELECT * FROM no_such_relation"); err == nil {
		t.Fatal("a query of a missing relation succeeded")
	}
	for _, s := range []string{
		"INSERT INTO m SELECT g, g % 50 FROM generate_series(2001, 4000) g",
		"ALTER MATERIALIZED VIEW mk SET PARALLELISM = 3",
		"INSERT INTO m SELECT g, g % 50 FROM generate_series(4001, 6000) g",
		"FLUSH",
	} {
		mustExec(t, conn, s)
	}
	after := scrape(t, p)

	view := map[string]string{"job": "mk"}
	moved := []struct {
		name   string
		labels map[string]string
	}{
		{"streamdb_fragment_rows_in_total", view},
		{"streamdb_fragment_rows_out_total", view},
		{"streamdb_rescale_vnodes_moved_total", nil},
		{"streamdb_rescale_steps_total", nil},
		{"streamdb_rescale_step_pause_seconds", nil},
		{"streamdb_statements_total", map[string]string{"kind": "insert", "class": "00"}},
		{"streamdb_statements_total", map[string]string{"kind": "ddl", "class": "00"}},
		{"streamdb_statements_total", map[string]string{"kind": "select", "class": "42"}},
		{"streamdb_barrier_latency_seconds", nil},
		{"streamdb_checkpoint_commit_latency_seconds", nil},
		{"streamdb_committed_epoch", nil},
		{"streamdb_pebble_wal_bytes_written_total", nil},
	}
	for _, m := range moved {
		b, a := sum(before, m.name, m.labels), sum(after, m.name, m.labels)
		t.Logf("%s%v: %v before, %v after", m.name, m.labels, b, a)
		if a <= b {
			t.Errorf("%s%v did not move: %v before, %v after", m.name, m.labels, b, a)
		}
	}
	for _, name := range []string{"streamdb_state_cache_bytes", "streamdb_exchange_queue_messages", "streamdb_pebble_level_bytes",
		"streamdb_epoch_commit_lag_seconds", "streamdb_rescale_progress_vnodes", "streamdb_connections", "streamdb_connections_total", "go_goroutines"} {
		if after[name] == nil {
			t.Errorf("/metrics has no %s", name)
		}
	}

	var ddl map[string]any
	for _, line := range strings.Split(p.output(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "ddl" && rec["object"] == "mk" {
			ddl = rec
		}
	}
	if ddl == nil || ddl["command"] == nil || ddl["user"] != "tester" {
		t.Errorf("no JSON log line of the view's DDL with its command and user; logs:\n%s", p.output())
	}
}
