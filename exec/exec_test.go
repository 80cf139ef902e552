package exec_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// row builds a row from Go values: int (int8), string (text), bool, and
// nil (NULL).
func row(vs ...any) []types.Datum {
	out := make([]types.Datum, len(vs))
	for i, v := range vs {
		switch x := v.(type) {
		case nil:
			out[i] = types.Null
		case int:
			out[i] = types.NewInt(int64(x))
		case string:
			out[i] = types.NewString(x)
		case bool:
			out[i] = types.NewBool(x)
		default:
			panic("row: unsupported value")
		}
	}
	return out
}

// typeOf is the static type given to a constant holding d.
func typeOf(d types.Datum) types.T {
	switch d.Kind() {
	case types.KindInt:
		return types.TInt8
	case types.KindString:
		return types.TText
	case types.KindBool:
		return types.TBool
	}
	return types.TUnknown
}

// spy is a Values source that counts the rows it produced, to observe
// whether consumers stop their producer early.
type spy struct {
	exec.Values
	produced int
}

// Run implements exec.Op.
func (s *spy) Run(c *expr.Ctx, emit exec.Emit) error {
	return s.Values.Run(c, func(r []types.Datum) (bool, error) {
		s.produced++
		return emit(r)
	})
}

// source returns a spy emitting rows as constant expressions.
func source(rows ...[]types.Datum) *spy {
	s := &spy{}
	for _, r := range rows {
		es := make([]expr.Expr, len(r))
		for i, d := range r {
			es[i] = expr.NewConst(d, typeOf(d))
		}
		s.Rows = append(s.Rows, es)
	}
	return s
}

// ints returns a one-column source; nil entries are NULL.
func ints(vs ...any) *spy {
	rows := make([][]types.Datum, len(vs))
	for i, v := range vs {
		rows[i] = row(v)
	}
	return source(rows...)
}

func col(i int) expr.Expr { return &expr.ColRef{Idx: i, T: types.TInt8} }

func textCol(i int) expr.Expr { return &expr.ColRef{Idx: i, T: types.TText} }

func lit(v any) expr.Expr {
	d := row(v)[0]
	return expr.NewConst(d, typeOf(d))
}

func bin(t *testing.T, op string, l, r expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.NewBinary(op, l, r)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newCtx() *expr.Ctx { return expr.NewCtx(context.Background(), nil) }

// render formats rows as "a,b,c" lines (NULL for nulls).
func render(rows [][]types.Datum) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, d := range r {
			parts[j] = d.String()
		}
		out[i] = strings.Join(parts, ",")
	}
	return out
}

// run collects op's output rendered in order.
func run(t *testing.T, op exec.Op) []string {
	t.Helper()
	rows, err := exec.Collect(newCtx(), op)
	if err != nil {
		t.Fatal(err)
	}
	return render(rows)
}

// take runs op with an emit that asks to stop after n rows, fails the test
// if op emits after being asked to stop, and returns the rows it got.
func take(t *testing.T, op exec.Op, n int) []string {
	t.Helper()
	var got [][]types.Datum
	stopped := false
	err := op.Run(newCtx(), func(r []types.Datum) (bool, error) {
		if stopped {
			t.Errorf("row %v emitted after emit returned false", render([][]types.Datum{r}))
		}
		got = append(got, slices.Clone(r))
		stopped = len(got) >= n
		return !stopped, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return render(got)
}

func equalRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// sorted returns a sorted copy of rows, to compare them as bags.
func sorted(rows []string) []string { return slices.Sorted(slices.Values(rows)) }

// equalBags compares rows ignoring order.
func equalBags(t *testing.T, what string, got, want []string) {
	t.Helper()
	equalRows(t, what, sorted(got), sorted(want))
}

func TestValuesFilterProject(t *testing.T) {
	in := func() *spy { return source(row(1, "a"), row(2, nil), row(nil, "c"), row(4, "d")) }
	tests := []struct {
		name string
		op   func(t *testing.T) exec.Op
		want []string
	}{
		{"values", func(*testing.T) exec.Op { return in() }, []string{"1,a", "2,NULL", "NULL,c", "4,d"}},
		{"empty values", func(*testing.T) exec.Op { return source() }, nil},
		{"one empty row", func(*testing.T) exec.Op { return source(row()) }, []string{""}},
		{"filter drops false and NULL", func(t *testing.T) exec.Op {
			return &exec.Filter{Input: in(), Cond: bin(t, ">", col(0), lit(1))}
		}, []string{"2,NULL", "4,d"}},
		{"filter on text", func(t *testing.T) exec.Op {
			return &exec.Filter{Input: in(), Cond: bin(t, "<>", textCol(1), lit("a"))}
		}, []string{"NULL,c", "4,d"}},
		{"project", func(t *testing.T) exec.Op {
			return &exec.Project{Input: in(), Exprs: []expr.Expr{textCol(1), bin(t, "*", col(0), lit(10)), lit(true)}}
		}, []string{"a,10,t", "NULL,20,t", "c,NULL,t", "d,40,t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equalRows(t, "rows", run(t, tt.op(t)), tt.want)
		})
	}
}

func TestEarlyStop(t *testing.T) {
	tests := []struct {
		name     string
		op       func(t *testing.T, in *spy) exec.Op
		n        int
		want     []string
		produced int
	}{
		{"values", func(_ *testing.T, in *spy) exec.Op { return in }, 2, []string{"1", "2"}, 2},
		{"filter", func(t *testing.T, in *spy) exec.Op {
			return &exec.Filter{Input: in, Cond: bin(t, "<>", col(0), lit(1))}
		}, 2, []string{"2", "3"}, 3},
		{"project", func(t *testing.T, in *spy) exec.Op {
			return &exec.Project{Input: in, Exprs: []expr.Expr{bin(t, "+", col(0), lit(1))}}
		}, 1, []string{"2"}, 1},
		{"distinct", func(_ *testing.T, in *spy) exec.Op { return &exec.Distinct{Input: in} }, 3, []string{"1", "2", "3"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := ints(1, 2, 3, 4, 5)
			equalRows(t, "rows", take(t, tt.op(t, in), tt.n), tt.want)
			if in.produced != tt.produced {
				t.Errorf("input produced %d rows, want %d", in.produced, tt.produced)
			}
		})
	}
}
