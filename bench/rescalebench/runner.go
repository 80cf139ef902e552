package rescalebench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/bench/benchkit"
)

// The probe of the writers' throughput: as fast as they go, measured
// after a warm-up.
const (
	probeWarmup  = time.Second
	probeMeasure = 3 * time.Second
)

// loadFactor is the share of the probed throughput the writers run at.
const loadFactor = 0.5

// warmup is the time the paced writers run before the first steady
// window.
const warmup = 2 * time.Second

// tail is how long after the ALTER returned the rescale's window lasts:
// the cold caches of new owners are counted.
const tail = time.Second

// settle is the time after a rescale's window before the next steady
// window begins.
const settle = 3 * time.Second

// Run runs the benchmark on a fresh server: it loads the view, probes the
// writers' throughput, then rescales once per strategy under writers at
// half of it, and prints the table and the targets and writes the JSON
// report, also when a rescale failed (its row says why) or ctx ended
// (with the rescales so far).
func Run(ctx context.Context, cfg Config) (results []Result, err error) {
	var extra func(int) []string
	if len(cfg.Handoffs) > 0 {
		shared, err := os.MkdirTemp("", "streamdb-bench-shared-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(shared)
		extra = func(int) []string { return []string{"--shared-storage", "file://" + shared} }
	}
	servers, err := benchkit.StartCluster(ctx, cfg.Binary, max(cfg.Nodes, 1), cfg.From, cfg.BarrierIntervalMS, extra)
	if err != nil {
		return nil, err
	}
	srv := servers[0]
	var dirs []string
	var pids []int
	for _, s := range servers {
		dirs, pids = append(dirs, s.Dir()), append(pids, s.PID())
	}
	// failed says which servers exited, for an error of the run.
	failed := func() error {
		var errs []error
		for _, s := range servers {
			errs = append(errs, s.Failed())
		}
		return errors.Join(errs...)
	}
	// warned prints what the servers logged as warnings and errors (a
	// recovery, a write stall) since it was last called: beside the
	// figures they explain, not ending the run.
	seen := make([]int, len(servers))
	warned := func() {
		if w := serverWarnings(servers, seen); w != "" {
			fmt.Fprintln(cfg.Err, w)
		}
	}
	defer func() {
		for _, s := range servers {
			err = errors.Join(err, s.Stop())
		}
	}()
	l, err := load(ctx, srv.ConnString(), dirs, cfg.StateMB<<20, cfg.Err)
	if err != nil {
		return nil, errors.Join(err, failed())
	}
	fmt.Fprintf(cfg.Out, "loaded %s keys in %.1f s: the view's state is at least %d MiB (Pebble's SSTs beyond the table's files)\n",
		benchkit.Thousands(l.Keys), l.Took.Seconds(), l.StateBytes>>20)
	warned()
	conn, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	defer conn.Close(context.Background())
	watch, err := pgx.Connect(ctx, srv.ConnString())
	if err != nil {
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	defer watch.Close(context.Background())
	waited, idle, err := waitIdle(ctx, pids)
	if err != nil {
		return nil, err
	}
	if !idle {
		fmt.Fprintf(cfg.Err, "the server still kept %.2f cores or more busy %v after the load; probing the writers anyway\n", idleCores, waited.Round(time.Second))
	}
	fmt.Fprintf(cfg.Out, "the server was idle %.0f s after the load (flushes and compactions)\n", waited.Seconds())
	w := newWorkload(srv.ConnString(), l.Keys)
	rate, err := probe(ctx, w)
	if err != nil {
		return nil, errors.Join(err, failed())
	}
	fmt.Fprintf(cfg.Out, "writers: %d connections, INSERTs of %d rows; as fast as they go %s rows/s, run at %s rows/s\n",
		writers, batchRows, benchkit.Thousands(int64(rate)), benchkit.Thousands(int64(rate*loadFactor)))
	if err := w.start(ctx, rate*loadFactor); err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			w.stop()
		}
	}()
	runErr := pause(ctx, warmup)
	if len(cfg.Handoffs) > 0 && runErr == nil {
		runErr = waitDurable(ctx, conn, time.Now(), cfg.Err)
	}
	current := cfg.From
	for _, run := range handoffRuns(cfg) {
		s := run.strategy
		if runErr != nil {
			break
		}
		target := cfg.To
		if current == cfg.To {
			target = cfg.From
		}
		if run.handoff != "" {
			if _, err := conn.Exec(ctx, "ALTER SYSTEM SET migration_handoff = '"+run.handoff+"'"); err != nil {
				runErr = err
				break
			}
		}
		var r Result
		r, runErr = runStrategy(ctx, cfg, conn, watch, w, pids, s, current, target)
		r.Nodes, r.StateBytes, r.Handoff = len(servers), l.StateBytes, run.handoff
		files, err := pebbleBytes(dirs...)
		runErr = errors.Join(runErr, err)
		r.PebbleBytes = files.all
		results = append(results, r)
		fmt.Fprintf(cfg.Err, "%s %d→%d: %s\n", s, current, target, summaryLine(r))
		warned()
		if r.Error == "" {
			current = target
		}
		runErr = errors.Join(runErr, failed())
	}
	w.stop()
	stopped = true
	if runErr == nil {
		runErr = w.checkTotals(ctx, conn)
	}
	if len(dirs) > 1 && ctx.Err() == nil {
		// The same bytes as the largest migration, copied raw between the
		// data directories of two nodes, for comparison.
		var moved int64
		for _, r := range results {
			moved = max(moved, r.BytesMoved)
		}
		rate, err := rawCopyRate(dirs[0], dirs[len(dirs)-1], max(moved, minRawCopy))
		runErr = errors.Join(runErr, err)
		for i := range results {
			results[i].RawCopyMBPerS = rate
		}
	}
	if err := report(cfg, results, w); err != nil {
		return results, errors.Join(runErr, err)
	}
	if runErr != nil {
		return results, runErr
	}
	for _, r := range results {
		if r.Error != "" {
			return results, errors.New("some rescales failed; see the table")
		}
	}
	return results, nil
}

// probe runs the writers as fast as they go and returns the rows per
// second they reached after the warm-up.
func probe(ctx context.Context, w *workload) (float64, error) {
	if err := w.start(ctx, 0); err != nil {
		return 0, err
	}
	err := pause(ctx, probeWarmup)
	measured := span{from: time.Now()}
	if err == nil {
		err = pause(ctx, probeMeasure)
	}
	measured.to = time.Now()
	w.stop()
	if err == nil {
		err = w.firstError()
	}
	if err != nil {
		return 0, err
	}
	rate := rowsPerSecond(w.snapshot().samples, measured)
	if rate <= 0 {
		return 0, fmt.Errorf("the writers acknowledged no rows in %v", probeMeasure)
	}
	return rate, nil
}

// runStrategy measures the steady window, rescales the view from
// parallelism from to to with strategy s, and measures until the end of
// the settle window; the servers are processes pids. A failed rescale makes a
// result with Error set; the error returned means the run cannot go on.
func runStrategy(ctx context.Context, cfg Config, conn, watch *pgx.Conn, w *workload, pids []int, s Strategy, from, to int) (Result, error) {
	r := Result{Strategy: s, From: from, To: to, TargetRowsPerSec: w.rate}
	cpu0, err := markCPU(pids)
	if err != nil {
		return r, err
	}
	steady := span{from: cpu0.at}
	w.skipBacklog(steady.from)
	if err := pause(ctx, cfg.Steady); err != nil {
		return r, err
	}
	steady.to = time.Now()
	altered, steps, alterErr := rescale(ctx, conn, watch, s, to, cfg.Step)
	if ctx.Err() != nil {
		return r, ctx.Err()
	}
	during := span{from: altered.from, to: altered.to.Add(tail)}
	if err := pause(ctx, time.Until(during.to.Add(settle))); err != nil {
		return r, err
	}
	cpu1, err := markCPU(pids)
	if err != nil {
		return r, err
	}
	r.ServerCores, r.OtherCores = cores(cpu0, cpu1)
	settled := span{from: during.to, to: cpu1.at}
	fill(&r, w.snapshot(), steady, during, settled)
	r.DurationMs = millis(altered.to.Sub(altered.from))
	// The steps the watcher saw end, between the ALTER's start and end.
	ends := append(append([]time.Time{altered.from}, steps...), altered.to)
	r.LongestStepMs = millis(longestGap(ends, altered))
	for i := 1; i < len(ends); i++ {
		r.StepMs = append(r.StepMs, millis(ends[i].Sub(ends[i-1])))
	}
	switch {
	case alterErr != nil:
		r.Error = "the ALTER failed: " + alterErr.Error()
	default:
		if err := errors.Join(readRescaleJob(ctx, conn, &r), checkParallelism(ctx, conn, from, to)); err != nil {
			r.Error = err.Error()
		}
	}
	if err := w.checkCounter(ctx, conn); err != nil {
		r.Error = joinErrors(r.Error, err.Error())
	}
	return r, w.firstError()
}

// fill sets r's latency, gap and throughput figures from what the
// workload observed.
func fill(r *Result, obs observed, steady, during, settled span) {
	samples, changes := obs.samples, obs.changes
	st, re, se := steadyStats(samples, steady), rescaleStats(samples, during), steadyStats(samples, settled)
	r.RowsPerSec = rowsPerSecond(samples, steady)
	r.SteadyP50Ms, r.SteadyP99Ms, r.SteadyMaxMs = millis(st.Latency.P50), millis(st.Latency.P99), millis(st.Latency.Max)
	r.RescaleP50Ms, r.RescaleP99Ms, r.RescaleMaxMs = millis(re.Latency.P50), millis(re.Latency.P99), millis(re.Latency.Max)
	r.RescaleInsertMaxMs = millis(re.InsertMax)
	r.SettleP99Ms = millis(se.Latency.P99)
	r.LongestGapMs, r.SteadyGapMs = millis(longestGap(changes, during)), millis(longestGap(changes, steady))
	r.ThroughputDipPct = throughputDip(samples, steady, during, dipWindow)
	r.RescaleReadMaxMs = millis(readStats(obs.reads, during).Max)
	r.FailedInserts = st.Failed + re.Failed + se.Failed
}

// joinErrors joins two error texts with "; ", either possibly empty.
func joinErrors(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// summaryLine is one strategy's figures in a line, shown as it finishes.
func summaryLine(r Result) string {
	line := fmt.Sprintf("steady p99 %.1f ms, rescale p99 %.1f ms max %.1f ms, longest gap %.1f ms (longest read %.1f ms), dip %.0f%%, took %.0f ms",
		r.SteadyP99Ms, r.RescaleP99Ms, r.RescaleMaxMs, r.LongestGapMs, r.RescaleReadMaxMs, r.ThroughputDipPct, r.DurationMs)
	for _, note := range []string{behind(r), r.Error} {
		if note != "" {
			line += "; " + note
		}
	}
	return line
}

// report prints the table, the poller's read times and the targets, and
// writes the JSON report.
func report(cfg Config, results []Result, w *workload) error {
	if err := writeTable(cfg.Out, results); err != nil {
		return err
	}
	polls := readStats(w.snapshot().reads, span{time.Time{}, time.Now()})
	fmt.Fprintf(cfg.Out, "the poller's reads of the view: %d, p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
		polls.Count, millis(polls.P50), millis(polls.P99), millis(polls.Max))
	writeTargets(cfg.Out, results)
	if cfg.Trace != "" {
		if err := writeTrace(cfg.Trace, w.snapshot().samples); err != nil {
			return err
		}
	}
	if cfg.JSON != "" {
		return benchkit.WriteJSON(cfg.JSON, results)
	}
	return nil
}

// writeTrace writes samples to path as CSV: the UTC time each statement
// was due, its latency in milliseconds and whether it failed.
func writeTrace(path string, samples []sample) error {
	var b strings.Builder
	b.WriteString("due,latency_ms,failed\n")
	for _, s := range samples {
		fmt.Fprintf(&b, "%s,%.1f,%t\n", s.due.UTC().Format("15:04:05.000"), millis(s.latency()), s.failed)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// maxWarnings bounds the log lines serverWarnings reports per server.
const maxWarnings = 10

// serverWarnings returns the last warnings and errors each server logged
// since seen (each server's log length, which it advances), "" if none
// did.
func serverWarnings(servers []*benchkit.Server, seen []int) string {
	var b strings.Builder
	for i, s := range servers {
		var lines []string
		logs := s.Logs()
		from := min(seen[i], len(logs))
		seen[i] = len(logs)
		for _, l := range strings.Split(logs[from:], "\n") {
			if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "server %d logged:\n  %s\n", i+1, strings.Join(lines[max(0, len(lines)-maxWarnings):], "\n  "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// handoffRun is one rescale of a run: a strategy with a handoff.
type handoffRun struct {
	strategy Strategy
	handoff  string
}

// handoffRuns lists the rescales of cfg: each strategy once per handoff
// (once, without shared storage, if there are none).
func handoffRuns(cfg Config) []handoffRun {
	var out []handoffRun
	for _, s := range cfg.Strategies {
		if len(cfg.Handoffs) == 0 {
			out = append(out, handoffRun{strategy: s})
		}
		for _, h := range cfg.Handoffs {
			out = append(out, handoffRun{strategy: s, handoff: h})
		}
	}
	return out
}

// waitDurable waits until a durable checkpoint recorded after since is
// in shared storage: the state loaded is there for handoffs through it.
func waitDurable(ctx context.Context, conn *pgx.Conn, since time.Time, progress io.Writer) error {
	fmt.Fprintln(progress, "waiting for a durable checkpoint of the loaded state in shared storage")
	for {
		var at time.Time
		err := conn.QueryRow(ctx, "SELECT coalesce(recorded_at, 'epoch'::timestamptz) FROM streamdb_catalog.durable_checkpoint").Scan(&at)
		if err != nil {
			return fmt.Errorf("read the durable checkpoint: %w", err)
		}
		if at.After(since) {
			return nil
		}
		if err := pause(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}
