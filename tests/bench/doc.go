// Package bench measures the streaming runtime end to end: rows go into
// tables through the bulk-load path (sql.Engine.Ingest, no SQL parsing per
// row), flow through a materialized view running as parallel actors, and
// are timed until the epoch carrying the last row is committed (and, for
// the checkpoint overhead, until the state store settled). Every
// figure is printed by the benchmark and compared only with a baseline
// measured in the same run (no timing assertions).
//
// Each benchmark iteration is a fixed workload on a fresh node, so run
// them once each:
//
//	go test -run '^$' -bench . -benchtime 1x ./tests/bench
//
// The benchmarks and their figures:
//
//   - BenchmarkFilterProject, BenchmarkHashAgg (1M groups) and
//     BenchmarkJoin report rows/s at parallelism 1 and 2.
//   - BenchmarkCheckpointOverhead runs the filter+project and aggregation
//     workloads with a barrier every 1 s and every 60 s in one run and
//     reports the overhead (time at 1 s / time at 60 s - 1) * 100, until
//     the last row is committed and until the state store settled.
//   - BenchmarkJoinOrder times an ad-hoc 30-table join written in two FROM
//     orders (the chain's own, and one where no two neighbours are joined)
//     on streamdb and, when its server programs are installed, on
//     PostgreSQL in the same run; -bench.jointimeout (120 s) caps a query.
//   - BenchmarkLargeAgg reports the peak memory of a 10M-row aggregation
//     over 5M groups. It is skipped unless the package flag -bench.large
//     is set.
//
// Run BenchmarkLargeAgg alone, since peak RSS is a whole-process figure:
//
//	go test -run '^$' -bench LargeAgg -benchtime 1x ./tests/bench -bench.large
package bench
