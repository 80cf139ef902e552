package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// joinSideTypes are both join inputs' row types: id (stream key), join
// key, a value.
var joinSideTypes = []types.T{types.TInt8, types.TInt4, types.TText}

// joinSpec returns a join of two joinSideTypes inputs on column 1.
func joinSpec(kind exec.JoinKind, cond expr.Expr) *HashJoinSpec {
	return &HashJoinSpec{Kind: kind, LeftKey: []int{1}, RightKey: []int{1}, Cond: cond,
		LeftTypes: joinSideTypes, RightTypes: joinSideTypes, LeftStreamKey: []int{0}, RightStreamKey: []int{0},
		LeftTable: freshTable(), RightTable: freshTable()}
}

// right is a step feeding rows to input 1.
func right(rows ...string) testStep { return testStep{input: 1, rows: rows} }

func TestHashJoin(t *testing.T) {
	// Left value < right value.
	less := func(t *testing.T) expr.Expr {
		return binOp(t, "<", colRef(2, types.TText), colRef(5, types.TText))
	}
	tests := []struct {
		name     string
		kind     exec.JoinKind
		cond     func(t *testing.T) expr.Expr
		presence bool
		steps    []testStep
	}{
		{
			name: "inner", kind: exec.Inner,
			steps: []testStep{
				in("+ 1 10 a", "+ 2 10 b", "+ 3 NULL c"),
				right("+ 7 10 x", "+ 8 20 y", "+ 9 NULL z").emits("+ 1 10 a 7 10 x", "+ 2 10 b 7 10 x"),
				in("U- 1 10 a", "U+ 1 20 a").emits("- 1 10 a 7 10 x", "+ 1 20 a 8 20 y"),
				right("- 7 10 x").emits("- 2 10 b 7 10 x"),
				barrier(),
				in("- 3 NULL c", "- 2 10 b"),
			},
		},
		{
			name: "left with padding transitions", kind: exec.Left,
			steps: []testStep{
				in("+ 1 10 a").emits("+ 1 10 a NULL NULL NULL"),
				right("+ 7 10 x").emits("- 1 10 a NULL NULL NULL", "+ 1 10 a 7 10 x"),
				right("+ 8 10 y").emits("+ 1 10 a 8 10 y"),
				in("+ 2 10 b").emits("+ 2 10 b 7 10 x", "+ 2 10 b 8 10 y"),
				right("- 7 10 x").emits("- 1 10 a 7 10 x", "- 2 10 b 7 10 x"),
				barrier(),
				right("U- 8 10 y", "U+ 8 20 y").emits("- 1 10 a 8 10 y", "+ 1 10 a NULL NULL NULL",
					"- 2 10 b 8 10 y", "+ 2 10 b NULL NULL NULL"),
				in("+ 3 NULL c").emits("+ 3 NULL c NULL NULL NULL"),
				in("- 3 NULL c", "- 1 10 a").emits("- 3 NULL c NULL NULL NULL", "- 1 10 a NULL NULL NULL"),
				right("+ 9 NULL z"),
			},
		},
		{
			name: "right", kind: exec.Right,
			steps: []testStep{
				right("+ 7 10 x", "+ 9 NULL z").emits("+ NULL NULL NULL 7 10 x", "+ NULL NULL NULL 9 NULL z"),
				in("+ 1 10 a", "+ 2 10 b").emits("- NULL NULL NULL 7 10 x", "+ 1 10 a 7 10 x", "+ 2 10 b 7 10 x"),
				in("- 1 10 a").emits("- 1 10 a 7 10 x"),
				in("- 2 10 b").emits("- 2 10 b 7 10 x", "+ NULL NULL NULL 7 10 x"),
			},
		},
		{
			name: "full", kind: exec.Full,
			steps: []testStep{
				in("+ 1 10 a").emits("+ 1 10 a NULL NULL NULL"),
				right("+ 7 10 x").emits("- 1 10 a NULL NULL NULL", "+ 1 10 a 7 10 x"),
				right("+ 8 20 y").emits("+ NULL NULL NULL 8 20 y"),
				in("U- 1 10 a", "U+ 1 20 a").emits("- 1 10 a 7 10 x", "+ NULL NULL NULL 7 10 x",
					"- NULL NULL NULL 8 20 y", "+ 1 20 a 8 20 y"),
			},
		},
		{
			// The presence column is t on matches and right-padded rows,
			// NULL on left-padded ones: the two padded rows of all-NULL
			// keys stay apart.
			name: "full with the right presence column", kind: exec.Full, presence: true,
			steps: []testStep{
				in("+ 1 NULL NULL").emits("+ 1 NULL NULL NULL NULL NULL NULL"),
				right("+ 7 NULL NULL").emits("+ NULL NULL NULL 7 NULL NULL t"),
				right("+ 8 10 y").emits("+ NULL NULL NULL 8 10 y t"),
				in("+ 2 10 b").emits("- NULL NULL NULL 8 10 y t", "+ 2 10 b 8 10 y t"),
			},
		},
		{
			name: "left with a residual condition", kind: exec.Left, cond: less,
			steps: []testStep{
				in("+ 1 10 m").emits("+ 1 10 m NULL NULL NULL"),
				right("+ 7 10 a").emits(),
				right("+ 8 10 z").emits("- 1 10 m NULL NULL NULL", "+ 1 10 m 8 10 z"),
				in("+ 2 10 zz", "+ 3 10 NULL").emits("+ 2 10 zz NULL NULL NULL", "+ 3 10 NULL NULL NULL NULL"),
				right("U- 8 10 z", "U+ 8 10 b").emits("- 1 10 m 8 10 z", "+ 1 10 m NULL NULL NULL"),
			},
		},
		{
			// A left row is emitted alone while it has matches; duplicates
			// on the right count, a NULL key never matches.
			name: "semi", kind: exec.Semi,
			steps: []testStep{
				in("+ 1 10 a", "+ 2 NULL b"),
				right("+ 7 10 x", "+ 8 10 y", "+ 9 NULL z").emits("+ 1 10 a"),
				in("+ 3 10 c").emits("+ 3 10 c"),
				right("- 7 10 x"),
				barrier(),
				right("U- 8 10 y", "U+ 8 20 y").emits("- 1 10 a", "- 3 10 c"),
				in("U- 1 10 a", "U+ 1 20 a").emits("+ 1 20 a"),
				in("- 1 20 a", "- 2 NULL b").emits("- 1 20 a"),
			},
		},
		{
			name: "anti", kind: exec.Anti,
			steps: []testStep{
				in("+ 1 10 a", "+ 2 NULL b").emits("+ 1 10 a", "+ 2 NULL b"),
				right("+ 7 10 x", "+ 8 10 y", "+ 9 NULL z").emits("- 1 10 a"),
				in("+ 3 10 c"),
				right("- 7 10 x"),
				barrier(),
				right("U- 8 10 y", "U+ 8 20 y").emits("+ 1 10 a", "+ 3 10 c"),
				in("U- 1 10 a", "U+ 1 20 a").emits("- 1 10 a"),
				in("- 1 20 a", "- 2 NULL b").emits("- 2 NULL b"),
			},
		},
		{
			name: "semi with a residual condition", kind: exec.Semi, cond: less,
			steps: []testStep{
				in("+ 1 10 m"),
				right("+ 7 10 a"),
				right("+ 8 10 z").emits("+ 1 10 m"),
				right("U- 8 10 z", "U+ 8 10 b").emits("- 1 10 m"),
			},
		},
		{
			name: "full with a residual condition", kind: exec.Full, cond: less,
			steps: []testStep{
				right("+ 7 10 c").emits("+ NULL NULL NULL 7 10 c"),
				in("+ 1 10 d").emits("+ 1 10 d NULL NULL NULL"),
				in("+ 2 10 a").emits("- NULL NULL NULL 7 10 c", "+ 2 10 a 7 10 c"),
				in("- 2 10 a").emits("- 2 10 a 7 10 c", "+ NULL NULL NULL 7 10 c"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cond expr.Expr
			if tt.cond != nil {
				cond = tt.cond(t)
			}
			spec := joinSpec(tt.kind, cond)
			spec.RightPresence = tt.presence
			op, err := spec.Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{joinSideTypes, joinSideTypes}, tt.steps)
		})
	}
}

func TestHashJoinRetractMissing(t *testing.T) {
	op, err := joinSpec(exec.Inner, nil).Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Process(0, parseChunk(t, joinSideTypes, "- 1 10 a"), nil); err != errRetractMissing {
		t.Fatalf("error %v, want %v", err, errRetractMissing)
	}
}
