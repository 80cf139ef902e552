package nexmarkbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/bench/benchkit"
	"github.com/streamdb/streamdb/bench/pgbaseline"
	"github.com/streamdb/streamdb/connector/nexmark"
)

// Config configures a benchmark run.
type Config struct {
	// Binary is the streamdb binary each query run starts as a server.
	Binary string
	// Queries are the queries to run, in order.
	Queries []Query
	// Events is nexmark.event.num of every source: events of all three
	// kinds, of which each source keeps its own.
	Events int64
	// Parallelism lists the parallelisms to run each query at: the
	// server's actors per fragment and the sources' splits.
	Parallelism []int
	// BarrierIntervalMS is the servers' barrier interval.
	BarrierIntervalMS int
	// CheckpointIntervalsMS, if set, lists barrier intervals to run each
	// query at in turn instead (repeats allowed: 1000,60000,60000,1000
	// alternates), and the report compares the shortest with the longest:
	// what checkpoints cost.
	CheckpointIntervalsMS []int
	// Nodes lists the cluster sizes to run each query on (default 1):
	// node processes started as one cluster, whose CPU time and peak
	// memory are summed.
	Nodes []int
	// Watermark, if positive, is how far the sources' watermark on
	// date_time stays behind it (SourceOptions.Watermark).
	Watermark time.Duration
	// CPUProfileDir, if set, receives a CPU profile of each query run's
	// servers, named like q5-n3-p2-node1.prof (go tool pprof reads them).
	CPUProfileDir string
	// Postgres says whether to run the PostgreSQL comparison.
	Postgres pgbaseline.Use
	// Metrics lists the metrics modes to run each query in, in turn:
	// "on" (the servers' HTTP listener on, /metrics scraped every
	// scrapeInterval) or "off" (--http-addr ''); default on, unscraped
	// unless ScrapeDir is set.
	Metrics []string
	// ScrapeDir, if set, receives node 1's scrapes of the runs with
	// metrics on, named like q5-n1-p2-007.prom (the 7th second).
	ScrapeDir string
	// JSON is the path of the JSON report; empty for none.
	JSON string
	// Out receives the summary table, Err the progress and notes.
	Out, Err io.Writer
}

// pollEvery is how often a run reads the sources' committed offsets.
const pollEvery = 50 * time.Millisecond

// stallTimeout is how long a run may go without committed progress
// before it is given up.
const stallTimeout = 2 * time.Minute

// Run runs the benchmark: the generator-only rate, then each query at each
// parallelism on a fresh server, then the PostgreSQL comparison; it prints
// the summary table and writes the JSON report, also when a run failed or
// ctx ended (then with the results so far). Queries whose view cannot be
// created are reported as skipped; other failures make Run return an
// error once everything is reported.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	var results []Result
	var failed []string
	fail := func(what string, err error) {
		failed = append(failed, what)
		fmt.Fprintf(cfg.Err, "%s failed: %v\n", what, err)
	}
	for _, dir := range []string{cfg.CPUProfileDir, cfg.ScrapeDir} {
		if dir == "" {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("bench nexmark: %w", err)
		}
	}
	for _, p := range cfg.Parallelism {
		r, err := generatorRate(cfg.Events, p)
		if err != nil {
			return nil, fmt.Errorf("generator: %w", err)
		}
		results = append(results, r)
	}
	nodes := cfg.Nodes
	if len(nodes) == 0 {
		nodes = []int{1}
	}
	modes := cfg.Metrics
	if len(modes) == 0 {
		modes = []string{metricsOn}
	}
	intervals := cfg.CheckpointIntervalsMS
	if len(intervals) == 0 {
		intervals = []int{cfg.BarrierIntervalMS}
	}
	for _, q := range cfg.Queries {
		for _, n := range nodes {
			for _, p := range cfg.Parallelism {
				for _, mode := range modes {
					for _, interval := range intervals {
						if ctx.Err() != nil {
							break
						}
						run := cfg
						run.BarrierIntervalMS = interval
						r, err := runQuery(ctx, run, q, n, p, mode)
						if len(cfg.CheckpointIntervalsMS) > 0 {
							r.BarrierIntervalMS = interval
						}
						if err != nil && ctx.Err() == nil {
							fail(fmt.Sprintf("%s (nodes=%d, p=%d, metrics %s, barriers every %d ms)", q.Name, n, p, mode, interval), err)
							r.Skipped = "failed: " + err.Error()
						}
						if ctx.Err() == nil {
							results = append(results, r)
						}
					}
				}
			}
		}
	}
	// The comparison's lines follow the table.
	var comparison bytes.Buffer
	if ctx.Err() == nil {
		pg, err := comparePostgres(ctx, cfg, &comparison)
		results = append(results, pg...)
		if err != nil && ctx.Err() == nil {
			fail("PostgreSQL comparison", err)
		}
	}
	if err := writeTable(cfg.Out, results); err != nil {
		return results, err
	}
	if _, err := comparison.WriteTo(cfg.Out); err != nil {
		return results, err
	}
	if cfg.JSON != "" {
		if err := benchkit.WriteJSON(cfg.JSON, results); err != nil {
			return results, err
		}
	}
	if err := ctx.Err(); err != nil {
		return results, fmt.Errorf("interrupted: the report holds the runs that finished (%w)", err)
	}
	if len(failed) > 0 {
		return results, fmt.Errorf("%d run(s) failed: %v; see the errors above", len(failed), failed)
	}
	return results, nil
}

// runQuery runs q at parallelism p on a fresh cluster of n nodes: it creates the
// sources q reads and q's view, waits until every split's last offset is
// committed, and measures. A view that cannot be created makes a result
// with Skipped set, not an error.
func runQuery(ctx context.Context, cfg Config, q Query, n, p int, mode string) (r Result, err error) {
	r = Result{Query: q.Name, Nodes: n, Parallelism: p, Events: cfg.Events}
	if len(cfg.Metrics) > 0 {
		r.Metrics = mode
	}
	extra := func(node int) []string {
		var flags []string
		if cfg.CPUProfileDir != "" {
			flags = append(flags, "--cpuprofile", filepath.Join(cfg.CPUProfileDir, fmt.Sprintf("%s-n%d-p%d-node%d.prof", q.Name, n, p, node)))
		}
		if mode == metricsOff {
			flags = append(flags, "--http-addr", "")
		}
		return flags
	}
	servers, err := benchkit.StartCluster(ctx, cfg.Binary, n, p, cfg.BarrierIntervalMS, extra)
	if err != nil {
		return r, err
	}
	defer func() {
		for _, s := range servers {
			err = errors.Join(err, s.Stop())
		}
	}()
	srv := servers[0]
	if mode == metricsOn && srv.HTTPAddr() != "" && (len(cfg.Metrics) > 0 || cfg.ScrapeDir != "") {
		stop := scrapeEvery(srv.HTTPAddr(), cfg.ScrapeDir, fmt.Sprintf("%s-n%d-p%d", q.Name, n, p))
		defer func() { err = errors.Join(err, stop()) }()
	}
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return r, fmt.Errorf("connect to the server: %w", err)
	}
	defer conn.Close(context.Background())
	for _, table := range q.Tables {
		if _, err := conn.Exec(ctx, DDL("SOURCE", table, SourceOptions{Events: cfg.Events, Splits: p, Watermark: cfg.Watermark})); err != nil {
			return r, fmt.Errorf("create source %s: %w", table, err)
		}
	}
	for _, stmt := range q.Setup {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return r, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	cpu0, err := clusterCPU(servers)
	if err != nil {
		return r, err
	}
	start := time.Now()
	if _, err := conn.Exec(ctx, q.CreateView()); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			r.Skipped = fmt.Sprintf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
			return r, nil
		}
		return r, fmt.Errorf("create the view: %w", err)
	}
	bar := benchkit.NewProgress(cfg.Err, fmt.Sprintf("%s nodes=%d p=%d", q.Name, n, p), "events")
	samples := []progressSample{{cpu: cpu0}}
	err = waitDone(ctx, conn, srv, bar, q, cfg.Events, start, func(done int64) error {
		cpu, err := clusterCPU(servers)
		samples = append(samples, progressSample{events: done, cpu: cpu})
		return err
	})
	bar.Finish()
	if err != nil {
		return r, err
	}
	elapsed := time.Since(start)
	cpu1, err := clusterCPU(servers)
	if err != nil {
		return r, err
	}
	samples = append(samples, progressSample{events: cfg.Events, cpu: cpu1})
	r.FirstTenthPerCore, r.LastTenthPerCore = steadyRates(samples, cfg.Events)
	for _, s := range servers {
		rss, err := benchkit.PeakRSS(s.PID())
		if err != nil {
			return r, err
		}
		r.PeakRSSBytes += rss
	}
	if err := readBarrierLatency(ctx, conn, &r); err != nil {
		return r, err
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+q.ViewName()).Scan(&r.Rows); err != nil {
		return r, fmt.Errorf("count the view's rows: %w", err)
	}
	err = conn.QueryRow(ctx, "SELECT coalesce(sum(entries), 0) FROM streamdb_catalog.state_tables WHERE relation = $1", q.ViewName()).Scan(&r.StateEntries)
	if err != nil {
		return r, fmt.Errorf("count the view's state entries: %w", err)
	}
	r.Seconds = elapsed.Seconds()
	r.EventsPerSec = benchkit.PerSecond(cfg.Events, elapsed)
	r.EventsPerSecPerCore = benchkit.PerSecond(cfg.Events, cpu1-cpu0)
	return r, nil
}

// clusterCPU returns the CPU time the servers have used, summed.
func clusterCPU(servers []*benchkit.Server) (time.Duration, error) {
	var total time.Duration
	for _, s := range servers {
		t, err := benchkit.CPUTime(s.PID())
		if err != nil {
			return 0, err
		}
		total += t
	}
	return total, nil
}

// readBarrierLatency sets r's barrier latency figures from the server.
func readBarrierLatency(ctx context.Context, conn *pgx.Conn, r *Result) error {
	err := conn.QueryRow(ctx, "SELECT p50_ms, p99_ms FROM streamdb_catalog.barrier_latency").Scan(&r.BarrierP50Ms, &r.BarrierP99Ms)
	if err != nil {
		return fmt.Errorf("read the barrier latency: %w", err)
	}
	return nil
}

// minWindowCPU is the least CPU time a steady-state window must span for
// its rate to count: several barrier intervals of work.
const minWindowCPU = 5 * time.Second

// progressSample is the run's committed events and the servers' CPU time
// at one moment.
type progressSample struct {
	events int64
	cpu    time.Duration
}

// steadyRates returns the events per second of CPU time over the first
// and over the last tenth of a run's events, from its samples (in order,
// the first at the start and the last at the end): from the start to the
// first sample past a tenth, and from the last sample before nine tenths
// to the end. A query whose cost grows with the events it has seen (state
// that is never cleaned up, a cache that fills) shows a lower last rate.
// Committed events move once per checkpoint, so in a short run a window
// may be no sample's, or its events may have been worked on before it: a
// rate whose window spans more than a fifth of the events, or less than
// minWindowCPU of CPU time, is 0 (unknown).
func steadyRates(samples []progressSample, events int64) (first, last float64) {
	if len(samples) < 2 {
		return 0, 0
	}
	start, end := samples[0], samples[len(samples)-1]
	head, tail := end, start
	for _, s := range samples[1:] {
		if s.events >= events/10 {
			head = s
			break
		}
	}
	for _, s := range samples {
		if s.events <= events-events/10 {
			tail = s
		}
	}
	if head.events-start.events <= events/5 && head.cpu-start.cpu >= minWindowCPU {
		first = benchkit.PerSecond(head.events-start.events, head.cpu-start.cpu)
	}
	if end.events-tail.events <= events/5 && end.cpu-tail.cpu >= minWindowCPU {
		last = benchkit.PerSecond(end.events-tail.events, end.cpu-tail.cpu)
	}
	return first, last
}

// waitDone polls the sources' committed offsets, showing the progress and
// calling sample with each count of committed events, until every split of
// q's sources is done.
func waitDone(ctx context.Context, conn *pgx.Conn, srv *benchkit.Server, bar *benchkit.Progress, q Query, events int64, start time.Time, sample func(done int64) error) error {
	var last int64 = -1
	lastMove := time.Now()
	for {
		done, finished, err := committedEvents(ctx, conn, q, events)
		if err != nil {
			return err
		}
		bar.Update(done, events, time.Since(start))
		if err := sample(done); err != nil {
			return err
		}
		if finished {
			return nil
		}
		if done != last {
			last, lastMove = done, time.Now()
		} else if time.Since(lastMove) > stallTimeout {
			return fmt.Errorf("no committed progress for %v at %d of %d events; the server's log:\n%s", stallTimeout, done, events, srv.Logs())
		}
		if err := srv.Failed(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// committedEvents reads streamdb_catalog.source_splits and returns how
// many of the events every source of q has committed (the least, over
// q's sources and their splits, of the event number of a split's next
// row) and whether every split is done.
func committedEvents(ctx context.Context, conn *pgx.Conn, q Query, events int64) (int64, bool, error) {
	rows, err := conn.Query(ctx, `SELECT source, "offset", done FROM streamdb_catalog.source_splits`)
	if err != nil {
		return 0, false, fmt.Errorf("read the sources' progress: %w", err)
	}
	defer rows.Close()
	least, all, seen := events, true, 0
	for rows.Next() {
		var source string
		var offset int64
		var done bool
		if err := rows.Scan(&source, &offset, &done); err != nil {
			return 0, false, err
		}
		typ, ok := tableType(source)
		if !ok {
			continue
		}
		seen++
		if done {
			continue
		}
		all = false
		c := nexmark.DefaultConfig()
		c.Table = typ
		least = min(least, c.EventNumber(offset))
	}
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("read the sources' progress: %w", err)
	}
	if seen == 0 {
		return 0, false, fmt.Errorf("streamdb_catalog.source_splits lists none of the sources of %s", q.Name)
	}
	return least, all, nil
}
