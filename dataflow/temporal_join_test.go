package dataflow

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// temporalJoinSpec returns a temporal join of two joinSideTypes inputs on
// column 1, with a memo unless appendOnly.
func temporalJoinSpec(kind exec.JoinKind, cond expr.Expr, appendOnly bool) *TemporalJoinSpec {
	s := &TemporalJoinSpec{Kind: kind, LeftKey: []int{1}, RightKey: []int{1}, Cond: cond,
		LeftTypes: joinSideTypes, RightTypes: joinSideTypes, LeftStreamKey: []int{0}, RightStreamKey: []int{0},
		RightTable: freshTable()}
	if !appendOnly {
		s.MemoTable = freshTable()
	}
	return s
}

func TestTemporalJoin(t *testing.T) {
	tests := []struct {
		name       string
		kind       exec.JoinKind
		appendOnly bool
		steps      []testStep
	}{
		{
			name: "right changes emit nothing and leave old output", kind: exec.Inner, appendOnly: true,
			steps: []testStep{
				right("+ 7 10 x"),
				in("+ 1 10 a", "+ 2 20 b"),
				barrier().emits("+ 1 10 a 7 10 x"),
				right("U- 7 10 x", "U+ 7 10 y", "+ 8 20 z"),
				barrier(),
				in("+ 3 10 c", "+ 4 20 d"),
				barrier().emits("+ 3 10 c 7 10 y", "+ 4 20 d 8 20 z"),
			},
		},
		{
			name: "left lookups see the right changes of their epoch", kind: exec.Left, appendOnly: true,
			steps: []testStep{
				in("+ 1 10 a", "+ 2 NULL b"),
				right("+ 7 10 x", "+ 8 10 y"),
				barrier().emits("+ 1 10 a 7 10 x", "+ 1 10 a 8 10 y", "+ 2 NULL b NULL NULL NULL"),
				right("- 7 10 x", "- 8 10 y"),
				in("+ 3 10 c"),
				barrier().emits("+ 3 10 c NULL NULL NULL"),
			},
		},
		{
			name: "a delete retracts what its insert emitted", kind: exec.Left,
			steps: []testStep{
				right("+ 7 10 x"),
				in("+ 1 10 a", "+ 2 20 b"),
				barrier().emits("+ 1 10 a 7 10 x", "+ 2 20 b NULL NULL NULL"),
				right("- 7 10 x", "+ 8 20 y"),
				in("U- 1 10 a", "U+ 1 20 a", "- 2 20 b"),
				barrier().emits("- 1 10 a 7 10 x", "+ 1 20 a 8 20 y", "- 2 20 b NULL NULL NULL"),
				in("+ 5 10 e", "- 5 10 e", "+ 6 NULL f", "- 6 NULL f"),
				barrier().emits("+ 5 10 e NULL NULL NULL", "- 5 10 e NULL NULL NULL",
					"+ 6 NULL f NULL NULL NULL", "- 6 NULL f NULL NULL NULL"),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := temporalJoinSpec(tt.kind, nil, tt.appendOnly).Build(newEnv(t))
			if err != nil {
				t.Fatal(err)
			}
			runSteps(t, op, [][]types.T{joinSideTypes, joinSideTypes}, tt.steps)
		})
	}
}

// TestTemporalJoinOracle runs random changes of both inputs, cut into
// chunks and epochs, with recoveries, against a model: at each barrier,
// the epoch's left inserts are joined with the right rows live then, and
// a left delete takes back what its insert added.
func TestTemporalJoinOracle(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		kind := rapid.SampledFrom([]exec.JoinKind{exec.Inner, exec.Left}).Draw(rt, "kind")
		appendOnly := rapid.Bool().Draw(rt, "appendOnly")
		var cond expr.Expr
		if rapid.Bool().Draw(rt, "cond") {
			cond = binOp(rt, "<", colRef(2, types.TText), colRef(5, types.TText))
		}
		spec := temporalJoinSpec(kind, cond, appendOnly)
		store := NewStore(engine)
		build := func() Operator { return mustBuild(rt, spec, envOver(store)) }
		op := build()
		v := newView()
		emit := func(c *Chunk) error { return v.apply(c) }
		drawRow := func(id int64) []types.Datum {
			return []types.Datum{types.NewInt(id), drawValue(rt, types.TInt4, "1", "2"), drawValue(rt, types.TText, "a", "b", "c")}
		}
		// live are each input's rows by id; emitted the model's output
		// rows per left id; pending the left changes of the epoch.
		live := [2]map[int64][]types.Datum{{}, {}}
		emitted := map[int64][][]types.Datum{}
		type change struct {
			insert bool
			row    []types.Datum
		}
		var pending []change
		ctx := expr.NewCtx(context.Background(), nil)
		lookUp := func(l []types.Datum) [][]types.Datum {
			var out [][]types.Datum
			for _, r := range live[1] {
				if l[1].IsNull() || r[1].IsNull() || types.Compare(l[1], r[1]) != 0 {
					continue
				}
				joined := slices.Concat(l, r)
				if cond != nil {
					if ok, err := cond.Eval(ctx, joined); err != nil || ok.IsNull() || !ok.Bool() {
						continue
					}
				}
				out = append(out, joined)
			}
			if len(out) == 0 && kind == exec.Left {
				out = append(out, slices.Concat(l, []types.Datum{types.Null, types.Null, types.Null}))
			}
			return out
		}
		var epoch uint64
		nextID := int64(0)
		for s := rapid.IntRange(1, 60).Draw(rt, "steps"); s > 0; s-- {
			input := rapid.IntRange(0, 1).Draw(rt, "input")
			c := &Chunk{}
			switch action := rapid.SampledFrom([]string{"insert", "insert", "delete", "update", "barrier", "recover"}).Draw(rt, "action"); {
			case action == "barrier" || action == "recover":
				epoch++
				if err := op.Barrier(&Barrier{Epoch: epoch, Checkpoint: true}, emit); err != nil {
					rt.Fatal(err)
				}
				for _, ch := range pending {
					if ch.insert {
						emitted[ch.row[0].Int()] = lookUp(ch.row)
					} else {
						delete(emitted, ch.row[0].Int())
					}
				}
				pending = pending[:0]
				var want [][]types.Datum
				for _, rows := range emitted {
					want = append(want, rows...)
				}
				if got, want := v.sorted(), sortedRows(want); !slices.Equal(got, want) {
					rt.Fatalf("after epoch %d the view is\n%s\nwant\n%s", epoch, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if action == "recover" {
					if err := store.Seal(epoch, nil, true); err != nil {
						rt.Fatal(err)
					}
					store = NewStore(engine)
					op = build()
				}
				continue
			case action == "insert" || len(live[input]) == 0 || input == 0 && appendOnly:
				nextID++
				row := drawRow(nextID)
				live[input][nextID] = row
				c.Append(Insert, row)
			default:
				ids := make([]int64, 0, len(live[input]))
				for id := range live[input] {
					ids = append(ids, id)
				}
				slices.Sort(ids)
				id := rapid.SampledFrom(ids).Draw(rt, "victim")
				old := live[input][id]
				if action == "delete" {
					delete(live[input], id)
					c.Append(Delete, old)
					break
				}
				row := drawRow(id)
				live[input][id] = row
				c.Append(UpdateDelete, old)
				c.Append(UpdateInsert, row)
			}
			if input == 0 {
				for i, row := range c.Rows {
					pending = append(pending, change{insert: c.Ops[i].IsInsert(), row: row})
				}
			}
			if err := op.Process(input, c, emit); err != nil {
				rt.Fatal(err)
			}
		}
	})
}
