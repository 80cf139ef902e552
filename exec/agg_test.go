package exec_test

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
)

func agg(t *testing.T, name string, distinct bool, args ...expr.Expr) *expr.AggFunc {
	t.Helper()
	a, err := expr.NewAgg(name, args, distinct, len(args) == 0)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestHashAgg(t *testing.T) {
	// (g, x) rows: groups 1, NULL and 2 in order of first appearance.
	in := func() exec.Op {
		return source(row(1, 10), row(nil, 5), row(1, nil), row(2, 7), row(nil, 5), row(1, 10))
	}
	tests := []struct {
		name  string
		input func() exec.Op
		group func(t *testing.T) []expr.Expr
		aggs  func(t *testing.T) []*expr.AggFunc
		want  []string
	}{
		{
			name:  "global aggregates",
			input: in,
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{agg(t, "count", false), agg(t, "count", false, col(1)), agg(t, "sum", false, col(1)),
					agg(t, "min", false, col(1)), agg(t, "max", false, col(1)), agg(t, "count", true, col(1))}
			},
			want: []string{"6,5,37,5,10,3"},
		},
		{
			name:  "global aggregates over empty input give one row",
			input: func() exec.Op { return source() },
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{agg(t, "count", false), agg(t, "count", false, col(1)), agg(t, "sum", false, col(1)), agg(t, "max", false, col(1))}
			},
			want: []string{"0,0,NULL,NULL"},
		},
		{
			name:  "no aggregates and no groups",
			input: in,
			want:  []string{""},
		},
		{
			name:  "grouped over empty input gives no rows",
			input: func() exec.Op { return source() },
			group: func(*testing.T) []expr.Expr { return []expr.Expr{col(0)} },
			aggs:  func(t *testing.T) []*expr.AggFunc { return []*expr.AggFunc{agg(t, "count", false)} },
			want:  nil,
		},
		{
			name:  "groups with a NULL group, in order of appearance",
			input: in,
			group: func(*testing.T) []expr.Expr { return []expr.Expr{col(0)} },
			aggs: func(t *testing.T) []*expr.AggFunc {
				return []*expr.AggFunc{agg(t, "count", false), agg(t, "sum", false, col(1)), agg(t, "count", true, col(1))}
			},
			want: []string{"1,3,20,1", "NULL,2,10,1", "2,1,7,1"},
		},
		{
			name:  "group by only (distinct)",
			input: in,
			group: func(*testing.T) []expr.Expr { return []expr.Expr{col(1)} },
			want:  []string{"10", "5", "NULL", "7"},
		},
		{
			name:  "group by an expression and two keys",
			input: in,
			group: func(t *testing.T) []expr.Expr {
				return []expr.Expr{bin(t, "%", col(1), lit(2)), col(0)}
			},
			aggs: func(t *testing.T) []*expr.AggFunc { return []*expr.AggFunc{agg(t, "count", false)} },
			want: []string{"0,1,2", "1,NULL,2", "NULL,1,1", "1,2,1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &exec.HashAgg{Input: tt.input()}
			if tt.group != nil {
				op.Group = tt.group(t)
			}
			if tt.aggs != nil {
				op.Aggs = tt.aggs(t)
			}
			equalRows(t, "rows", run(t, op), tt.want)
		})
	}
}

func TestHashAggEarlyStop(t *testing.T) {
	op := &exec.HashAgg{Input: ints(3, 1, 3, 2), Group: []expr.Expr{col(0)}, Aggs: []*expr.AggFunc{agg(t, "count", false)}}
	equalRows(t, "rows", take(t, op, 2), []string{"3,2", "1,1"})
}

func TestHashAggErrors(t *testing.T) {
	tests := []struct {
		name string
		op   func(t *testing.T) *exec.HashAgg
	}{
		{"in a group expression", func(t *testing.T) *exec.HashAgg {
			return &exec.HashAgg{Input: ints(1), Group: []expr.Expr{bin(t, "/", col(0), lit(0))}}
		}},
		{"in an aggregate argument", func(t *testing.T) *exec.HashAgg {
			return &exec.HashAgg{Input: ints(1), Aggs: []*expr.AggFunc{agg(t, "sum", false, bin(t, "/", col(0), lit(0)))}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := exec.Collect(newCtx(), tt.op(t)); pgerror.Code(err) != pgerror.CodeDivisionByZero {
				t.Fatalf("error %v, want division by zero", err)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name   string
		input  func() exec.Op
		nulled [][]int
		want   []string
	}{
		{"rollup of two columns", func() exec.Op { return source(row(1, 2, 3)) }, [][]int{nil, {1}, {0, 1}},
			[]string{"1,2,3,0", "1,NULL,3,1", "NULL,NULL,3,2"}},
		{"one set per row and set", func() exec.Op { return source(row(1), row(2)) }, [][]int{{0}, {0}},
			[]string{"NULL,0", "NULL,1", "NULL,0", "NULL,1"}},
		{"empty input", func() exec.Op { return source() }, [][]int{nil, {0}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalRows(t, "rows", run(t, &exec.Expand{Input: tt.input(), Nulled: tt.nulled}), tt.want)
		})
	}
	op := &exec.Expand{Input: ints(1, 2), Nulled: [][]int{nil, {0}}}
	equalRows(t, "early stop", take(t, op, 3), []string{"1,0", "NULL,1", "2,0"})
}

// TestHashAggEmptySets checks that the grouping sets without columns have
// a row, also for empty input, and only once.
func TestHashAggEmptySets(t *testing.T) {
	// (key, set) rows of an Expand of GROUPING SETS ((g), (), ()).
	tests := []struct {
		name  string
		input func() exec.Op
		want  []string
	}{
		{"empty input", func() exec.Op { return source() }, []string{"NULL,1,0", "NULL,2,0"}},
		{"rows", func() exec.Op { return source(row(5, 0), row(nil, 1), row(nil, 2), row(nil, 1)) },
			[]string{"NULL,1,2", "NULL,2,1", "5,0,1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &exec.HashAgg{Input: tt.input(), Group: []expr.Expr{col(0), col(1)}, Aggs: []*expr.AggFunc{agg(t, "count", false)}, EmptySets: []int{1, 2}}
			equalRows(t, "rows", run(t, op), tt.want)
		})
	}
}
