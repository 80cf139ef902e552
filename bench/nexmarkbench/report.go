package nexmarkbench

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/streamdb/streamdb/bench/benchkit"
)

// Result is one row of the report: a query run at one parallelism, the
// generator-only rate (Query "generator") or one system of the PostgreSQL
// comparison (Query "pg-compare:WORKLOAD:FEED:SYSTEM").
type Result struct {
	Query string `json:"query"`
	// Nodes is the number of node processes of the run's cluster (0 for
	// the generator and PostgreSQL lines).
	Nodes       int `json:"nodes,omitempty"`
	Parallelism int `json:"parallelism"`
	// Events is the number of Nexmark events (the rows fed, in the
	// PostgreSQL comparison).
	Events int64 `json:"events"`
	// Seconds is the time from the view's creation until the sources'
	// last offsets were committed (until the last row was reflected in
	// the result, in the comparison).
	Seconds      float64 `json:"seconds"`
	EventsPerSec float64 `json:"events_per_sec"`
	// EventsPerSecPerCore divides Events by the CPU time the server spent
	// meanwhile: the rate one busy core sustains.
	EventsPerSecPerCore float64 `json:"events_per_sec_per_core"`
	// FirstTenthPerCore and LastTenthPerCore are EventsPerSecPerCore over
	// the first and the last tenth of the events: a steady state shows
	// them close.
	FirstTenthPerCore float64 `json:"first_tenth_events_per_sec_per_core,omitempty"`
	LastTenthPerCore  float64 `json:"last_tenth_events_per_sec_per_core,omitempty"`
	// PeakRSSBytes is the server's peak resident set size.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// BarrierP50Ms and BarrierP99Ms summarize the time from a barrier's
	// injection until its epoch was committed, over the server's life.
	BarrierP50Ms float64 `json:"barrier_p50_ms"`
	BarrierP99Ms float64 `json:"barrier_p99_ms"`
	// Rows is the number of rows of the view (the result) at the end.
	Rows int64 `json:"rows"`
	// StateEntries is the number of entries of the view's operator state
	// (streamdb_catalog.state_tables) at the end.
	StateEntries int64 `json:"state_entries,omitempty"`
	// MaxStalenessMs is the worst age of the result a reader could see
	// (PostgreSQL with periodic REFRESH MATERIALIZED VIEW).
	MaxStalenessMs float64 `json:"max_staleness_ms,omitempty"`
	// SlowRefreshes counts refreshes that took longer than their interval:
	// the freshness the interval promises was violated.
	SlowRefreshes int `json:"slow_refreshes,omitempty"`
	// BarrierIntervalMS is the run's barrier interval when the bench
	// compares them (Config.CheckpointIntervalsMS).
	BarrierIntervalMS int `json:"barrier_interval_ms,omitempty"`
	// Metrics is the run's metrics mode, on or off, when the bench
	// compares them (Config.Metrics).
	Metrics string `json:"metrics,omitempty"`
	// Skipped says why the query did not run (its view could not be
	// created, say); the figures are then zero.
	Skipped string `json:"skipped,omitempty"`
}

// writeTable prints results as an aligned table.
// nodesCell is a result's node count as the table shows it ("-" for
// lines that ran no cluster).
func nodesCell(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// nodesLabel names a cluster of n nodes before the parallelism in notes:
// "nodes=3, ", or nothing for lines that ran no cluster.
func nodesLabel(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("nodes=%d, ", n)
}

func writeTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tnodes\tp\tevents\tevents/s\tevents/s/core\tfirst 10%/core\tlast 10%/core\tx generator\tFeldera/core\tx Feldera\tpeak RSS MiB\tbarrier p50 ms\tbarrier p99 ms\trows\tstate entries\t")
	generator := map[int]float64{}
	for _, r := range results {
		if r.Query == generatorQuery {
			generator[r.Parallelism] = r.EventsPerSecPerCore
		}
	}
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\tskipped\t\t\t\t\t\t\t\t\t\t\t\t\n", queryCell(r), nodesCell(r.Nodes), r.Parallelism, benchkit.Thousands(r.Events))
			continue
		}
		feldera, ok := FelderaPerCore[r.Query]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.1f\t%.1f\t%s\t%s\t\n", queryCell(r), nodesCell(r.Nodes), r.Parallelism, benchkit.Thousands(r.Events),
			benchkit.Thousands(int64(r.EventsPerSec)), benchkit.Thousands(int64(r.EventsPerSecPerCore)),
			optional(r.FirstTenthPerCore > 0, benchkit.Thousands(int64(r.FirstTenthPerCore))), optional(r.LastTenthPerCore > 0, benchkit.Thousands(int64(r.LastTenthPerCore))),
			optional(r.Query != generatorQuery && generator[r.Parallelism] > 0, fmt.Sprintf("%.2f", r.EventsPerSecPerCore/generator[r.Parallelism])),
			optional(ok, benchkit.Thousands(int64(feldera))), optional(ok, fmt.Sprintf("%.2f", r.EventsPerSecPerCore/feldera)),
			float64(r.PeakRSSBytes)/(1<<20), r.BarrierP50Ms, r.BarrierP99Ms, benchkit.Thousands(r.Rows), benchkit.Thousands(r.StateEntries))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(w, "%s (%sp=%d) skipped: %s\n", r.Query, nodesLabel(r.Nodes), r.Parallelism, r.Skipped)
		}
	}
	writeScaling(w, results)
	writeMetricsCost(w, results)
	writeCheckpointCost(w, results)
	return nil
}

// writeCheckpointCost compares, per query, the runs at the shortest
// barrier interval with those at the longest (means over repeated runs):
// the events/s per busy core that checkpoints cost.
func writeCheckpointCost(w io.Writer, results []Result) {
	type key struct {
		query    string
		nodes, p int
		metrics  string
	}
	type runs struct {
		sum map[int]float64
		n   map[int]int
	}
	var order []key
	byKey := map[key]*runs{}
	for _, r := range results {
		if r.BarrierIntervalMS == 0 || r.Skipped != "" {
			continue
		}
		k := key{r.Query, r.Nodes, r.Parallelism, r.Metrics}
		if byKey[k] == nil {
			byKey[k] = &runs{sum: map[int]float64{}, n: map[int]int{}}
			order = append(order, k)
		}
		byKey[k].sum[r.BarrierIntervalMS] += r.EventsPerSecPerCore
		byKey[k].n[r.BarrierIntervalMS]++
	}
	for _, k := range order {
		rs := byKey[k]
		short, long := 0, 0
		for ms := range rs.n {
			if short == 0 || ms < short {
				short = ms
			}
			long = max(long, ms)
		}
		if short == long {
			continue
		}
		s, l := rs.sum[short]/float64(rs.n[short]), rs.sum[long]/float64(rs.n[long])
		if l == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %sp=%d: checkpoints every %d ms cost %+.1f%% events/s per busy core against every %d ms (means of %d and %d runs: %s and %s)\n",
			k.query, nodesLabel(k.nodes), k.p, short, 100*(1-s/l), long, rs.n[short], rs.n[long], benchkit.Thousands(int64(s)), benchkit.Thousands(int64(l)))
	}
}

// optional returns cell if ok, else "-".
func optional(ok bool, cell string) string {
	if !ok {
		return "-"
	}
	return cell
}

// queryCell is a result's query as the table shows it: with its metrics
// mode when the bench compares them.
func queryCell(r Result) string {
	cell := r.Query
	if r.Metrics != "" {
		cell += " metrics=" + r.Metrics
	}
	if r.BarrierIntervalMS != 0 {
		cell += fmt.Sprintf(" barriers=%dms", r.BarrierIntervalMS)
	}
	return cell
}

// writeMetricsCost compares each run with metrics on with the same run
// with metrics off: the events/s per busy core that metrics cost.
func writeMetricsCost(w io.Writer, results []Result) {
	type key struct {
		query    string
		nodes, p int
	}
	off := map[key]Result{}
	for _, r := range results {
		if r.Metrics == metricsOff && r.Skipped == "" {
			off[key{r.Query, r.Nodes, r.Parallelism}] = r
		}
	}
	for _, r := range results {
		o, ok := off[key{r.Query, r.Nodes, r.Parallelism}]
		if r.Metrics != metricsOn || r.Skipped != "" || !ok || o.EventsPerSecPerCore == 0 || o.EventsPerSec == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %sp=%d: metrics on costs %+.1f%% events/s per busy core (%+.1f%% events/s) against metrics off\n",
			r.Query, nodesLabel(r.Nodes), r.Parallelism, 100*(1-r.EventsPerSecPerCore/o.EventsPerSecPerCore), 100*(1-r.EventsPerSec/o.EventsPerSec))
	}
}

// writeScaling compares each query's runs on clusters of several nodes
// with its run on one node at the same parallelism: throughput and
// throughput per busy core, as ratios.
func writeScaling(w io.Writer, results []Result) {
	type key struct {
		query string
		p     int
	}
	single := map[key]Result{}
	for _, r := range results {
		if r.Nodes == 1 && r.Skipped == "" {
			single[key{r.Query, r.Parallelism}] = r
		}
	}
	for _, r := range results {
		one, ok := single[key{r.Query, r.Parallelism}]
		if r.Nodes < 2 || r.Skipped != "" || !ok || one.EventsPerSec == 0 || one.EventsPerSecPerCore == 0 {
			continue
		}
		fmt.Fprintf(w, "%s p=%d on %d nodes: %.2fx one node's events/s, %.2fx its events/s per busy core\n",
			r.Query, r.Parallelism, r.Nodes, r.EventsPerSec/one.EventsPerSec, r.EventsPerSecPerCore/one.EventsPerSecPerCore)
	}
}
