package pgbaseline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/node"
)

// TestWorkloadsAgree runs each workload by each feed in every mode on a few
// thousand bids (streamdb in process, PostgreSQL from its installed server
// binaries) and checks that the results agree and the figures are filled.
func TestWorkloadsAgree(t *testing.T) {
	bin := Binaries()
	if bin == "" {
		t.Fatal("PostgreSQL's server binaries are not installed: install them (Debian: apt-get install postgresql); .ci/run does")
	}
	ctx := context.Background()
	pg, err := Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := pg.Stop(); err != nil {
			t.Error(err)
		}
	})
	const events = 5000
	for _, how := range Feeds {
		opts := Options{Events: events, Feed: how, Batch: 300, RefreshInterval: 50 * time.Millisecond}
		for _, w := range Workloads {
			var runs []Result
			for _, mode := range Modes {
				var conn string
				if mode == Streamdb {
					n, err := node.Start(node.Config{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { n.Close() })
					conn = fmt.Sprintf("postgres://test@%s/streamdb?sslmode=disable", n.Addr())
				} else if conn, err = pg.CreateDatabase(ctx, strings.Join([]string{w.Name, string(how), strings.ReplaceAll(string(mode), "-", "_")}, "_")); err != nil {
					t.Fatal(err)
				}
				r, err := Run(ctx, conn, mode, w, opts)
				if err != nil {
					t.Fatal(err)
				}
				if r.Bids != Bids(events) || r.BidsPerSec() <= 0 || r.Digest.Rows == 0 {
					t.Errorf("%s by %s %s: %d bids (want %d) at %.0f/s, %d result rows", w.Name, how, mode, r.Bids, Bids(events), r.BidsPerSec(), r.Digest.Rows)
				}
				if mode == Refresh && (r.Refreshes == 0 || r.MaxStaleness <= 0) {
					t.Errorf("%s by %s: %d refreshes, worst staleness %v", w.Name, how, r.Refreshes, r.MaxStaleness)
				}
				runs = append(runs, r)
			}
			if err := Check(runs); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestCheckReportsDifferences(t *testing.T) {
	same := []Result{{Mode: Streamdb, Digest: Digest{3, 7}}, {Mode: Trigger, Digest: Digest{3, 7}}}
	if err := Check(same); err != nil {
		t.Errorf("equal digests: %v", err)
	}
	differ := append(same, Result{Workload: "q1", Feed: Copy, Mode: Refresh, Digest: Digest{3, 8}})
	if err := Check(differ); err == nil || !strings.Contains(err.Error(), "the results of workload q1 fed by copy differ") {
		t.Errorf("different digests: %v", err)
	}
}

func TestBids(t *testing.T) {
	for events, want := range map[int64]int64{1: 0, 4: 0, 5: 1, 50: 46, 1000: 920, 1_000_000: 920_000} {
		if got := Bids(events); got != want {
			t.Errorf("Bids(%d) = %d, want %d", events, got, want)
		}
	}
}
