package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestConsolidate(t *testing.T) {
	ts := []types.T{types.TInt8, types.TTimestamp}
	pane := &PaneSpec{Col: 1, Width: 20_000_000} // 20 s
	tests := []struct {
		name string
		pane *PaneSpec
		in   []string
		want []string
	}{
		{"equal rows merge, in order of first sight", nil,
			[]string{"+ 1 2024-01-01T10:00:00", "+ 2 2024-01-01T10:00:00", "+ 1 2024-01-01T10:00:00"},
			[]string{"+ 1 2024-01-01 10:00:00 2", "+ 2 2024-01-01 10:00:00 1"}},
		{"inserts and deletes net out", nil,
			[]string{"+ 1 2024-01-01T10:00:00", "- 1 2024-01-01T10:00:00", "- 2 2024-01-01T10:00:00", "U- 3 2024-01-01T10:00:00", "U+ 3 2024-01-01T10:00:05"},
			[]string{"- 2 2024-01-01 10:00:00 1", "- 3 2024-01-01 10:00:00 1", "+ 3 2024-01-01 10:00:05 1"}},
		{"more deletes than inserts", nil,
			[]string{"- 1 2024-01-01T10:00:00", "+ 1 2024-01-01T10:00:00", "- 1 2024-01-01T10:00:00", "- 1 2024-01-01T10:00:00"},
			[]string{"- 1 2024-01-01 10:00:00 2"}},
		{"times of a pane merge at its start", pane,
			[]string{"+ 1 2024-01-01T10:00:05", "+ 1 2024-01-01T10:00:19.999999", "+ 1 2024-01-01T10:00:20", "- 1 2024-01-01T10:00:00"},
			[]string{"+ 1 2024-01-01 10:00:00 1", "+ 1 2024-01-01 10:00:20 1"}},
		{"panes are aligned on the Unix epoch, before it too", pane,
			[]string{"+ 1 1969-12-31T23:59:59", "+ 1 1969-12-31T23:59:40", "+ 1 1970-01-01T00:00:01"},
			[]string{"+ 1 1969-12-31 23:59:40 2", "+ 1 1970-01-01 00:00:00 1"}},
		{"NULL and infinite times stay", pane,
			[]string{"+ 1 NULL", "+ 1 infinity", "+ 1 NULL", "+ 1 -infinity"},
			[]string{"+ 1 NULL 2", "+ 1 infinity 1", "+ 1 -infinity 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := (&ConsolidateSpec{Pane: tt.pane}).Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			// Each chunk is merged on its own: nothing is held to the barrier.
			runSteps(t, op, [][]types.T{ts}, []testStep{
				in(tt.in...).emits(tt.want...), barrier(),
				in(tt.in...).emits(tt.want...), barrier(),
			})
		})
	}
}

// Extremes keep a column's max or min among the merged rows (NULLs only
// where every row has NULL; of equal values the later one, as max and min
// do), and refuse retractions.
func TestConsolidateExtremes(t *testing.T) {
	ts := []types.T{types.TInt8, types.TNumeric, types.TNumeric}
	spec := &ConsolidateSpec{Extremes: []ExtremeSpec{{Col: 1, Max: true}, {Col: 2}}}
	op, err := spec.Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, op, [][]types.T{ts}, []testStep{
		in("+ 1 5 5", "+ 2 NULL NULL", "+ 1 7 6", "+ 1 NULL 2", "+ 1 7.0 2.00", "+ 2 NULL NULL", "+ 3 NULL 1", "+ 3 4 NULL").
			emits("+ 1 7.0 2.00 4", "+ 2 NULL NULL 2", "+ 3 4 1 2"),
	})
	if err := op.Process(0, parseChunk(t, ts, "- 1 5 5"), func(*Chunk) error { return nil }); err != errAppendOnly {
		t.Fatalf("a retraction with extremes: %v", err)
	}
}

func TestConsolidateWatermark(t *testing.T) {
	op, err := (&ConsolidateSpec{Pane: &PaneSpec{Col: 1, Width: 20_000_000}}).Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []Watermark
	out := func(w Watermark) error { got = append(got, w); return nil }
	at := func(s string) types.Datum {
		d, err := types.ParseText(types.TTimestamp, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, w := range []Watermark{
		{Col: 1, Val: at("2024-01-01 10:00:05")},
		{Col: 1, Val: at("2024-01-01 10:00:19")}, // the same pane: not repeated
		{Col: 0, Val: types.NewInt(7)},           // other columns pass as they are
		{Col: 1, Val: at("2024-01-01 10:00:20")},
	} {
		if err := op.(watermarker).Watermark(0, w, nil, out); err != nil {
			t.Fatal(err)
		}
	}
	want := []Watermark{{Col: 1, Val: at("2024-01-01 10:00:00")}, {Col: 0, Val: types.NewInt(7)}, {Col: 1, Val: at("2024-01-01 10:00:20")}}
	if len(got) != len(want) {
		t.Fatalf("watermarks %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Col != want[i].Col || types.Compare(got[i].Val, want[i].Val) != 0 {
			t.Errorf("watermark %d: %v, want %v", i, got[i], want[i])
		}
	}
}
