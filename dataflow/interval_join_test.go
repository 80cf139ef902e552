package dataflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// intervalTypes are both interval join inputs' rows: id (stream key),
// join key, time.
var intervalTypes = []types.T{types.TInt8, types.TInt4, types.TInt8}

// intervalJoinSpec joins intervalTypes rows on the key with
// r.ts - 2 <= l.ts <= r.ts + 3: a left row is dead once the right
// watermark minus 2 passes its time, a right row once the left watermark
// passes its time plus 3. Both sides' time columns get output watermarks.
func intervalJoinSpec(t tester, kind exec.JoinKind) *HashJoinSpec {
	ts := colRef(2, types.TInt8)
	n := func(v int64) expr.Expr { return expr.NewConst(types.NewInt(v), types.TInt8) }
	spec := &HashJoinSpec{Kind: kind, LeftKey: []int{1}, RightKey: []int{1},
		Cond: &expr.And{Args: []expr.Expr{
			binOp(t, "<=", binOp(t, "-", colRef(5, types.TInt8), n(2)), ts),
			binOp(t, "<=", ts, binOp(t, "+", colRef(5, types.TInt8), n(3)))}},
		LeftTypes: intervalTypes, RightTypes: intervalTypes, LeftStreamKey: []int{0}, RightStreamKey: []int{0},
		LeftTable: freshTable(), RightTable: freshTable()}
	spec.Interval[0] = &IntervalBound{Key: ts, KeyCol: 2, Bound: binOp(t, "-", ts, n(2)), BoundCol: 2, Clean: true, Inverse: ts}
	spec.Interval[1] = &IntervalBound{Key: binOp(t, "+", ts, n(3)), KeyCol: 2, Bound: ts, BoundCol: 2, Clean: true,
		Inverse: binOp(t, "-", ts, n(3))}
	return spec
}

func TestIntervalJoinCleansState(t *testing.T) {
	env := newEnv(t)
	spec := intervalJoinSpec(t, exec.Left)
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	var out collector
	var wms []string
	wm := func(input int, v int64) {
		t.Helper()
		err := op.(watermarker).Watermark(input, Watermark{Col: 2, Val: types.NewInt(v)}, out.emit,
			func(w Watermark) error { wms = append(wms, fmt.Sprintf("%d@%d", w.Val.Int(), w.Col)); return nil })
		if err != nil {
			t.Fatal(err)
		}
	}
	process := func(input int, rows ...string) {
		t.Helper()
		if err := op.Process(input, parseChunk(t, intervalTypes, rows...), out.emit); err != nil {
			t.Fatal(err)
		}
	}
	process(0, "+ 1 1 10", "+ 2 1 20")
	process(1, "+ 7 1 9")
	wm(0, 10)
	wm(1, 9)
	// Left row 1 (10) can still match a right row at 12, right row 7
	// (9 + 3 = 12) a left row at 12. Output watermarks: left min(10,
	// 9 - 2), right min(9, 10 - 3).
	wm(1, 13)
	// Left row 1 is dead (10 < 13 - 2); its match and the padded row 2
	// stay.
	wm(0, 13)
	// Right row 7 is dead (12 < 13).
	if err := op.Barrier(&Barrier{Epoch: 1, Checkpoint: true}, out.emit); err != nil {
		t.Fatal(err)
	}
	if err := env.Store.Seal(1, nil, true); err != nil {
		t.Fatal(err)
	}
	want := []string{"+ 1 1 10 NULL NULL NULL", "+ 2 1 20 NULL NULL NULL", "- 1 1 10 NULL NULL NULL", "+ 1 1 10 7 1 9"}
	if got := out.take(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("output\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := strings.Join(wms, " "), "7@2 7@5 10@2 11@2 10@5"; got != want {
		t.Errorf("output watermarks %s, want %s", got, want)
	}
	if l, r := stored(t, env.Store, spec.LeftTable), stored(t, env.Store, spec.RightTable); l != 1 || r != 0 {
		t.Errorf("state holds %d left and %d right rows, want 1 and 0", l, r)
	}
}

// TestIntervalJoinOracle checks every join kind over append-only inputs
// whose rows respect random watermarks: the output equals exec.Join over
// all rows whatever the join deleted from its state, through recoveries;
// no output row comes below an output watermark sent before it; and once
// both watermarks are past every row, the state is empty.
func TestIntervalJoinOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom([]exec.JoinKind{exec.Inner, exec.Left, exec.Right, exec.Full}).Draw(rt, "kind")
		spec := intervalJoinSpec(rt, kind)
		store := NewStore(engine)
		build := func() Operator { return mustBuild(rt, spec, envOver(store)) }
		op := build()
		v := newView()
		outWM := map[int]int64{}
		emit := func(c *Chunk) error {
			for _, row := range c.Rows {
				for col, w := range outWM {
					if !row[col].IsNull() && row[col].Int() < w {
						return fmt.Errorf("row %s below the output watermark %d of column %d", rowString(row), w, col)
					}
				}
			}
			return v.apply(c)
		}
		sendWM := func(w Watermark) error { outWM[w.Col] = w.Val.Int(); return nil }
		var rows [2][][]types.Datum
		wm := [2]int64{}
		watermark := func(input int) {
			if err := op.(watermarker).Watermark(input, Watermark{Col: 2, Val: types.NewInt(wm[input])}, emit, sendWM); err != nil {
				rt.Fatal(err)
			}
		}
		epoch := uint64(0)
		id := int64(0)
		for range rapid.IntRange(1, 80).Draw(rt, "steps") {
			input := rapid.IntRange(0, 1).Draw(rt, "input")
			switch rapid.SampledFrom([]string{"row", "row", "row", "watermark", "checkpoint", "recover"}).Draw(rt, "action") {
			case "row":
				id++
				row := []types.Datum{types.NewInt(id), drawValue(rt, types.TInt4, "1", "2"),
					types.NewInt(wm[input] + rapid.Int64Range(0, 8).Draw(rt, "ahead"))}
				rows[input] = append(rows[input], row)
				if err := op.Process(input, &Chunk{Ops: []Op{Insert}, Rows: [][]types.Datum{row}}, emit); err != nil {
					rt.Fatal(err)
				}
			case "watermark":
				wm[input] += rapid.Int64Range(0, 4).Draw(rt, "advance")
				watermark(input)
			default:
				epoch++
				if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
					rt.Fatal(err)
				}
				if err := store.Seal(epoch, nil, true); err != nil {
					rt.Fatal(err)
				}
				if rapid.Bool().Draw(rt, "recover") {
					store = NewStore(engine)
					op = build()
					// Upstream sends its watermarks again after a restart.
					watermark(0)
					watermark(1)
				}
			}
		}
		want := sortedRows(batch(rt, &exec.Join{Kind: kind, Left: exec.Rows(rows[0]), Right: exec.Rows(rows[1]),
			LeftKeys: []expr.Expr{colRef(1, types.TInt4)}, RightKeys: []expr.Expr{colRef(1, types.TInt4)},
			On: spec.Cond, LeftWidth: 3, RightWidth: 3}))
		if got := v.sorted(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			rt.Fatalf("view\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		wm = [2]int64{1000, 1000}
		watermark(0)
		watermark(1)
		epoch++
		if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
			rt.Fatal(err)
		}
		if err := store.Seal(epoch, nil, true); err != nil {
			rt.Fatal(err)
		}
		if l, r := stored(rt, store, spec.LeftTable), stored(rt, store, spec.RightTable); l+r != 0 {
			rt.Fatalf("state holds %d left and %d right rows after the last watermarks", l, r)
		}
	})
}
