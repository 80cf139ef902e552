package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/streamdb/streamdb/bench/nexmarkbench"
	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/bench/rescalebench"
	"github.com/streamdb/streamdb/bench/tpchbench"
	"github.com/streamdb/streamdb/bench/writebench"
)

// runBench runs `streamdb bench WORKLOAD [flags]`.
func runBench(args []string) error {
	var run func(ctx context.Context, bin string) error
	var err error
	switch {
	case len(args) > 0 && args[0] == "nexmark":
		var cfg nexmarkbench.Config
		cfg, err = parseBenchNexmark(args[1:], os.Stderr)
		run = func(ctx context.Context, bin string) error {
			cfg.Binary, cfg.Out, cfg.Err = bin, os.Stdout, os.Stderr
			_, err := nexmarkbench.Run(ctx, cfg)
			return err
		}
	case len(args) > 0 && args[0] == "rescale":
		var cfg rescalebench.Config
		cfg, err = parseBenchRescale(args[1:], os.Stderr)
		run = func(ctx context.Context, bin string) error {
			cfg.Binary, cfg.Out, cfg.Err = bin, os.Stdout, os.Stderr
			_, err := rescalebench.Run(ctx, cfg)
			return err
		}
	case len(args) > 0 && args[0] == "tpch":
		var cfg tpchbench.Config
		cfg, err = parseBenchTPCH(args[1:], os.Stderr)
		run = func(ctx context.Context, bin string) error {
			cfg.Binary, cfg.Out, cfg.Err = bin, os.Stdout, os.Stderr
			_, err := tpchbench.Run(ctx, cfg)
			return err
		}
	case len(args) > 0 && args[0] == "writers":
		var cfg writebench.Config
		cfg, err = parseBenchWriters(args[1:], os.Stderr)
		run = func(ctx context.Context, bin string) error {
			cfg.Binary, cfg.Out, cfg.Err = bin, os.Stdout, os.Stderr
			_, err := writebench.Run(ctx, cfg)
			return err
		}
	default:
		return errors.New("bench: name a benchmark: streamdb bench nexmark|rescale|tpch|writers [flags] (see streamdb bench NAME --help)")
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: find the streamdb binary to start servers from: %w", err)
	}
	// Ctrl-C stops the run: servers are shut down, the report is written.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, bin)
}

// parseBenchWriters reads the flags of `streamdb bench writers`; usage and
// flag errors go to errOut.
func parseBenchWriters(args []string, errOut io.Writer) (writebench.Config, error) {
	var cfg writebench.Config
	fs := flag.NewFlagSet("bench writers", flag.ContinueOnError)
	fs.SetOutput(errOut)
	writers := fs.String("writers", "1,16", "comma-separated numbers of concurrent clients to run, each client doing single-row INSERTs")
	fs.IntVar(&cfg.Nodes, "nodes", 1, "node processes of the cluster (the writers spread over them)")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long the writers write, per number of writers and system")
	fs.IntVar(&cfg.BarrierMS, "barrier-interval-ms", 1000, "milliseconds between periodic barriers")
	postgres := fs.String("postgres", "auto", "compare with PostgreSQL (a row-level trigger upserting the aggregate): auto (when its server binaries are installed), on or off")
	fs.StringVar(&cfg.JSON, "json", "", "write the results as a JSON array to this file")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "Usage: streamdb bench writers [flags]\n\nRuns concurrent single-row INSERTs into a table an aggregating view reads, on a fresh server and beside it on PostgreSQL, and reports rows/s and acknowledgement latency.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("bench writers: unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if cfg.Nodes < 1 {
		return cfg, fmt.Errorf("bench writers: --nodes must be at least 1, not %d", cfg.Nodes)
	}
	if err := checkBarrierInterval("bench writers", cfg.BarrierMS); err != nil {
		return cfg, err
	}
	var err error
	if cfg.Postgres, err = pgbaseline.ParseUse(*postgres); err != nil {
		return cfg, fmt.Errorf("bench writers: %w", err)
	}
	cfg.Writers, err = parsePositives("bench writers", "writers", *writers)
	return cfg, err
}

// parseBenchNexmark reads the flags of `streamdb bench nexmark`; usage and
// flag errors go to errOut.
func parseBenchNexmark(args []string, errOut io.Writer) (nexmarkbench.Config, error) {
	fs := flag.NewFlagSet("bench nexmark", flag.ContinueOnError)
	fs.SetOutput(errOut)
	queries := fs.String("queries", "all", "comma-separated queries to run (q0,q5 or 0,5), or all")
	events := fs.Int64("events", 1_000_000, "Nexmark events per run (nexmark.event.num: people, auctions and bids together)")
	parallelism := fs.String("parallelism", "1", "comma-separated parallelisms to run each query at (actors per fragment and source splits)")
	jsonPath := fs.String("json", "", "also write the results to this file as a JSON array")
	barrierMS := fs.String("barrier-interval-ms", "1000", "the servers' milliseconds between checkpoint barriers; several, comma-separated (1000,60000,60000,1000), run each query at each in turn and compare the shortest with the longest: what checkpoints cost")
	postgres := fs.String("postgres", "auto", "compare with PostgreSQL: auto (when its server binaries are installed), on or off")
	watermark := fs.Duration("watermark", 0, "declare WATERMARK FOR date_time AS date_time - this on the sources (RisingWave's benchmark: 4s; 0: none)")
	cpuProfiles := fs.String("cpuprofile-dir", "", "write a CPU profile of each query run's servers into this directory (q5-n3-p2-node1.prof: q5 on 3 nodes at parallelism 2, node n1's)")
	nodes := fs.String("nodes", "1", "comma-separated cluster sizes to run each query on (node processes; CPU time and peak memory are summed over them), e.g. 1,3")
	metricsModes := fs.String("metrics", "on", "comma-separated metrics modes to run each query in: on (the servers serve /metrics, scraped every second) or off (--http-addr ''); on,off measures what metrics cost")
	scrapeDir := fs.String("scrape-dir", "", "write node 1's /metrics scrapes of the runs with metrics on into this directory (q5-n1-p2-007.prom: 7 seconds in)")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "Usage: streamdb bench nexmark [flags]\n\nRuns each Nexmark query as a materialized view on a fresh server and reports its throughput.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nexmarkbench.Config{}, err
	}
	if fs.NArg() > 0 {
		return nexmarkbench.Config{}, fmt.Errorf("bench nexmark: unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	cfg := nexmarkbench.Config{Events: *events, JSON: *jsonPath,
		Watermark: *watermark, CPUProfileDir: *cpuProfiles, ScrapeDir: *scrapeDir}
	if cfg.Watermark < 0 {
		return cfg, fmt.Errorf("bench nexmark: --watermark must not be negative, not %v", cfg.Watermark)
	}
	if cfg.Events < 1 {
		return cfg, fmt.Errorf("bench nexmark: --events must be at least 1, not %d", cfg.Events)
	}
	intervals, err := parsePositives("bench nexmark", "barrier-interval-ms", *barrierMS)
	if err != nil {
		return cfg, err
	}
	for _, ms := range intervals {
		if err := checkBarrierInterval("bench nexmark", ms); err != nil {
			return cfg, err
		}
	}
	cfg.BarrierIntervalMS = intervals[0]
	if len(intervals) > 1 {
		cfg.CheckpointIntervalsMS = intervals
	}
	if cfg.Postgres, err = pgbaseline.ParseUse(*postgres); err != nil {
		return cfg, fmt.Errorf("bench nexmark: %w", err)
	}
	if cfg.Queries, err = parseQueries(*queries); err != nil {
		return cfg, err
	}
	if cfg.Parallelism, err = parsePositives("bench nexmark", "parallelism", *parallelism); err != nil {
		return cfg, err
	}
	if cfg.Nodes, err = parsePositives("bench nexmark", "nodes", *nodes); err != nil {
		return cfg, err
	}
	for _, m := range strings.Split(*metricsModes, ",") {
		if m = strings.TrimSpace(m); m != "on" && m != "off" {
			return cfg, fmt.Errorf("bench nexmark: --metrics takes on, off or on,off, not %q", *metricsModes)
		}
		cfg.Metrics = append(cfg.Metrics, strings.TrimSpace(m))
	}
	if len(cfg.Metrics) == 1 && cfg.Metrics[0] == "on" {
		cfg.Metrics = nil // the default: the table names no mode
	}
	return cfg, nil
}

// parseBenchTPCH reads the flags of `streamdb bench tpch`; usage and flag
// errors go to errOut.
func parseBenchTPCH(args []string, errOut io.Writer) (tpchbench.Config, error) {
	fs := flag.NewFlagSet("bench tpch", flag.ContinueOnError)
	fs.SetOutput(errOut)
	cfg := tpchbench.Config{}
	fs.Float64Var(&cfg.Scale, "scale", 0.1, "TPC-H scale factor (0.1: 150,000 orders and 600,000 lineitems)")
	queries := fs.String("queries", "all", "comma-separated queries to run (q1,q5), or all")
	fs.IntVar(&cfg.Parallelism, "parallelism", 0, "actors per fragment of each view (0: the machine's cores)")
	fs.IntVar(&cfg.BarrierIntervalMS, "barrier-interval-ms", 1000, "the server's milliseconds between checkpoint barriers")
	postgres := fs.String("postgres", "auto", "run PostgreSQL beside streamdb: auto (when its server binaries are installed) or off")
	fs.StringVar(&cfg.JSON, "json", "", "also write the results to this file as a JSON array")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "Usage: streamdb bench tpch [flags]\n\nLoads TPC-H, creates each query as a materialized view and applies a round of the refresh functions, timing both beside PostgreSQL.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("bench tpch: unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	if cfg.Scale <= 0 || cfg.Scale > 100 {
		return cfg, fmt.Errorf("bench tpch: --scale must be above 0 and at most 100, not %g", cfg.Scale)
	}
	if cfg.Parallelism < 0 {
		return cfg, fmt.Errorf("bench tpch: --parallelism must not be negative, not %d", cfg.Parallelism)
	}
	if err := checkBarrierInterval("bench tpch", cfg.BarrierIntervalMS); err != nil {
		return cfg, err
	}
	switch *postgres {
	case "auto":
		cfg.Postgres = true
	case "off":
	default:
		return cfg, fmt.Errorf("bench tpch: --postgres must be auto or off, not %q", *postgres)
	}
	if q := strings.TrimSpace(*queries); q != "all" {
		for _, name := range strings.Split(q, ",") {
			name = strings.TrimSpace(name)
			if !strings.HasPrefix(name, "q") {
				name = "q" + name
			}
			n, err := strconv.Atoi(name[1:])
			if err != nil || n < 1 || n > 22 {
				return cfg, fmt.Errorf("bench tpch: no query %q in --queries; the queries are q1 to q22 (or all)", name)
			}
			cfg.Queries = append(cfg.Queries, name)
		}
	}
	return cfg, nil
}

// checkBarrierInterval checks the --barrier-interval-ms of benchmark
// bench.
func checkBarrierInterval(bench string, ms int) error {
	if ms < 10 || ms > 3600000 {
		return fmt.Errorf("%s: --barrier-interval-ms must be from 10 to 3600000, not %d", bench, ms)
	}
	return nil
}

// parseQueries reads --queries: "all" or names separated by commas.
func parseQueries(s string) ([]nexmarkbench.Query, error) {
	if strings.TrimSpace(s) == "all" {
		return nexmarkbench.Queries, nil
	}
	var out []nexmarkbench.Query
	for _, name := range strings.Split(s, ",") {
		q, ok := nexmarkbench.Lookup(strings.TrimSpace(name))
		if !ok {
			names := make([]string, len(nexmarkbench.Queries))
			for i, q := range nexmarkbench.Queries {
				names[i] = q.Name
			}
			return nil, fmt.Errorf("bench nexmark: no query %q in --queries; the queries are %s (or all)", name, strings.Join(names, ","))
		}
		out = append(out, q)
	}
	return out, nil
}

// parsePositives reads bench's list flag (--parallelism, --writers): positive
// numbers separated by commas.
func parsePositives(bench, flag, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || p < 1 {
			return nil, fmt.Errorf("%s: --%s takes positive numbers separated by commas (1,2), not %q", bench, flag, s)
		}
		out = append(out, p)
	}
	return out, nil
}
