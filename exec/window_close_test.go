package exec_test

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// TestWindowClose checks session frames, IGNORE NULLS and, for a partition
// (o, v) whose rows arrive in order, which rows are final and which rows
// the first row not emitted can still reach.
func TestWindowClose(t *testing.T) {
	// o = 1, 2, 5, 6, 6, 20: with gap 3 the sessions are [1, 2],
	// [5, 6, 6] and [20].
	rows := [][]types.Datum{row(1, 10), row(2, nil), row(5, 30), row(6, 40), row(6, nil), row(20, 60)}
	session := exec.Frame{Mode: exec.FrameSession, Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: lit(3)},
		End: exec.FrameBound{Kind: exec.OffsetFollowing, Offset: lit(3)}}
	tests := []struct {
		name string
		fn   exec.WindowFunc
		want []any
		// final is how many rows are final; reach what row 3 reaches.
		final, reach int
	}{
		{"session start", exec.WindowFunc{Name: "first_value", Args: []expr.Expr{col(0)}, Frame: session}, []any{1, 1, 5, 5, 5, 20}, 5, 2},
		{"session end", exec.WindowFunc{Name: "last_value", Args: []expr.Expr{col(0)}, Frame: session}, []any{2, 2, 6, 6, 6, 20}, 5, 2},
		{"last non-null", exec.WindowFunc{Name: "last_value", Args: []expr.Expr{col(1)}, Frame: exec.DefaultFrame, IgnoreNulls: true}, []any{10, 10, 30, 40, 40, 60}, 6, 0},
		{"first non-null of rows 1 following", exec.WindowFunc{Name: "first_value", Args: []expr.Expr{col(1)}, IgnoreNulls: true,
			Frame: frame(exec.FrameRows, exec.CurrentRow, 0, exec.OffsetFollowing, 1)}, []any{10, 30, 30, 40, 60, 60}, 5, 3},
		{"row_number", exec.WindowFunc{Name: "row_number"}, []any{1, 2, 3, 4, 5, 6}, 6, 3},
		{"lag 2", exec.WindowFunc{Name: "lag", Args: []expr.Expr{col(1), lit(2)}}, []any{nil, nil, 10, nil, 30, 40}, 6, 1},
		{"lead 2", exec.WindowFunc{Name: "lead", Args: []expr.Expr{col(1), lit(2)}}, []any{30, 40, nil, 60, nil, nil}, 4, 3},
	}
	c := newCtx()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			order := []exec.SortKey{{Col: 0}}
			ev, err := exec.NewWindowEval(c, order, []exec.WindowFunc{tc.fn})
			if err != nil {
				t.Fatal(err)
			}
			res := [][]types.Datum{make([]types.Datum, len(rows))}
			if err := ev.Compute(c, rows, res); err != nil {
				t.Fatal(err)
			}
			if want := row(tc.want...); !slices.EqualFunc(res[0], want, func(a, b types.Datum) bool { return types.Compare(a, b) == 0 }) {
				t.Errorf("values %v, want %v", res[0], want)
			}
			if final, err := ev.Final(c, rows); err != nil || final != tc.final {
				t.Errorf("Final = %d, %v; want %d", final, err, tc.final)
			}
			// Reach starts peer groups: row 3's peers start at 3.
			if reach, _, err := ev.Reach(c, rows, 3); err != nil || reach != tc.reach {
				t.Errorf("Reach(3) = %d, %v; want %d", reach, err, tc.reach)
			}
		})
	}
}
