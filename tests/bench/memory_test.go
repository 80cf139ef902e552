package bench

import (
	"bufio"
	"context"
	"flag"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

var large = flag.Bool("bench.large", false, "run BenchmarkLargeAgg (10M rows, several GB of memory)")

// BenchmarkLargeAgg streams 10M rows into an aggregation over 5M groups
// at parallelism 2 and reports the rate, the process's peak resident set
// (VmHWM, reset before the run where the kernel allows it), the peak Go
// heap (sampled every 50 ms) and the live heap after the run (after a GC,
// with the node still open: what its state keeps in memory).
func BenchmarkLargeAgg(b *testing.B) {
	if !*large {
		b.Skip("needs -bench.large: go test -run '^$' -bench LargeAgg -benchtime 1x ./tests/bench -bench.large")
	}
	w := hashAgg(10_000_000, 5_000_000)
	runtime.GC()
	resetPeakRSS(b)
	heap := startHeapSampler()
	var live uint64
	inspect := func() {
		runtime.GC()
		live = heapObjects()
	}
	var d time.Duration
	for range b.N {
		// A 256 MiB state cache: the state (about 2 GB) is far larger.
		d += measure(b, w, run{interval: time.Second, parallelism: 2, cacheBytes: 256 << 20, inspect: inspect}).committed
	}
	reportRate(b, "rows/s", b.N*w.rows, d)
	b.ReportMetric(float64(heap.stop())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(live)/(1<<20), "live-heap-MB")
	if rss, ok := peakRSS(); ok {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
	}
}

// resetPeakRSS resets the kernel's peak resident set of this process
// (Linux 4.0 and later), so that VmHWM covers only what follows.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("peak RSS not reset (it covers the whole process): %v", err)
	}
}

// peakRSS returns the process's peak resident set in bytes (VmHWM).
func peakRSS() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// heapSampler records the largest Go heap (bytes in heap objects, live or
// not yet swept) seen while it runs.
type heapSampler struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	peak   uint64
}

func startHeapSampler() *heapSampler {
	ctx, cancel := context.WithCancel(context.Background())
	h := &heapSampler{cancel: cancel}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			h.peak = max(h.peak, heapObjects())
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// stop ends sampling and returns the peak.
func (h *heapSampler) stop() uint64 {
	h.cancel()
	h.wg.Wait()
	return h.peak
}

// heapObjects returns the bytes in Go heap objects, live or not yet swept.
func heapObjects() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}
