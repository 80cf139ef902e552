package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

func TestProject(t *testing.T) {
	ts := []types.T{types.TInt8, types.TNumeric}
	// $0 % 2, $1
	exprs := []expr.Expr{
		binOp(t, "%", colRef(0, types.TInt8), expr.NewConst(types.NewInt(2), types.TInt8)),
		colRef(1, types.TNumeric),
	}
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"computes every op", []string{"+ 1 1.5", "- 2 NULL", "U- 3 1", "U+ 4 1"}, []string{"+ 1 1.5", "- 0 NULL", "U- 1 1", "U+ 0 1"}},
		{"drops a pair with identical projections", []string{"+ 7 0", "U- 1 2.5", "U+ 3 2.5", "+ 8 0"}, []string{"+ 1 0", "+ 0 0"}},
		{"keeps a pair whose representation changes", []string{"U- 1 2.5", "U+ 3 2.50"}, []string{"U- 1 2.5", "U+ 1 2.50"}},
		{"lone halves pass", []string{"U+ 1 1", "U- 2 2"}, []string{"U+ 1 1", "U- 0 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := (&ProjectSpec{Exprs: exprs}).Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{ts}, []testStep{in(tt.in...).emits(tt.want...)})
		})
	}
}

func TestProjectSplitsLargeChunks(t *testing.T) {
	op, err := (&ProjectSpec{Exprs: []expr.Expr{colRef(0, types.TInt8)}}).Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	c := &Chunk{}
	for i := 0; i < MaxChunkRows+1; i++ {
		op := UpdateDelete
		if i%2 == 1 {
			op = UpdateInsert
		}
		c.Append(op, []types.Datum{types.NewInt(int64(i))})
	}
	c.Ops[MaxChunkRows] = Insert
	var sizes []int
	err = op.Process(0, c, func(out *Chunk) error {
		sizes = append(sizes, out.Len())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 2 || sizes[0] != MaxChunkRows || sizes[1] != 1 {
		t.Fatalf("chunk sizes %v", sizes)
	}
}
