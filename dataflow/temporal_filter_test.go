package dataflow

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// temporalTypes are a temporal filter test's rows: id (stream key), ts.
var temporalTypes = []types.T{types.TInt8, types.TTimestampTZ}

// clockBase is the test clock's second 0: 2024-01-01 00:00:00+00.
var clockBase = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// tick is a checkpoint barrier whose clock reads second sec.
func tick(sec int64) testStep {
	return testStep{barrier: true, checkpoint: true, time: clockBase.Add(time.Duration(sec) * time.Second).UnixMicro()}
}

// ts renders second sec of the test clock as a row value.
func ts(sec int64) string {
	return clockBase.Add(time.Duration(sec)*time.Second).Format("2006-01-02T15:04:05") + "+00"
}

// at renders second sec of the test clock as Chunk.String does.
func at(sec int64) string {
	return clockBase.Add(time.Duration(sec)*time.Second).Format("2006-01-02 15:04:05") + "+00"
}

// nowPlus returns the bound now() + sec seconds.
func nowPlus(t *testing.T, sec int64, inclusive bool) *TemporalBound {
	t.Helper()
	now, err := expr.NewFunc("now", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := expr.NewConst(types.NewInterval(types.IntervalValue{Micros: sec * 1e6}), types.TInterval)
	return &TemporalBound{Now: binOp(t, "+", now, d), Inclusive: inclusive}
}

// temporalSpec filters temporalTypes rows on ts.
func temporalSpec(lower, upper *TemporalBound) *TemporalFilterSpec {
	return &TemporalFilterSpec{Expr: colRef(1, types.TTimestampTZ), Lower: lower, Upper: upper,
		Types: temporalTypes, StreamKey: []int{0}, StateTable: freshTable()}
}

func TestTemporalFilter(t *testing.T) {
	row := func(op string, id int, sec int64) string { return op + " " + string(rune('0'+id)) + " " + ts(sec) }
	want := func(op string, id int, sec int64) string { return op + " " + string(rune('0'+id)) + " " + at(sec) }
	tests := []struct {
		name         string
		lower, upper *TemporalBound
		// orNull adds OR ts IS NULL.
		orNull bool
		steps  []testStep
	}{
		{
			name: "ts > now() - 2s: rows leave", lower: nowPlus(t, -2, false),
			steps: []testStep{
				tick(10),
				in(row("+", 1, 9), row("+", 2, 8), row("+", 3, 12), "+ 4 NULL").emits(want("+", 1, 9), want("+", 3, 12)),
				tick(11).emits(want("-", 1, 9)),
				in(row("U-", 3, 12), row("U+", 3, 10)).emits(want("U-", 3, 12), want("U+", 3, 10)),
				in(row("U-", 3, 10), row("U+", 3, 5)).emits(want("-", 3, 10)),
				in(row("-", 2, 8), row("-", 3, 5)),
				tick(20),
			},
		},
		{
			name: "ts <= now(): rows enter", upper: nowPlus(t, 0, true),
			steps: []testStep{
				tick(10),
				in(row("+", 1, 9), row("+", 2, 11), row("+", 3, 15), row("+", 4, 10)).emits(want("+", 1, 9), want("+", 4, 10)),
				tick(12).emits(want("+", 2, 11)),
				in(row("-", 3, 15)),
				tick(20),
				in(row("-", 2, 11)).emits(want("-", 2, 11)),
			},
		},
		{
			name: "ts >= now() - 5s AND ts < now(): rows enter, then leave", lower: nowPlus(t, -5, true), upper: nowPlus(t, 0, false),
			steps: []testStep{
				tick(10),
				in(row("+", 1, 4), row("+", 2, 7), row("+", 3, 12), row("+", 4, 30), row("+", 5, 5)).emits(want("+", 2, 7), want("+", 5, 5)),
				tick(12).emits(want("-", 5, 5)),
				// Each vnode's rows in turn.
				tick(13).emits(want("+", 3, 12), want("-", 2, 7)),
				// Row 4 goes from above the window to below it at once.
				tick(40).emits(want("-", 3, 12)),
			},
		},
		{
			name: "ts > now() - 2s OR ts IS NULL: NULLs pass and stay", lower: nowPlus(t, -2, false), orNull: true,
			steps: []testStep{
				tick(10),
				in(row("+", 1, 9), "+ 2 NULL", row("+", 3, 5)).emits(want("+", 1, 9), "+ 2 NULL"),
				tick(20).emits(want("-", 1, 9)),
				in("U- 2 NULL", row("U+", 2, 19)).emits("U- 2 NULL", want("U+", 2, 19)),
				in(row("U-", 2, 19), "U+ 2 NULL").emits(want("U-", 2, 19), "U+ 2 NULL"),
				tick(30),
				in("- 2 NULL").emits("- 2 NULL"),
			},
		},
		{
			name: "a clock going back moves nothing", lower: nowPlus(t, -2, false),
			steps: []testStep{
				tick(10),
				in(row("+", 1, 9)).emits(want("+", 1, 9)),
				tick(5),
				in(row("+", 2, 8)),
				tick(12).emits(want("-", 1, 9)),
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := temporalSpec(tc.lower, tc.upper)
			if tc.orNull {
				spec.Or = &expr.IsNull{E: colRef(1, types.TTimestampTZ)}
			}
			op, err := spec.Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{temporalTypes}, tc.steps)
		})
	}
}

// TestTemporalFilterRecovery checks that a rebuilt filter resumes with the
// committed rows and clock: a restart whose clock reads earlier moves no
// bound back, and rows leave when the clock passes them; what left is
// deleted from state.
func TestTemporalFilterRecovery(t *testing.T) {
	env := newEnv(t)
	spec := temporalSpec(nowPlus(t, -2, false), nil)
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, op, [][]types.T{temporalTypes}, []testStep{
		tick(10),
		in("+ 1 "+ts(9), "+ 2 "+ts(11), "+ 3 "+ts(20)).emits("+ 1 "+at(9), "+ 2 "+at(11), "+ 3 "+at(20)),
		tick(11).emits("- 1 " + at(9)),
	})
	if err := env.Store.Seal(2, nil, true); err != nil {
		t.Fatal(err)
	}
	// kill -9: a new store over the same engine; barrier 3 never sealed.
	restarted := envOver(NewStore(env.Store.Engine()))
	if op, err = spec.Build(restarted); err != nil {
		t.Fatal(err)
	}
	var out collector
	steps := []struct {
		sec  int64
		want string
	}{{5, ""}, {13, "- 2 " + at(11)}, {30, "- 3 " + at(20)}}
	for i, s := range steps {
		if err := op.Barrier(&Barrier{Epoch: uint64(3 + i), Checkpoint: true, Time: tick(s.sec).time}, out.emit); err != nil {
			t.Fatal(err)
		}
		if got := out.b.String(); got != s.want+map[bool]string{true: "\n"}[s.want != ""] {
			t.Errorf("barrier at %ds emitted %q, want %q", s.sec, got, s.want)
		}
		out.take()
	}
	if err := restarted.Store.Seal(5, nil, true); err != nil {
		t.Fatal(err)
	}
	// What stays is the clock of each vnode.
	if n := stored(t, restarted.Store, spec.StateTable); n != testVNodes {
		t.Errorf("%d entries in state, want the %d clocks", n, testVNodes)
	}
}

// TestTemporalFilterWatermark checks that a lower bound's watermark goes
// out at each barrier that moves it, after the deletes of the rows it lets
// out, and that a later retraction of such a row emits nothing.
func TestTemporalFilterWatermark(t *testing.T) {
	spec := temporalSpec(nowPlus(t, -2, false), nil)
	spec.Watermark = &TemporalWatermark{Col: 1, Of: colRef(0, types.TTimestampTZ)}
	op, err := spec.Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	var out collector
	op.(watermarkSource).setWatermarkOut(func(w Watermark) error {
		out.b.WriteString(fmt.Sprintf("W $%d %s\n", w.Col, rowString([]types.Datum{w.Val})))
		return nil
	})
	steps := []struct {
		rows []string
		time int64 // a barrier's second, if no rows
		want []string
	}{
		{time: 10, want: []string{"W $1 " + at(8)}},
		{rows: []string{"+ 1 " + ts(9), "+ 2 " + ts(11), "+ 3 " + ts(7)}, want: []string{"+ 1 " + at(9), "+ 2 " + at(11)}},
		{time: 10},
		{time: 12, want: []string{"- 1 " + at(9), "W $1 " + at(10)}},
		{rows: []string{"- 1 " + ts(9), "+ 4 " + ts(10)}},
		{time: 14, want: []string{"- 2 " + at(11), "W $1 " + at(12)}},
	}
	for i, s := range steps {
		if s.rows != nil {
			err = op.Process(0, parseChunk(t, temporalTypes, s.rows...), out.emit)
		} else {
			err = op.Barrier(&Barrier{Epoch: uint64(i + 1), Checkpoint: true, Time: clockBase.Add(time.Duration(s.time) * time.Second).UnixMicro()}, out.emit)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := out.take(); !slices.Equal(got, s.want) {
			t.Fatalf("step %d: output\n%s\nwant\n%s", i, strings.Join(got, "\n"), strings.Join(s.want, "\n"))
		}
	}
}
