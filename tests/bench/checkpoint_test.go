package bench

import (
	"testing"
	"time"
)

// BenchmarkCheckpointOverhead runs the filter+project workload (2M rows)
// and the aggregation workload (1M rows into 500k groups) at parallelism
// 2, each with a checkpoint barrier every second and with one every
// minute (a run then takes a single checkpoint, at its end), and reports
// both rates and the checkpoint overhead, (time at 1 s / time at 60 s - 1)
// * 100, twice: until the last row is committed (overhead-commit-%) and
// until the state store also finished the flushes and compactions the run
// left owing (overhead-settled-%; a single checkpoint at the end leaves
// them all for later, which a sustained run cannot). The goal is under
// 5%. Iterations alternate which interval runs first, so that drift of a
// shared machine cancels out over several.
func BenchmarkCheckpointOverhead(b *testing.B) {
	for _, w := range []workload{filterProject(2_000_000), hashAgg(1_000_000, 500_000)} {
		b.Run(w.name, func(b *testing.B) {
			often := run{interval: time.Second, parallelism: 2}
			rarely := run{interval: time.Minute, parallelism: 2}
			var tOften, tRarely timing
			add := func(sum *timing, t timing) {
				sum.committed += t.committed
				sum.settled += t.settled
			}
			for i := range b.N {
				if i%2 == 0 {
					add(&tRarely, measure(b, w, rarely))
					add(&tOften, measure(b, w, often))
				} else {
					add(&tOften, measure(b, w, often))
					add(&tRarely, measure(b, w, rarely))
				}
			}
			reportRate(b, "rows/s@1s", b.N*w.rows, tOften.committed)
			reportRate(b, "rows/s@60s", b.N*w.rows, tRarely.committed)
			b.ReportMetric((tOften.committed.Seconds()/tRarely.committed.Seconds()-1)*100, "overhead-commit-%")
			b.ReportMetric((tOften.settled.Seconds()/tRarely.settled.Seconds()-1)*100, "overhead-settled-%")
		})
	}
}
