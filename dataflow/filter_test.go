package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

func TestFilter(t *testing.T) {
	ts := []types.T{types.TInt8, types.TText}
	cond := binOp(t, ">", colRef(0, types.TInt8), expr.NewConst(types.NewInt(1), types.TInt8))
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"drops false and NULL", []string{"+ 1 a", "+ 2 b", "+ NULL c", "- 3 d"}, []string{"+ 2 b", "- 3 d"}},
		{"keeps a whole pair", []string{"U- 2 b", "U+ 3 b"}, []string{"U- 2 b", "U+ 3 b"}},
		{"pair losing its delete", []string{"U- 1 a", "U+ 2 a"}, []string{"+ 2 a"}},
		{"pair losing its insert", []string{"U- 2 b", "U+ 1 b"}, []string{"- 2 b"}},
		{"pair losing both", []string{"+ 5 e", "U- 1 b", "U+ 0 b", "+ 6 f"}, []string{"+ 5 e", "+ 6 f"}},
		{"lone halves become plain", []string{"U+ 2 x", "+ 0 y", "U- 3 z"}, []string{"+ 2 x", "- 3 z"}},
		{"nothing kept", []string{"+ 0 a"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := (&FilterSpec{Cond: cond}).Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{ts}, []testStep{in(tt.in...).emits(tt.want...)})
		})
	}
}

func TestFilterPassesWholeChunks(t *testing.T) {
	op, err := (&FilterSpec{Cond: expr.NewConst(types.NewBool(true), types.TBool)}).Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	c := parseChunk(t, []types.T{types.TInt8}, "+ 1", "U- 2", "U+ 3")
	var got *Chunk
	if err := op.Process(0, c, func(out *Chunk) error { got = out; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != c {
		t.Fatal("a chunk whose rows all pass is not forwarded as is")
	}
}
