package dataflow

import (
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// winTypes are the over-window inputs' row types: id (stream key),
// partition, order value, value.
var winTypes = []types.T{types.TInt8, types.TInt4, types.TInt4, types.TInt4}

// winFunc returns a window function call: an aggregate over args for
// aggregate names, else name(args...), over frame (the default if nil).
func winFunc(t tester, name string, frame *exec.Frame, args ...expr.Expr) exec.WindowFunc {
	f := exec.WindowFunc{Name: name, Args: args, Frame: exec.DefaultFrame}
	if frame != nil {
		f.Frame = *frame
	}
	if _, err := expr.NewAgg(name, args, false, len(args) == 0); err == nil && name != "first_value" && name != "last_value" && name != "nth_value" {
		f.Agg = newAgg(t, name, false, args...)
	}
	return f
}

// offsetFrame is ROWS or GROUPS BETWEEN pre PRECEDING AND fol FOLLOWING.
func offsetFrame(mode exec.FrameMode, pre, fol int64) *exec.Frame {
	return &exec.Frame{Mode: mode,
		Start: exec.FrameBound{Kind: exec.OffsetPreceding, Offset: expr.NewConst(types.NewInt(pre), types.TInt8)},
		End:   exec.FrameBound{Kind: exec.OffsetFollowing, Offset: expr.NewConst(types.NewInt(fol), types.TInt8)}}
}

func TestOverWindow(t *testing.T) {
	v := colRef(3, types.TInt4)
	tests := []struct {
		name      string
		partition []int
		funcs     []exec.WindowFunc
		steps     []testStep
	}{
		{
			name: "row numbers shift on insert and delete", partition: []int{1},
			funcs: []exec.WindowFunc{winFunc(t, "row_number", nil)},
			steps: []testStep{
				in("+ 1 1 5 0", "+ 2 1 3 0", "+ 3 2 1 0"),
				barrier().emits("+ 2 1 3 0 1", "+ 1 1 5 0 2", "+ 3 2 1 0 1"),
				in("+ 4 1 1 0"),
				barrier().emits("+ 4 1 1 0 1", "U- 2 1 3 0 1", "U+ 2 1 3 0 2", "U- 1 1 5 0 2", "U+ 1 1 5 0 3"),
				in("- 4 1 1 0"),
				barrier().emits("- 4 1 1 0 1", "U- 2 1 3 0 2", "U+ 2 1 3 0 1", "U- 1 1 5 0 3", "U+ 1 1 5 0 2"),
			},
		},
		{
			name: "an update changing only the value re-emits the row and its neighbours' lag", partition: []int{1},
			funcs: []exec.WindowFunc{winFunc(t, "lag", nil, v)},
			steps: []testStep{
				in("+ 1 1 1 10", "+ 2 1 2 20", "+ 3 1 3 30"),
				barrier().emits("+ 1 1 1 10 NULL", "+ 2 1 2 20 10", "+ 3 1 3 30 20"),
				in("U- 2 1 2 20", "U+ 2 1 2 25"),
				barrier().emits("U- 2 1 2 20 10", "U+ 2 1 2 25 10", "U- 3 1 3 30 20", "U+ 3 1 3 30 25"),
			},
		},
		{
			name: "a row moving between partitions, NULL partition and order keys", partition: []int{1},
			funcs: []exec.WindowFunc{winFunc(t, "sum", nil, v), winFunc(t, "rank", nil)},
			steps: []testStep{
				in("+ 1 NULL 1 1", "+ 2 NULL NULL 2", "+ 3 1 1 3"),
				barrier().emits("+ 1 NULL 1 1 1 1", "+ 2 NULL NULL 2 3 2", "+ 3 1 1 3 3 1"),
				in("U- 3 1 1 3", "U+ 3 NULL 1 3"),
				barrier().emits("- 3 1 1 3 3 1", "U- 1 NULL 1 1 1 1", "U+ 1 NULL 1 1 4 1", "+ 3 NULL 1 3 4 1", "U- 2 NULL NULL 2 3 2", "U+ 2 NULL NULL 2 6 3"),
			},
		},
		{
			name: "changes within an epoch coalesce; no partition", funcs: []exec.WindowFunc{winFunc(t, "count", offsetFrame(exec.FrameRows, 1, 1))},
			steps: []testStep{
				in("+ 1 1 1 1", "+ 2 1 2 2"),
				barrier().emits("+ 1 1 1 1 2", "+ 2 1 2 2 2"),
				in("+ 3 1 3 3", "- 3 1 3 3", "U- 2 1 2 2", "U+ 2 1 2 2"),
				barrier(),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &OverWindowSpec{Partition: tt.partition, Order: []SortKey{{Col: 2}}, Funcs: tt.funcs,
				InputTypes: winTypes, FuncTypes: funcTypes(tt.funcs), StreamKey: []int{0}, StateTable: freshTable()}
			op, err := spec.Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{winTypes}, tt.steps)
		})
	}
}

// funcTypes are the result types of window functions over winTypes.
func funcTypes(funcs []exec.WindowFunc) []types.T {
	out := make([]types.T, len(funcs))
	for i, f := range funcs {
		switch {
		case f.Agg != nil:
			out[i] = f.Agg.T
		case f.Name == "lag" || f.Name == "lead" || f.Name == "first_value" || f.Name == "last_value" || f.Name == "nth_value":
			out[i] = types.TInt4
		case f.Name == "percent_rank" || f.Name == "cume_dist":
			out[i] = types.TFloat8
		default:
			out[i] = types.TInt8
		}
	}
	return out
}

func TestOverWindowRetractMissing(t *testing.T) {
	funcs := []exec.WindowFunc{winFunc(t, "rank", nil)}
	spec := &OverWindowSpec{Order: []SortKey{{Col: 2}}, Funcs: funcs, InputTypes: winTypes, FuncTypes: funcTypes(funcs),
		StreamKey: []int{0}, StateTable: freshTable()}
	op, err := spec.Build(newEnv(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Process(0, parseChunk(t, winTypes, "- 1 1 5 0"), nil); err != errRetractMissing {
		t.Fatalf("error %v, want %v", err, errRetractMissing)
	}
}
