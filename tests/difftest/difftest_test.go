package difftest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/tests/testkit"
)

// ciSeeds are the seeds `go test` runs (about a minute on two cores).
const ciSeeds = "1-12"

var (
	flagSeeds    = flag.String("difftest.seeds", ciSeeds, "seeds to run: numbers and ranges, e.g. 1-20,35")
	flagDuration = flag.Duration("difftest.duration", 0, "if set, run seeds upward from the first of -difftest.seeds for this long")
	flagPG       = flag.String("difftest.pg", "", "PostgreSQL 15 connection string (default: a private cluster started with initdb)")
	flagSDB      = flag.String("difftest.streamdb", "", "streamdb connection string (default: an in-process node)")
	flagBin      = flag.String("difftest.bin", "", "streamdb binary to run as a child process, restarted when it crashes (default: an in-process node)")
	flagQueries  = flag.Int("difftest.queries", 0, "queries per seed (default 30)")
	flagViews    = flag.Int("difftest.views", 0, "views per seed (default 6)")
	flagReduce   = flag.Int("difftest.reduce", 150, "statements one minimization may try (0: none)")
	flagReport   = flag.String("difftest.report", "", "also write the report to this file")
)

// TestAgainstPostgres checks the generator's SQL on PostgreSQL, then runs
// the seeds on streamdb and PostgreSQL and fails on every difference of
// high severity not in known_differences.txt. Both share one PostgreSQL
// server.
func TestAgainstPostgres(t *testing.T) {
	pg := *flagPG
	if pg == "" {
		pg = testkit.StartPostgres(t)
	}
	t.Run("Generator", func(t *testing.T) { testGenerator(t, pg) })
	t.Run("Differential", func(t *testing.T) { testDifferential(t, pg) })
}

// testDifferential runs the seeds.
func testDifferential(t *testing.T, pg string) {
	ctx := context.Background()
	seeds, err := parseSeeds(*flagSeeds)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{PostgresDSN: pg, Queries: *flagQueries, Views: *flagViews, ReduceSteps: *flagReduce, Logf: t.Logf}
	cfg.StreamdbDSN, cfg.Restart = startStreamdb(t)
	ru, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ru.Close()
	if err := ru.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	if *flagDuration > 0 {
		deadline := time.Now().Add(*flagDuration)
		for seed := seeds[0]; time.Now().Before(deadline); seed++ {
			runSeed(t, ru, seed)
		}
	} else {
		for _, seed := range seeds {
			runSeed(t, ru, seed)
		}
	}
	report := ru.Report()
	t.Log("\n" + report)
	if *flagReport != "" {
		if err := os.WriteFile(*flagReport, []byte(report), 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, f := range ru.Unexpected() {
		t.Errorf("seed %d: a difference not in known_differences.txt (reproduction in the report above): %s", f.Seed, f.Signature)
	}
}

func runSeed(t *testing.T, ru *Runner, seed uint64) {
	t.Helper()
	if err := ru.Seed(context.Background(), seed); err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, ru.Report())
	}
}

// startStreamdb returns the connection string of the streamdb server to
// test and a function that starts a new one: the server given (which
// cannot restart), a child process of -difftest.bin, or an in-process
// node.
func startStreamdb(t *testing.T) (string, func() (string, error)) {
	switch {
	case *flagSDB != "":
		return *flagSDB, nil
	case *flagBin != "":
		var srv *benchkit.Server
		start := func() (string, error) {
			if srv != nil {
				_ = srv.Stop()
			}
			var err error
			srv, err = benchkit.StartServer(context.Background(), *flagBin, 2, 1000)
			if err != nil {
				return "", err
			}
			return srv.ConnString(), nil
		}
		dsn, err := start()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Stop() })
		return dsn, start
	}
	start := func() (string, error) { return testkit.ConnString(testkit.StartNode(t).Addr()), nil }
	dsn, _ := start()
	return dsn, start
}

// parseSeeds reads "1-20,35".
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("seeds %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a {
				return nil, fmt.Errorf("seeds %q: bad range %q", s, part)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}
