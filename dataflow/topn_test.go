package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// topNTypes are the Top-N inputs' row types: id (stream key), group,
// order value, payload.
var topNTypes = []types.T{types.TInt8, types.TInt4, types.TInt4, types.TText}

func TestTopN(t *testing.T) {
	tests := []struct {
		name          string
		group         []int
		order         []SortKey
		limit, offset int64
		ties, number  bool
		steps         []testStep
	}{
		{
			name: "global window shifts on delete", order: []SortKey{{Col: 2}}, limit: 2,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 3 b", "+ 3 1 9 c"),
				barrier().emits("+ 2 1 3 b", "+ 1 1 5 a"),
				in("- 2 1 3 b"),
				barrier().emits("- 2 1 3 b", "+ 3 1 9 c"),
				in("U- 1 1 5 a", "U+ 1 1 5 z"),
				barrier().emits("U- 1 1 5 a", "U+ 1 1 5 z"),
				in("+ 4 1 NULL d"),
				barrier(),
				in("- 3 1 9 c"),
				barrier().emits("- 3 1 9 c", "+ 4 1 NULL d"),
				in("+ 5 1 0 e", "- 5 1 0 e"),
				barrier(),
			},
		},
		{
			name: "a row moving within the window is deleted first", order: []SortKey{{Col: 2}}, limit: 3,
			steps: []testStep{
				in("+ 1 1 1 a", "+ 2 1 2 b", "+ 3 1 3 c"),
				barrier().emits("+ 1 1 1 a", "+ 2 1 2 b", "+ 3 1 3 c"),
				in("U- 3 1 3 c", "U+ 3 1 0 c"),
				barrier().emits("- 3 1 3 c", "+ 3 1 0 c"),
			},
		},
		{
			name: "descending with NULLs first and an offset", order: []SortKey{{Col: 2, Desc: true, NullsFirst: true}}, limit: 1, offset: 1,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 NULL b"),
				barrier().emits("+ 1 1 5 a"),
				in("+ 3 1 7 c"),
				barrier().emits("- 1 1 5 a", "+ 3 1 7 c"),
				in("- 2 1 NULL b"),
				barrier().emits("- 3 1 7 c", "+ 1 1 5 a"),
			},
		},
		{
			name: "ascending with NULLs first", order: []SortKey{{Col: 2, NullsFirst: true}}, limit: 2,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 NULL b", "+ 3 1 1 c"),
				barrier().emits("+ 2 1 NULL b", "+ 3 1 1 c"),
			},
		},
		{
			name: "per group, ties broken by stream key", group: []int{1}, order: []SortKey{{Col: 2}}, limit: 1,
			steps: []testStep{
				in("+ 2 1 5 a", "+ 1 1 5 b", "+ 3 2 5 c", "+ 4 NULL 1 d"),
				barrier().emits("+ 1 1 5 b", "+ 3 2 5 c", "+ 4 NULL 1 d"),
				in("- 1 1 5 b", "+ 5 2 4 e"),
				barrier().emits("- 1 1 5 b", "+ 2 1 5 a", "- 3 2 5 c", "+ 5 2 4 e"),
			},
		},
		{
			name: "no limit", order: []SortKey{{Col: 2}}, limit: -1, offset: 1,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 3 b", "+ 3 1 9 c"),
				barrier().emits("+ 1 1 5 a", "+ 3 1 9 c"),
				in("+ 4 1 1 d"),
				barrier().emits("+ 2 1 3 b"),
			},
		},
		{
			name: "numbered rows are updated when their numbers shift", order: []SortKey{{Col: 2}}, limit: 3, number: true,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 3 b"),
				barrier().emits("+ 2 1 3 b 1", "+ 1 1 5 a 2"),
				in("+ 3 1 1 c"),
				barrier().emits("+ 3 1 1 c 1", "U- 2 1 3 b 1", "U+ 2 1 3 b 2", "U- 1 1 5 a 2", "U+ 1 1 5 a 3"),
				in("+ 4 1 9 d"),
				barrier(),
				in("- 3 1 1 c"),
				barrier().emits("- 3 1 1 c 1", "U- 2 1 3 b 2", "U+ 2 1 3 b 1", "U- 1 1 5 a 3", "U+ 1 1 5 a 2", "+ 4 1 9 d 3"),
				in("U- 1 1 5 a", "U+ 1 1 0 a"),
				barrier().emits("- 1 1 5 a 2", "+ 1 1 0 a 1", "U- 2 1 3 b 1", "U+ 2 1 3 b 2"),
				in("U- 4 1 9 d", "U+ 4 1 9 e"),
				barrier().emits("U- 4 1 9 d 3", "U+ 4 1 9 e 3"),
			},
		},
		{
			name: "numbered with an offset", group: []int{1}, order: []SortKey{{Col: 2, Desc: true}}, limit: 1, offset: 1, number: true,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 3 b", "+ 3 2 1 c"),
				barrier().emits("+ 2 1 3 b 2"),
			},
		},
		{
			name: "ranks with ties", order: []SortKey{{Col: 2}}, limit: 2, ties: true, number: true,
			steps: []testStep{
				in("+ 1 1 5 a", "+ 2 1 5 b", "+ 3 1 7 c"),
				barrier().emits("+ 1 1 5 a 1", "+ 2 1 5 b 1"),
				in("+ 4 1 1 d"),
				barrier().emits("+ 4 1 1 d 1", "U- 1 1 5 a 1", "U+ 1 1 5 a 2", "U- 2 1 5 b 1", "U+ 2 1 5 b 2"),
				in("- 1 1 5 a"),
				barrier().emits("- 1 1 5 a 2"),
			},
		},
		{
			name: "limit zero", order: []SortKey{{Col: 2}}, limit: 0,
			steps: []testStep{
				in("+ 1 1 5 a"),
				barrier(),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &TopNSpec{GroupKey: tt.group, Order: tt.order, Limit: tt.limit, Offset: tt.offset, WithTies: tt.ties, Number: tt.number,
				InputTypes: topNTypes, StreamKey: []int{0}, StateTable: freshTable()}
			op, err := spec.Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{topNTypes}, tt.steps)
		})
	}
}

func TestTopNRetractMissing(t *testing.T) {
	spec := &TopNSpec{Order: []SortKey{{Col: 2}}, Limit: 1, InputTypes: topNTypes, StreamKey: []int{0}, StateTable: freshTable()}
	op, err := spec.Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Process(0, parseChunk(t, topNTypes, "- 1 1 5 a"), nil); err != errRetractMissing {
		t.Fatalf("error %v, want %v", err, errRetractMissing)
	}
}
