package rescalebench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Strategy is how a rescale moves the view's vnodes (ALTER ... WITH
// (strategy = ...)), optionally with how new owners get their cached
// state after a colon (WITH (cache = ...)): "fluid:lazy".
type Strategy string

// base returns the strategy without its cache mode.
func (s Strategy) base() Strategy {
	b, _, _ := strings.Cut(string(s), ":")
	return Strategy(b)
}

// cache returns the strategy's cache mode, "" for the server's default.
func (s Strategy) cache() string {
	_, c, _ := strings.Cut(string(s), ":")
	return c
}

// The strategies.
const (
	// Fluid moves a step of vnodes per barrier.
	Fluid Strategy = "fluid"
	// AllAtOnce moves every vnode at one barrier.
	AllAtOnce Strategy = "all_at_once"
	// Restart stops the job at a checkpoint and starts new actors with
	// cold caches: the stop-the-world baseline.
	Restart Strategy = "restart"
)

// Strategies are the strategies, in the default order.
var Strategies = []Strategy{Fluid, AllAtOnce, Restart}

// ParseStrategies reads a comma-separated list of strategies, each
// optionally with a cache mode (handover, eager or lazy) after a colon.
func ParseStrategies(s string) ([]Strategy, error) {
	var out []Strategy
	for _, f := range strings.Split(s, ",") {
		st := Strategy(strings.TrimSpace(f))
		switch st.base() {
		case Fluid, AllAtOnce, Restart:
		default:
			return nil, fmt.Errorf("no strategy %q: the strategies are fluid, all_at_once and restart, separated by commas", st)
		}
		switch st.cache() {
		case "", "handover", "eager", "lazy":
		default:
			return nil, fmt.Errorf("no cache mode %q in %q: after a colon, handover, eager or lazy", st.cache(), st)
		}
		out = append(out, st)
	}
	return out, nil
}

// Config configures a rescale benchmark run.
type Config struct {
	// Binary is the streamdb binary the run starts as its server.
	Binary string
	// StateMB is the least size of the view's state, in MiB.
	StateMB int64
	// Strategies are rescaled with in order, each from the parallelism
	// the one before left.
	Strategies []Strategy
	// From is the view's first parallelism; the rescales alternate
	// between it and To.
	From, To int
	// Step is the vnodes a fluid rescale moves per barrier (0: the
	// server's default).
	Step int
	// Steady is the time measured before each rescale.
	Steady time.Duration
	// Nodes is the number of node processes of the cluster the view runs
	// on (1: one server); vnodes move between them.
	Nodes int
	// Handoffs, if any, give the cluster shared storage and rescale with
	// each strategy once per migration handoff (copy: every byte from
	// the old owner; shared: the last durable checkpoint's files from
	// shared storage, and what changed since from the old owner).
	Handoffs []string
	// BarrierIntervalMS is the server's barrier interval.
	BarrierIntervalMS int
	// JSON is the path of the JSON report; empty for none.
	JSON string
	// Trace is the path of a CSV of every writer statement (when it was
	// due, its latency, whether it failed), to line up with the servers'
	// logs; empty for none.
	Trace string
	// Out receives the report, Err the progress and notes.
	Out, Err io.Writer
}
