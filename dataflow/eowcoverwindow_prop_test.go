package dataflow

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// TestEowcOverWindowOracle checks the EMIT ON WINDOW CLOSE over-window
// operator over random watermarked rows (none below the watermark),
// watermarks, barriers and recoveries: it must emit, once each, exactly
// the rows below the last watermark whose values are final
// (exec.WindowEval.Final over each partition's rows below it), with the
// values of the batch window query over all the rows.
func TestEowcOverWindowOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	v, o := colRef(3, types.TInt4), colRef(2, types.TInt4)
	int4 := func(n int64) expr.Expr { return expr.NewConst(types.NewInt(n), types.TInt4) }
	int8 := func(n int64) expr.Expr { return expr.NewConst(types.NewInt(n), types.TInt8) }
	session := &exec.Frame{Mode: exec.FrameSession,
		Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: int4(2)},
		End:   exec.FrameBound{Kind: exec.OffsetFollowing, Offset: int4(2)}}
	rangeFrame := &exec.Frame{Mode: exec.FrameRange,
		Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: int4(1)},
		End:   exec.FrameBound{Kind: exec.OffsetFollowing, Offset: int4(2)}}
	excluding := func(fr *exec.Frame, x exec.FrameExclusion) *exec.Frame {
		f := *fr
		f.Exclude = x
		return &f
	}
	pool := []exec.WindowFunc{
		winFunc(t, "row_number", nil), winFunc(t, "rank", nil), winFunc(t, "dense_rank", nil),
		winFunc(t, "lag", nil, v, int8(2)), winFunc(t, "lead", nil, v), winFunc(t, "lead", nil, v, int8(2), int4(-1)),
		winFunc(t, "first_value", nil, v), winFunc(t, "last_value", offsetFrame(exec.FrameRows, 0, 1), v),
		winFunc(t, "sum", offsetFrame(exec.FrameRows, 1, 1), v), winFunc(t, "count", offsetFrame(exec.FrameGroups, 1, 1)),
		winFunc(t, "max", rangeFrame, v), winFunc(t, "sum", session, v),
		winFunc(t, "first_value", session, o), winFunc(t, "last_value", session, o),
		winFunc(t, "sum", excluding(offsetFrame(exec.FrameRows, 2, 0), exec.ExcludeCurrentRow), v),
		winFunc(t, "nth_value", excluding(offsetFrame(exec.FrameRows, 2, 2), exec.ExcludeGroup), v, int4(2)),
		winFunc(t, "min", excluding(rangeFrame, exec.ExcludeTies), v),
		winFunc(t, "count", excluding(offsetFrame(exec.FrameGroups, 0, 1), exec.ExcludeGroup)),
	}
	rapid.Check(t, func(rt *rapid.T) {
		var partition []int
		if rapid.Bool().Draw(rt, "partitioned") {
			partition = []int{1}
		}
		order := []SortKey{{Col: 2}}
		funcs := make([]exec.WindowFunc, rapid.IntRange(1, 3).Draw(rt, "funcs"))
		for i := range funcs {
			funcs[i] = rapid.SampledFrom(pool).Draw(rt, "func")
		}
		spec := &EowcOverWindowSpec{Partition: partition, Order: order, Funcs: funcs, InputTypes: winTypes,
			FuncTypes: funcTypes(funcs), StreamKey: []int{0}, StateTable: freshTable(), CountTable: freshTable()}
		store := NewStore(engine)
		build := func() Operator { return mustBuild(rt, spec, envOver(store)) }
		op := build()
		view := newView()
		emit := func(c *Chunk) error { return view.apply(c) }
		var rows [][]types.Datum
		var chunk *Chunk
		flush := func() {
			if chunk != nil {
				if err := op.Process(0, chunk, emit); err != nil {
					rt.Fatal(err)
				}
			}
			chunk = nil
		}
		wm, marked := int64(0), false
		var epoch uint64
		steps := rapid.IntRange(1, 60).Draw(rt, "steps")
		for s := 0; s < steps; s++ {
			switch action := rapid.SampledFrom([]string{"row", "row", "row", "chunk", "watermark", "barrier", "recover"}).Draw(rt, "action"); action {
			case "row":
				at := wm + rapid.Int64Range(0, 4).Draw(rt, "ahead")
				row := []types.Datum{types.NewInt(int64(s)), drawValue(rt, types.TInt4, "1", "2"), types.NewInt(at),
					drawValue(rt, types.TInt4, "5", "7", "-3")}
				if chunk == nil {
					chunk = &Chunk{}
				}
				chunk.Append(Insert, row)
				rows = append(rows, row)
			case "chunk":
				flush()
			case "watermark":
				flush()
				wm, marked = wm+rapid.Int64Range(0, 3).Draw(rt, "advance"), true
				if err := op.(watermarker).Watermark(0, Watermark{Col: 2, Val: types.NewInt(wm)}, emit, nil); err != nil {
					rt.Fatal(err)
				}
			default:
				flush()
				epoch++
				if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
					rt.Fatal(err)
				}
				if action == "recover" {
					if err := store.Seal(epoch, nil, true); err != nil {
						rt.Fatal(err)
					}
					store = NewStore(engine)
					op = build()
				}
			}
		}
		flush()
		var want []string
		if marked {
			want = closedRows(rt, partition, order, funcs, rows, types.NewInt(wm))
		}
		if got := view.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("emitted\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// closedRows returns, sorted, the batch window query's output rows over
// rows (id first, in id order) for the rows below watermark wm whose
// values are final.
func closedRows(t *rapid.T, partition []int, order []SortKey, funcs []exec.WindowFunc, rows [][]types.Datum, wm types.Datum) []string {
	ctx := expr.NewCtx(context.Background(), nil)
	ev, err := exec.NewWindowEval(ctx, order, funcs)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string][][]types.Datum{}
	for _, r := range rows {
		if types.Compare(r[order[0].Col], wm) < 0 {
			k, _ := rowkey.AppendCols(nil, r, partition)
			parts[string(k)] = append(parts[string(k)], r)
		}
	}
	closed := map[int64]bool{}
	for _, p := range parts {
		slices.SortStableFunc(p, func(a, b []types.Datum) int { return types.Compare(a[order[0].Col], b[order[0].Col]) })
		n, err := ev.Final(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p[:n] {
			closed[r[0].Int()] = true
		}
	}
	var out [][]types.Datum
	for _, r := range batch(t, &exec.Window{Input: exec.Rows(rows), Partition: partition, Order: order, Funcs: funcs}) {
		if closed[r[0].Int()] {
			out = append(out, r)
		}
	}
	return sortedRows(out)
}
