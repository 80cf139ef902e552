package dataflow

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// BenchmarkHashAgg measures grouped count and sum over new and existing
// groups, one checkpoint per 16 chunks.
func BenchmarkHashAgg(b *testing.B) {
	for _, groups := range []int{100, 1 << 20} {
		b.Run("groups="+strconv.Itoa(groups), func(b *testing.B) {
			benchChunks(b, countSum(b, newEnv(b)), func(i int) []types.Datum {
				return []types.Datum{types.NewInt(int64(i*7919) % int64(groups)), types.NewInt(int64(i))}
			})
		})
	}
}

// countSum builds a count and sum of column 1 grouped by column 0.
func countSum(b *testing.B, env *Env) Operator {
	ts := []types.T{types.TInt8, types.TInt8}
	spec := &HashAggSpec{GroupKey: []int{0}, InputTypes: ts, StateTable: 1,
		Aggs: []*expr.AggFunc{newAgg(b, "count", false), newAgg(b, "sum", false, colRef(1, types.TInt8))}}
	op, err := spec.Build(env)
	if err != nil {
		b.Fatal(err)
	}
	return op
}

// BenchmarkHashJoin measures an inner join of two inputs on a key with
// about two rows per key and side.
func BenchmarkHashJoin(b *testing.B) {
	op, err := joinSpec(exec.Inner, nil).Build(newEnv(b))
	if err != nil {
		b.Fatal(err)
	}
	benchChunks(b, op, func(i int) []types.Datum {
		return []types.Datum{types.NewInt(int64(i)), types.NewInt(int64(i / 4)), types.NewString("v")}
	})
}

// BenchmarkIntervalJoin measures an interval join shaped like Nexmark
// q7's: rows of the left side in time order, keyed like bid prices (log-
// uniform, so a few keys hold many rows and most hold one), about 100,000
// of them alive, matched by a right row now and then; both watermarks move
// with each chunk, so the rows a chunk adds the cleanup deletes later. A
// checkpoint every 16 chunks, sealed at once.
func BenchmarkIntervalJoin(b *testing.B) {
	env := newEnv(b)
	op, err := intervalJoinSpec(b, exec.Inner).Build(env)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	emit := func(*Chunk) error { return nil }
	noWM := func(Watermark) error { return nil }
	r := rand.New(rand.NewPCG(1, 2))
	price := func() types.Datum { return types.NewInt(int64(math.Pow(10, r.Float64()*6))) }
	epoch := uint64(0)
	for i, chunks := 0, 0; i < b.N; chunks++ {
		c := &Chunk{}
		for ; c.Len() < MaxChunkRows && i < b.N; i++ {
			c.Append(Insert, []types.Datum{types.NewInt(int64(i)), price(), types.NewInt(int64(i / 1000))})
		}
		if err := op.Process(0, c, emit); err != nil {
			b.Fatal(err)
		}
		ts := int64(i / 1000)
		right := &Chunk{}
		right.Append(Insert, []types.Datum{types.NewInt(int64(-chunks - 1)), price(), types.NewInt(ts)})
		if err := op.Process(1, right, emit); err != nil {
			b.Fatal(err)
		}
		for input := range 2 {
			if err := op.(watermarker).Watermark(input, Watermark{Col: 2, Val: types.NewInt(ts - 100)}, emit, noWM); err != nil {
				b.Fatal(err)
			}
		}
		if chunks%16 == 15 {
			epoch++
			if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
				b.Fatal(err)
			}
			mustSeal(b, env.Store, epoch)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkStateCache measures the aggregation of BenchmarkHashAgg over
// 1M groups, all in state before timing starts, with keys drawn uniformly
// or Zipf-distributed, under a cache budget that holds all of them
// (unbounded) or a few percent of them (16 MiB). It reports the cache
// usage at the end.
func BenchmarkStateCache(b *testing.B) {
	const groups = 1 << 20
	dists := []struct {
		name string
		key  func(r *rand.Rand) func() uint64
	}{
		{"uniform", func(r *rand.Rand) func() uint64 { return func() uint64 { return r.Uint64N(groups) } }},
		{"zipf", func(r *rand.Rand) func() uint64 { return rand.NewZipf(r, 1.1, 1, groups-1).Uint64 }},
	}
	budgets := []struct {
		name  string
		bytes int64
	}{{"unbounded", math.MaxInt64}, {"16MiB", 16 << 20}}
	for _, d := range dists {
		for _, budget := range budgets {
			// The state is loaded once; the rounds of a sub-benchmark go on
			// from where the last one stopped.
			var f *feeder
			key := d.key(rand.New(rand.NewPCG(1, 2)))
			b.Run(d.name+"/cache="+budget.name, func(sb *testing.B) {
				if f == nil {
					env := newEnv(b)
					env.Store.SetCacheBytes(budget.bytes)
					f = &feeder{store: env.Store, op: countSum(b, env)}
					f.feed(b, groups, func(i int) []types.Datum {
						return []types.Datum{types.NewInt(int64(i)), types.NewInt(1)}
					})
				}
				sb.ReportAllocs()
				sb.ResetTimer()
				f.feed(sb, sb.N, func(int) []types.Datum {
					return []types.Datum{types.NewInt(int64(key())), types.NewInt(1)}
				})
				sb.ReportMetric(float64(sb.N)/sb.Elapsed().Seconds(), "rows/s")
				sb.ReportMetric(float64(f.store.CacheUsage())/(1<<20), "cache-MiB")
			})
		}
	}
}

// benchChunks feeds b.N rows made by row to op, without sealing, and
// reports rows per second.
func benchChunks(b *testing.B, op Operator, row func(i int) []types.Datum) {
	b.ReportAllocs()
	f := &feeder{op: op}
	f.feed(b, b.N, row)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// feeder feeds rows to an operator: to input 0 (and, for two-input
// operators, alternately 1) in full chunks, with a checkpoint every 16
// chunks, sealed at once if store is set.
type feeder struct {
	store  *Store
	op     Operator
	chunks int
	epoch  uint64
}

// feed feeds n rows made by row(0), row(1), ...
func (f *feeder) feed(b *testing.B, n int, row func(i int) []types.Datum) {
	emit := func(*Chunk) error { return nil }
	_, twoInputs := f.op.(*hashJoin)
	for i := 0; i < n; f.chunks++ {
		c := &Chunk{}
		for ; c.Len() < MaxChunkRows && i < n; i++ {
			c.Append(Insert, row(i))
		}
		input := 0
		if twoInputs {
			input = f.chunks % 2
		}
		if err := f.op.Process(input, c, emit); err != nil {
			b.Fatal(err)
		}
		if f.chunks%16 == 15 {
			f.epoch++
			if err := f.op.Barrier(&Barrier{Epoch: f.epoch, Checkpoint: true}, emit); err != nil {
				b.Fatal(err)
			}
			if f.store == nil {
				continue
			}
			if err := f.store.Seal(f.epoch, nil, true); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkProject measures a projection shaped like Nexmark q5's over
// HOP's expanded bids: 11 columns, of which 3 are copied, 7 are the NULLs
// of columns nothing above reads, and one is computed.
func BenchmarkProject(b *testing.B) {
	exprs := []expr.Expr{colRef(0, types.TInt8)}
	for range 6 {
		exprs = append(exprs, expr.NewConst(types.Null, types.TInt8))
	}
	add, err := expr.NewBinary("+", colRef(1, types.TInt8), expr.NewConst(types.NewInt(1), types.TInt8))
	if err != nil {
		b.Fatal(err)
	}
	exprs = append(exprs, colRef(1, types.TInt8), colRef(2, types.TInt8), expr.NewConst(types.Null, types.TInt8), add)
	op, err := (&ProjectSpec{Exprs: exprs}).Build(newEnv(b))
	if err != nil {
		b.Fatal(err)
	}
	in := []types.Datum{types.NewInt(7), types.NewInt(8), types.NewInt(9)}
	benchChunks(b, op, func(int) []types.Datum { return in })
}
