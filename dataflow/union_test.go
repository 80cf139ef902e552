package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestUnion(t *testing.T) {
	op, err := (&UnionSpec{Inputs: 2}).Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	ts := []types.T{types.TInt8}
	runSteps(t, op, [][]types.T{ts, ts}, []testStep{
		in("+ 1", "- 2").emits("+ 1", "- 2"),
		{input: 1, rows: []string{"U- 3", "U+ 4"}, want: []string{"U- 3", "U+ 4"}},
		barrier(),
	})
}
