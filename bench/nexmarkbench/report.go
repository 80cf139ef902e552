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
	Query       string `json:"query"`
	Parallelism int    `json:"parallelism"`
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
	// Skipped says why the query did not run (its view could not be
	// created, say); the figures are then zero.
	Skipped string `json:"skipped,omitempty"`
}

// writeTable prints results as an aligned table.
func writeTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tp\tevents\tevents/s\tevents/s/core\tpeak RSS MiB\tbarrier p50 ms\tbarrier p99 ms\trows\tstate entries\t")
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\tskipped\t\t\t\t\t\t\t\n", r.Query, r.Parallelism, benchkit.Thousands(r.Events))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.0f\t%.1f\t%.1f\t%s\t%s\t\n", r.Query, r.Parallelism, benchkit.Thousands(r.Events),
			benchkit.Thousands(int64(r.EventsPerSec)), benchkit.Thousands(int64(r.EventsPerSecPerCore)), float64(r.PeakRSSBytes)/(1<<20),
			r.BarrierP50Ms, r.BarrierP99Ms, benchkit.Thousands(r.Rows), benchkit.Thousands(r.StateEntries))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		if r.Skipped != "" {
			fmt.Fprintf(w, "%s (p=%d) skipped: %s\n", r.Query, r.Parallelism, r.Skipped)
		}
	}
	return nil
}
