package metrics

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/latency"
	"github.com/streamdb/streamdb/pgwire"
)

type fakeStreaming struct{ st control.Stats }

func (f fakeStreaming) Stats() control.Stats { return f.st }
func (f fakeStreaming) RescaleJobs() []control.RescaleProgress {
	return []control.RescaleProgress{{Name: "mv", Phase: "moving", VNodesMoved: 64, VNodesTotal: 128}}
}

type fakeStore struct{}

func (fakeStore) PebbleMetrics() *pebble.Metrics {
	m := &pebble.Metrics{}
	m.Levels[6].TablesSize = 4096
	m.Levels[0].TableBytesFlushed, m.Levels[6].TableBytesCompacted = 3000, 5000
	m.WAL.BytesWritten = 1000
	return m
}

type fakeConns struct{}

func (fakeConns) Connections() (int, uint64) { return 2, 7 }

type fakeSplits struct{}

func (fakeSplits) SourceSplits() ([]control.SplitProgress, error) {
	return []control.SplitProgress{{Source: "bids", Split: 0, Offset: 123, Done: true}}, nil
}

func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	return getFrom(t, h, path, "127.0.0.1:40000")
}

// getFrom is get from a client at remote.
func getFrom(t *testing.T, h http.Handler, path, remote string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.RemoteAddr = remote
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	return rec.Code, string(body)
}

func TestHandler(t *testing.T) {
	var pauses latency.Histogram
	pauses.Record(40 * time.Millisecond)
	st := control.Stats{
		Fragments: []control.FragmentStats{{Name: "mv", FragmentRows: dataflow.FragmentRows{Job: 3, Fragment: 1, In: 1000, Out: 10, Queued: 2, Capacity: 32}}},
		Committed: 42, CommittedAge: 1500 * time.Millisecond, CacheUsed: 1 << 20, CacheHits: 90, CacheMisses: 10, VersionsCollected: 7, CollectHorizon: 40,
		Steps: control.StepTotals{Steps: 1, VNodes: 64, Bytes: 1 << 20, Pauses: pauses},
	}
	stmts := NewStatements(slog.New(slog.DiscardHandler), 0)
	stmts.OnStatement(pgwire.StatementDone{Text: "SELECT 1", Tag: "SELECT 1"})
	reg := NewRegistry(Sources{Streaming: fakeStreaming{st}, Store: fakeStore{}, Conns: fakeConns{}, Splits: fakeSplits{}}, stmts)
	notReady := errors.New("the cluster's jobs are not running yet")
	ready := error(notReady)
	h := reg.Handler(func(context.Context) error { return ready })

	if code, body := get(t, h, "/healthz"); code != http.StatusOK || body != "ok\n" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, h, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, notReady.Error()) {
		t.Errorf("/readyz while not ready = %d %q, want 503 with the reason", code, body)
	}
	ready = nil
	if code, body := get(t, h, "/readyz"); code != http.StatusOK || body != "ready\n" {
		t.Errorf("/readyz once ready = %d %q, want 200 ready", code, body)
	}
	code, body := get(t, h, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics = %d", code)
	}
	for _, line := range []string{
		`streamdb_fragment_rows_in_total{fragment="1",job="mv"} 1000`,
		`streamdb_fragment_rows_out_total{fragment="1",job="mv"} 10`,
		`streamdb_exchange_queue_messages{fragment="1",job="mv"} 2`,
		`streamdb_committed_epoch 42`,
		`streamdb_epoch_commit_lag_seconds 1.5`,
		`streamdb_state_cache_hits_total 90`,
		`streamdb_state_cache_misses_total 10`,
		`streamdb_state_versions_collected_total 7`,
		`streamdb_state_collect_horizon_epoch 40`,
		`streamdb_rescale_vnodes_moved_total 64`,
		`streamdb_rescale_step_pause_seconds_bucket{le="0.05"} 1`,
		`streamdb_rescale_step_pause_seconds_bucket{le="0.02"} 0`,
		`streamdb_rescale_progress_vnodes{job="mv",state="moved"} 64`,
		`streamdb_rescale_in_progress{job="mv"} 1`,
		`streamdb_source_split_offset{source="bids",split="0"} 123`,
		`streamdb_source_split_done{source="bids",split="0"} 1`,
		`streamdb_connections 2`,
		`streamdb_connections_total 7`,
		`streamdb_pebble_level_bytes{level="6"} 4096`,
		`streamdb_pebble_wal_bytes_written_total 1000`,
		`streamdb_pebble_level_written_bytes_total{level="0"} 3000`,
		`streamdb_pebble_level_written_bytes_total{level="6"} 5000`,
		`# HELP streamdb_barrier_latency_seconds Time from a barrier's injection`,
		`streamdb_statements_total{class="00",kind="select"} 1`,
	} {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	for _, tc := range []struct {
		path, remote string
		code         int
	}{
		{"/debug/pprof/", "127.0.0.1:40000", http.StatusOK},
		{"/debug/pprof/cmdline", "[::1]:40000", http.StatusOK},
		{"/debug/pprof/", "192.0.2.1:1234", http.StatusForbidden},
		{"/debug/pprof/profile?seconds=1", "10.0.0.1:1234", http.StatusForbidden},
		{"/debug/pprof/trace", "[2001:db8::1]:1234", http.StatusForbidden},
		{"/metrics", "192.0.2.1:1234", http.StatusOK},
	} {
		if code, _ := getFrom(t, h, tc.path, tc.remote); code != tc.code {
			t.Errorf("%s from %s = %d, want %d", tc.path, tc.remote, code, tc.code)
		}
	}
}
