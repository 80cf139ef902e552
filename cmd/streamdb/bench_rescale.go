package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamdb/streamdb/bench/rescalebench"
	"github.com/streamdb/streamdb/rowkey"
)

// parseBenchRescale reads the flags of `streamdb bench rescale`; usage
// and flag errors go to errOut.
func parseBenchRescale(args []string, errOut io.Writer) (rescalebench.Config, error) {
	fs := flag.NewFlagSet("bench rescale", flag.ContinueOnError)
	fs.SetOutput(errOut)
	stateMB := fs.Int64("state-mb", 1024, "the least state of the rescaled view, in MiB")
	strategies := fs.String("strategies", "fluid,all_at_once,restart", "comma-separated strategies to rescale with, in order: fluid, all_at_once, restart, each optionally with :handover, :eager or :lazy (how new owners get their cached state)")
	from := fs.Int("from", 2, "the view's first parallelism; the rescales alternate between it and --to")
	to := fs.Int("to", 3, "the parallelism the first rescale goes to")
	step := fs.Int("step", 0, "the vnodes a fluid rescale moves per barrier (0: the server's default)")
	steady := fs.Duration("steady", 10*time.Second, "the time measured before each rescale")
	jsonPath := fs.String("json", "", "also write the results to this file as a JSON array")
	trace := fs.String("trace", "", "also write every writer statement to this file as CSV (UTC time due, latency in ms, failed), to line up with the servers' logs (STREAMDB_BENCH_LOG_DIR keeps them)")
	barrierMS := fs.Int("barrier-interval-ms", 1000, "the server's milliseconds between checkpoint barriers")
	handoffs := fs.String("handoffs", "", "with --nodes > 1: give the cluster shared storage and rescale with each strategy once per migration handoff, comma-separated: copy (every byte from the old owner) and shared (the last durable checkpoint's files from shared storage, and what changed since from the old owner); empty: no shared storage")
	nodes := fs.Int("nodes", 1, "node processes of the cluster the view runs on: its vnodes move between them, and the report adds the migration rate beside a raw copy of as many bytes")
	fs.Usage = func() {
		fmt.Fprintln(errOut, "Usage: streamdb bench rescale [flags]\n\nLoads a view with large state on a fresh server (or cluster, with --nodes) and rescales it once per strategy under steady writers, reporting latency, output gaps and throughput before and during each rescale.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return rescalebench.Config{}, err
	}
	if fs.NArg() > 0 {
		return rescalebench.Config{}, fmt.Errorf("bench rescale: unexpected argument %q (flags only; see --help)", fs.Arg(0))
	}
	cfg := rescalebench.Config{StateMB: *stateMB, From: *from, To: *to, Step: *step, Steady: *steady, JSON: *jsonPath, Trace: *trace, BarrierIntervalMS: *barrierMS, Nodes: *nodes}
	for _, h := range strings.Split(*handoffs, ",") {
		switch h = strings.TrimSpace(h); h {
		case "":
		case "copy", "shared":
			cfg.Handoffs = append(cfg.Handoffs, h)
		default:
			return cfg, fmt.Errorf("bench rescale: --handoffs: %q is neither copy nor shared", h)
		}
	}
	if len(cfg.Handoffs) > 0 && cfg.Nodes < 2 {
		return cfg, fmt.Errorf("bench rescale: --handoffs needs a cluster: set --nodes to 2 or more")
	}
	var err error
	if cfg.Strategies, err = rescalebench.ParseStrategies(*strategies); err != nil {
		return cfg, fmt.Errorf("bench rescale: --strategies: %w", err)
	}
	switch {
	case cfg.StateMB < 1:
		return cfg, fmt.Errorf("bench rescale: --state-mb must be at least 1, not %d", cfg.StateMB)
	case cfg.From < 1 || cfg.From > rowkey.VNodes || cfg.To < 1 || cfg.To > rowkey.VNodes:
		return cfg, fmt.Errorf("bench rescale: --from and --to must be from 1 to %d, not %d and %d", rowkey.VNodes, cfg.From, cfg.To)
	case cfg.From == cfg.To:
		return cfg, fmt.Errorf("bench rescale: --from and --to must differ, not both %d", cfg.From)
	case cfg.Step < 0 || cfg.Step > rowkey.VNodes:
		return cfg, fmt.Errorf("bench rescale: --step must be from 0 (the server's default) to %d, not %d", rowkey.VNodes, cfg.Step)
	case cfg.Nodes < 1:
		return cfg, fmt.Errorf("bench rescale: --nodes must be at least 1, not %d", cfg.Nodes)
	case cfg.Steady <= 0:
		return cfg, fmt.Errorf("bench rescale: --steady must be positive, not %v", cfg.Steady)
	}
	return cfg, checkBarrierInterval("bench rescale", cfg.BarrierIntervalMS)
}
