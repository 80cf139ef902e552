package bench

import (
	"strconv"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// parallelisms are the actor counts per fragment the throughput
// benchmarks compare.
var parallelisms = []int{1, 2}

// throughput runs w at each parallelism with a 1 s barrier interval and
// reports rows per second until the last row is committed.
func throughput(b *testing.B, w workload) {
	for _, p := range parallelisms {
		b.Run("parallelism="+strconv.Itoa(p), func(b *testing.B) {
			var d time.Duration
			for range b.N {
				d += measure(b, w, run{interval: time.Second, parallelism: p}).committed
			}
			reportRate(b, "rows/s", b.N*w.rows, d)
		})
	}
}

// words are the text values of the workloads (no allocation per row).
var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}

// scatter maps 0..n-1 onto itself in a scattered order (7919 is a prime
// that divides none of the sizes used), so groups and join keys are
// touched in no particular order.
func scatter(i, n int) int64 { return int64(i) * 7919 % int64(n) }

// filterProject streams rows through a stateless filter and projection:
// half the rows pass.
func filterProject(rows int) workload {
	return workload{
		name: "filter-project",
		tables: []table{{name: "t", width: 4, ddl: "CREATE TABLE t (id bigint PRIMARY KEY, a int, b int, s text)",
			fill: func(i int, row []types.Datum) {
				row[0], row[1], row[2], row[3] = types.NewInt(int64(i)), types.NewInt(int64(i)), types.NewInt(int64(i%100)), types.NewString(words[i%len(words)])
			}}},
		view:     "SELECT id, a + b AS x, upper(s) AS u FROM t WHERE a % 2 = 0",
		rows:     rows,
		viewRows: rows / 2,
	}
}

// hashAgg streams rows into a grouped count and sum; every group gets
// rows/groups rows.
func hashAgg(rows, groups int) workload {
	return workload{
		name: "hash-agg",
		tables: []table{{name: "t", width: 3, ddl: "CREATE TABLE t (id bigint PRIMARY KEY, g bigint, a int)",
			fill: func(i int, row []types.Datum) {
				row[0], row[1], row[2] = types.NewInt(int64(i)), types.NewInt(scatter(i, groups)), types.NewInt(int64(i%1000))
			}}},
		view:     "SELECT g, count(*) AS n, sum(a) AS total FROM t GROUP BY g",
		rows:     rows,
		viewRows: groups,
	}
}

// join streams rows into two tables alternately, joined one to one on a
// key; half the rows go to each side.
func join(rows int) workload {
	per := rows / 2
	side := func(name, col string) table {
		return table{name: name, width: 3, ddl: "CREATE TABLE " + name + " (id bigint PRIMARY KEY, k bigint, " + col + " int)",
			fill: func(i int, row []types.Datum) {
				row[0], row[1], row[2] = types.NewInt(int64(i)), types.NewInt(scatter(i, per)), types.NewInt(int64(i%1000))
			}}
	}
	return workload{
		name:     "join",
		tables:   []table{side("l", "v"), side("r", "w")},
		view:     "SELECT l.id AS lid, r.id AS rid, l.v, r.w FROM l JOIN r ON l.k = r.k",
		rows:     rows,
		viewRows: per,
	}
}

// BenchmarkFilterProject measures rows/s through a filter and a
// projection (1M rows).
func BenchmarkFilterProject(b *testing.B) { throughput(b, filterProject(1_000_000)) }

// BenchmarkHashAgg measures rows/s into a hash aggregation over 1M groups
// (2M rows).
func BenchmarkHashAgg(b *testing.B) { throughput(b, hashAgg(2_000_000, 1_000_000)) }

// BenchmarkJoin measures rows/s into a two-way inner join (500k rows per
// side, one match each).
func BenchmarkJoin(b *testing.B) { throughput(b, join(1_000_000)) }
