package exec_test

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
)

// series is generate_series(from, to) over int8 expressions.
func series(t *testing.T, from, to expr.Expr) *expr.SetFunc {
	t.Helper()
	f, err := expr.NewSetFunc("generate_series", []expr.Expr{from, to})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestProjectSet(t *testing.T) {
	tests := []struct {
		name       string
		input      *spy
		funcs      func(t *testing.T) []*expr.SetFunc
		ordinality bool
		want       []string
	}{
		{
			name:  "one function per input row, none for an empty series or NULL",
			input: ints(2, 0, nil),
			funcs: func(t *testing.T) []*expr.SetFunc { return []*expr.SetFunc{series(t, lit(1), col(0))} },
			want:  []string{"2,1", "2,2"},
		},
		{
			name:  "functions run in lockstep, the shorter padded with NULL",
			input: ints(3),
			funcs: func(t *testing.T) []*expr.SetFunc {
				return []*expr.SetFunc{series(t, lit(1), lit(2)), series(t, col(0), lit(3))}
			},
			want: []string{"3,1,3", "3,2,NULL"},
		},
		{
			name:  "ordinality numbers the rows of each input row",
			input: ints(2, 1),
			funcs: func(t *testing.T) []*expr.SetFunc {
				return []*expr.SetFunc{series(t, lit(5), bin(t, "+", lit(4), col(0)))}
			},
			ordinality: true,
			want:       []string{"2,5,1", "2,6,2", "1,5,1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &exec.ProjectSet{Input: tt.input, Funcs: tt.funcs(t), Ordinality: tt.ordinality}
			if got := run(t, op); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	op := &exec.ProjectSet{Input: ints(1), Funcs: []*expr.SetFunc{series(t, lit(1), lit(1000))}}
	if got := take(t, op, 2); len(got) != 2 {
		t.Errorf("stopping early: got %q", got)
	}
}
