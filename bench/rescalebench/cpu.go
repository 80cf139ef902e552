package rescalebench

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/bench/benchkit"
)

// cpuMark is the CPU time the machine, the server and this process had
// used at a time.
type cpuMark struct {
	at                    time.Time
	machine, server, self time.Duration
}

// markCPU reads the CPU times now; the servers are processes pids
// (their times summed).
func markCPU(pids []int) (cpuMark, error) {
	m := cpuMark{at: time.Now()}
	var err error
	if m.machine, err = benchkit.MachineCPU(); err != nil {
		return m, err
	}
	for _, pid := range pids {
		t, err := benchkit.CPUTime(pid)
		if err != nil {
			return m, err
		}
		m.server += t
	}
	m.self, err = benchkit.SelfCPU()
	return m, err
}

// cores returns the cores the server, and all other processes but this
// one, kept busy on average from a to b.
func cores(a, b cpuMark) (server, others float64) {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 {
		return 0, 0
	}
	srv := b.server - a.server
	rest := b.machine - a.machine - srv - (b.self - a.self)
	return srv.Seconds() / wall, max(rest.Seconds(), 0) / wall
}

// The wait for the server to settle after the load: until it keeps less
// than idleCores busy over an idleWindow, for at most settleLimit.
const (
	idleCores   = 0.25
	idleWindow  = time.Second
	settleLimit = 2 * time.Minute
)

// waitIdle waits until the servers (processes pids) are idle after the load,
// its flushes and compactions done, so that the probe measures the
// writers, not them. It returns the time waited and whether the server
// became idle within settleLimit.
func waitIdle(ctx context.Context, pids []int) (time.Duration, bool, error) {
	start := time.Now()
	prev, err := markCPU(pids)
	for err == nil && time.Since(start) < settleLimit {
		if err = pause(ctx, idleWindow); err != nil {
			break
		}
		var now cpuMark
		if now, err = markCPU(pids); err != nil {
			break
		}
		if srv, _ := cores(prev, now); srv < idleCores {
			return time.Since(start), true, nil
		}
		prev = now
	}
	return time.Since(start), false, err
}
