package dataflow

import (
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// eowcPipeline is a table's watermark filter (WATERMARK FOR ts AS ts -
// delay), a projection adding tumble_start(ts, 10 s) and a window
// aggregation grouped by it that emits on window close, wired as an
// actor's chain wires them.
type eowcPipeline struct {
	specs  []Spec
	ops    []Operator
	emits  []Emit
	wms    []WatermarkEmit
	closed types.Datum // the aggregation's last output watermark
}

// build (re)builds the operators over store.
func (p *eowcPipeline) build(t tester, store *Store, sink Emit) {
	p.ops = make([]Operator, len(p.specs))
	for i, s := range p.specs {
		p.ops[i] = mustBuild(t, s, envOver(store))
	}
	n := len(p.ops)
	p.emits = make([]Emit, n)
	p.wms = make([]WatermarkEmit, n)
	p.emits[n-1] = sink
	p.wms[n-1] = func(w Watermark) error { p.closed = w.Val; return nil }
	for i := n - 2; i >= 0; i-- {
		next, emit, wm := p.ops[i+1], &p.emits[i+1], &p.wms[i+1]
		p.emits[i] = func(c *Chunk) error { return next.Process(0, c, *emit) }
		p.wms[i] = func(w Watermark) error { return next.(watermarker).Watermark(0, w, *emit, *wm) }
	}
	p.ops[0].(watermarkSource).setWatermarkOut(p.wms[0])
}

// TestEOWCWindowAggOracle checks that an EMIT ON WINDOW CLOSE window
// aggregation over random, roughly ordered rows emits exactly the batch
// aggregation of the rows at or above the watermark when they arrived, for
// the windows its watermark closed, across recoveries.
func TestEOWCWindowAggOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	in := []types.T{types.TInt8, types.TTimestamp, types.TInt4}
	sec := func(s int64) types.Datum { return types.NewTimestamp(s * 1e6) }
	ivSec := func(s int64) expr.Expr {
		return expr.NewConst(types.NewInterval(types.IntervalValue{Micros: s * 1e6}), types.TInterval)
	}
	rapid.Check(t, func(rt *rapid.T) {
		ts := colRef(1, types.TTimestamp)
		delay := rapid.Int64Range(0, 15).Draw(rt, "delay")
		win, err := expr.NewFunc("tumble_start", []expr.Expr{ts, ivSec(10)})
		if err != nil {
			rt.Fatal(err)
		}
		proj := []expr.Expr{colRef(0, types.TInt8), ts, colRef(2, types.TInt4), win}
		aggs := []*expr.AggFunc{newAgg(rt, "count", false), newAgg(rt, "sum", false, colRef(2, types.TInt4)), newAgg(rt, "max", false, colRef(2, types.TInt4))}
		projTypes := append(slices.Clone(in), types.TTimestamp)
		p := &eowcPipeline{specs: []Spec{
			&WatermarkFilterSpec{Col: 1, Expr: binOp(rt, "-", ts, ivSec(delay)), Type: types.TTimestamp, StateTable: freshTable()},
			&ProjectSpec{Exprs: proj},
			&HashAggSpec{GroupKey: []int{3}, Aggs: aggs, InputTypes: projTypes, StateTable: freshTable(), MultisetTable: freshTable(),
				AppendOnly: true, WindowKey: true, EmitOnWindowClose: true},
		}}
		store := NewStore(engine)
		v := newView()
		p.build(rt, store, v.apply)
		// kept are the projected rows at or above the watermark when they
		// arrived; mark is the largest ts - delay so far.
		var kept [][]types.Datum
		mark, clock := types.Null, int64(0)
		var chunk *Chunk
		flush := func() {
			if chunk == nil {
				return
			}
			if err := p.ops[0].Process(0, chunk, p.emits[0]); err != nil {
				rt.Fatal(err)
			}
			for _, row := range chunk.Rows {
				w := sec(row[1].Int()/1e6 - delay)
				if mark.IsNull() || types.Compare(w, mark) > 0 {
					mark = w
				}
			}
			chunk = nil
		}
		var epoch uint64
		steps := rapid.IntRange(1, 80).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			switch action := rapid.SampledFrom([]string{"row", "row", "row", "chunk", "barrier", "recover"}).Draw(rt, "action"); action {
			case "row":
				clock += rapid.Int64Range(0, 4).Draw(rt, "advance")
				at := clock - rapid.Int64Range(0, 20).Draw(rt, "lateness")
				row := []types.Datum{types.NewInt(int64(s)), sec(at), types.NewInt(rapid.Int64Range(-5, 5).Draw(rt, "v"))}
				if chunk == nil {
					chunk = &Chunk{}
				}
				chunk.Append(Insert, row)
				if mark.IsNull() || types.Compare(row[1], mark) >= 0 {
					kept = append(kept, append(slices.Clone(row), sec(at-((at%10)+10)%10)))
				}
			case "chunk":
				flush()
			default:
				flush()
				epoch++
				for _, op := range p.ops {
					if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, p.emitsOf(op)); err != nil {
						rt.Fatal(err)
					}
				}
				if action == "recover" {
					if err := store.Seal(epoch, nil, true); err != nil {
						rt.Fatal(err)
					}
					store = NewStore(engine)
					p.build(rt, store, v.apply)
				}
			}
		}
		flush()
		var want []string
		if !p.closed.IsNull() {
			var closed [][]types.Datum
			for _, r := range kept {
				if types.Compare(r[3], p.closed) < 0 {
					closed = append(closed, r)
				}
			}
			out := batch(rt, &exec.HashAgg{Input: exec.Rows(closed), Group: []expr.Expr{colRef(3, types.TTimestamp)}, Aggs: aggs})
			want = sortedRows(out)
		}
		if got := v.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("emitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// emitsOf returns where op's output goes.
func (p *eowcPipeline) emitsOf(op Operator) Emit {
	return p.emits[slices.Index(p.ops, op)]
}
