package rescalebench

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/streamdb/streamdb/bench/benchkit"
)

// Result is one strategy's rescale: the report's row and the JSON
// report's object.
type Result struct {
	Strategy Strategy `json:"strategy"`
	// Handoff is how moved state reached new owners (Config.Handoffs;
	// empty: copy, without shared storage).
	Handoff string `json:"handoff,omitempty"`
	// Nodes is the number of node processes the view ran on.
	Nodes int `json:"nodes"`
	// From and To are the parallelisms before and after.
	From int `json:"from_parallelism"`
	To   int `json:"to_parallelism"`
	// StateBytes is at least the view's state (loaded.StateBytes).
	StateBytes int64 `json:"state_bytes"`
	// PebbleBytes is the size of all of Pebble's files (the table's rows
	// too) just before the rescale.
	PebbleBytes int64 `json:"pebble_bytes"`
	// RowsPerSec is the rate of rows acknowledged in the steady window;
	// TargetRowsPerSec the writers' rate (half what they reached as fast
	// as they went).
	RowsPerSec       float64 `json:"rows_per_sec"`
	TargetRowsPerSec float64 `json:"target_rows_per_sec"`
	// Steady* summarize the end-to-end latency in the steady window
	// before the rescale.
	SteadyP50Ms float64 `json:"steady_p50_ms"`
	SteadyP99Ms float64 `json:"steady_p99_ms"`
	SteadyMaxMs float64 `json:"steady_max_ms"`
	// Rescale* summarize it from the ALTER until a second after it
	// returned.
	RescaleP50Ms float64 `json:"rescale_p50_ms"`
	RescaleP99Ms float64 `json:"rescale_p99_ms"`
	RescaleMaxMs float64 `json:"rescale_max_ms"`
	// RescaleInsertMaxMs is the longest single INSERT in that time, not
	// counting the wait behind the writer's schedule.
	RescaleInsertMaxMs float64 `json:"rescale_insert_max_ms"`
	// SettleP99Ms is the 99th percentile in the settle window after.
	SettleP99Ms float64 `json:"settle_p99_ms"`
	// LongestGapMs is the longest time, during the rescale, between
	// successive changes a reader of the view saw.
	LongestGapMs float64 `json:"longest_gap_ms"`
	// RescaleReadMaxMs is the longest read of the view by the poller in
	// that time: a gap may be a read held up rather than no change.
	RescaleReadMaxMs float64 `json:"rescale_read_max_ms"`
	// SteadyGapMs is the same before the rescale, for comparison.
	SteadyGapMs float64 `json:"steady_gap_ms"`
	// ThroughputDipPct is how far the lowest throughput over 500 ms during
	// the rescale fell below the steady mean, in percent.
	ThroughputDipPct float64 `json:"throughput_dip_pct"`
	// DurationMs is how long the ALTER took.
	DurationMs float64 `json:"duration_ms"`
	// LongestStepMs is the longest time between steps the server counted
	// done (streamdb_catalog.rescale_jobs, read every 20 ms meanwhile),
	// from the ALTER's start to its end.
	LongestStepMs float64 `json:"longest_step_ms"`
	// StepMs are the times between those steps, in order (the last until
	// the ALTER returned).
	StepMs []float64 `json:"step_ms"`
	// Server's account of the rescale (streamdb_catalog.rescale_jobs).
	VNodesMoved int `json:"vnodes_moved"`
	VNodesTotal int `json:"vnodes_total"`
	Steps       int `json:"steps"`
	// BytesMoved is, on one node, the server's estimate of the moved
	// vnodes' state in storage (every vnode's for restart); across nodes
	// the bytes of state copied between them.
	BytesMoved int64 `json:"bytes_moved"`
	// MigrationMBPerS is the rate state moved between nodes at, over the
	// time spent moving it (0 on one node); RawCopyMBPerS the rate of
	// copying as many bytes of SSTs between the same nodes' data
	// directories as plain files (with a sync), measured in the same run.
	MigrationMBPerS float64 `json:"migration_mb_per_s"`
	RawCopyMBPerS   float64 `json:"raw_copy_mb_per_s"`
	// CacheBytesMoved are the cached state bytes handed over warm.
	CacheBytesMoved int64 `json:"cache_bytes_moved"`
	// ServerElapsedMs is how long the rescale took by the server's clock.
	ServerElapsedMs float64 `json:"server_elapsed_ms"`
	// ServerCores and OtherCores are the cores the server, and the
	// processes other than the server and the bench, kept busy on average
	// from the steady window to the end of the settle window: others'
	// work makes latency noisy.
	ServerCores float64 `json:"server_cores"`
	OtherCores  float64 `json:"other_cores"`
	// FailedInserts counts the writers' statements that failed from the
	// steady window to the end of the settle window.
	FailedInserts int `json:"failed_inserts"`
	// Error says why the rescale failed or its figures are incomplete.
	Error string `json:"error,omitempty"`
}

// millis is d in (fractional) milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// label names a result's strategy, and its handoff if it had one.
func label(r Result) string {
	if r.Handoff != "" {
		return string(r.Strategy) + "+" + r.Handoff
	}
	return string(r.Strategy)
}

// writeTable prints results as an aligned table, then the errors.
func writeTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tnodes\tp\tstate MiB\trows/s\tsteady p50\tp99\tmax ms\trescale p50\tp99\tmax ms\tlongest gap ms\tdip %\tduration ms\tlongest step ms\tvnodes moved\tmoved MiB\tmove MB/s\traw MB/s\tfailed inserts\tother cores\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d→%d\t%.0f\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.0f\t%d/%d\t%.0f\t%.0f\t%.0f\t%d\t%.2f\t\n",
			label(r), r.Nodes, r.From, r.To, float64(r.StateBytes)/(1<<20), benchkit.Thousands(int64(r.RowsPerSec)),
			r.SteadyP50Ms, r.SteadyP99Ms, r.SteadyMaxMs, r.RescaleP50Ms, r.RescaleP99Ms, r.RescaleMaxMs,
			r.LongestGapMs, r.ThroughputDipPct, r.DurationMs, r.LongestStepMs, r.VNodesMoved, r.VNodesTotal, float64(r.BytesMoved)/(1<<20),
			r.MigrationMBPerS, r.RawCopyMBPerS, r.FailedInserts, r.OtherCores)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		for _, note := range []string{behind(r), r.Error} {
			if note != "" {
				fmt.Fprintf(w, "%s (%d→%d): %s\n", r.Strategy, r.From, r.To, note)
			}
		}
	}
	return nil
}

// behindShare is the share of their rate below which the writers are
// said to have fallen behind in a steady window.
const behindShare = 0.95

// behind notes that the writers fell behind their rate in r's steady
// window, "" if they did not.
func behind(r Result) string {
	if r.RowsPerSec >= behindShare*r.TargetRowsPerSec {
		return ""
	}
	return fmt.Sprintf("the writers fell behind their rate in the steady window (%s of %s rows/s): the server or the machine was busy, the steady figures are not steady",
		benchkit.Thousands(int64(r.RowsPerSec)), benchkit.Thousands(int64(r.TargetRowsPerSec)))
}

// fluidSlackMs is how far above its steady p99 fluid's worst latency
// during a rescale may be.
const fluidSlackMs = 100

// restartFactor is how many times fluid's worst latency during a rescale
// restart's must be at least.
const restartFactor = 100

// writeTargets prints whether the targets hold: fluid's worst latency
// during its rescale within fluidSlackMs of its steady p99, and restart's
// at least restartFactor times fluid's.
func writeTargets(w io.Writer, results []Result) {
	byStrategy := map[Strategy]Result{}
	for _, r := range results {
		if r.Error == "" {
			byStrategy[r.Strategy] = r
		}
	}
	fluid, haveFluid := byStrategy[Fluid]
	restart, haveRestart := byStrategy[Restart]
	fmt.Fprintln(w, "targets:")
	if !haveFluid {
		fmt.Fprintln(w, "  fluid: not measured (fluid did not rescale in this run)")
		fmt.Fprintln(w, "  restart vs fluid: not measured")
		return
	}
	fmt.Fprintf(w, "  fluid: rescale max %.1f ms within %d ms of steady p99 %.1f ms: %s\n",
		fluid.RescaleMaxMs, fluidSlackMs, fluid.SteadyP99Ms, verdict(fluid.RescaleMaxMs <= fluid.SteadyP99Ms+fluidSlackMs))
	if !haveRestart {
		fmt.Fprintln(w, "  restart vs fluid: not measured (restart did not rescale in this run)")
		return
	}
	fmt.Fprintf(w, "  restart: rescale max %.1f ms >= %dx fluid's %.1f ms: %s\n",
		restart.RescaleMaxMs, restartFactor, fluid.RescaleMaxMs, verdict(restart.RescaleMaxMs >= restartFactor*fluid.RescaleMaxMs))
}

// verdict says whether a target holds.
func verdict(ok bool) string {
	if ok {
		return "holds"
	}
	return "MISSED"
}
