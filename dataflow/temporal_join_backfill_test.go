package dataflow

import (
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// TestTemporalJoinBackfill creates a temporal join view over a right
// table that takes many backfill batches (7 rows a barrier) and a left
// table backfilled at the same time, on two nodes: every left row must
// find its match, as a batch join does, whether the right table reaches
// the join directly or through a fragment of its own (its Loaded then
// crosses an exchange between nodes). A left change during creation is
// held too.
func TestTemporalJoinBackfill(t *testing.T) {
	ts := []types.T{types.TInt8, types.TInt8}
	out := slices.Concat(ts, ts)
	tests := []struct {
		name  string
		graph func(view uint32, left, right *TableRef) *GraphSpec
	}{
		{"right table input", func(view uint32, left, right *TableRef) *GraphSpec {
			return &GraphSpec{VNodeCount: 16, Fragments: []*FragmentSpec{{
				ID: 0,
				Inputs: []InputSpec{{Fragment: -1, Table: left, Dist: DistHash, Keys: []int{1}},
					{Fragment: -1, Table: right, Dist: DistHash, Keys: []int{1}}},
				Chain:    []Spec{backfillJoinSpec(ts), &MaterializeSpec{TableID: view, PK: []int{0}, Types: out}},
				OutTypes: out,
			}}}
		}},
		{"right fragment", func(view uint32, left, right *TableRef) *GraphSpec {
			return &GraphSpec{VNodeCount: 16, Fragments: []*FragmentSpec{{
				ID:       0,
				Inputs:   []InputSpec{{Fragment: -1, Table: right, Dist: DistHash, Keys: []int{0}}},
				Chain:    []Spec{&ProjectSpec{Exprs: []expr.Expr{colRef(0, types.TInt8), colRef(1, types.TInt8)}}},
				OutTypes: ts,
			}, {
				ID: 1,
				Inputs: []InputSpec{{Fragment: -1, Table: left, Dist: DistHash, Keys: []int{1}},
					{Fragment: 0, Dist: DistHash, Keys: []int{1}}},
				Chain:    []Spec{backfillJoinSpec(ts), &MaterializeSpec{TableID: view, PK: []int{0}, Types: out}},
				OutTypes: out,
			}}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCluster(t, "a", "b")
			for _, n := range c.nodes {
				n.rt.BackfillBatch = 7
			}
			left, right := c.twoTables(ts)
			const rights, lefts = 100, 50
			// Right rows (i, i); left rows (i, 7i mod 100) match one each.
			send := func(table *TableRef, n *testNode, from, to int, key func(int) int) {
				rows := &Chunk{}
				for i := from; i < to; i++ {
					rows.Append(Insert, []types.Datum{types.NewInt(int64(i)), types.NewInt(int64(key(i)))})
				}
				if _, err := n.mgr.Send(c.ctx, table.ID, rows, nil); err != nil {
					t.Fatal(err)
				}
			}
			leftKey := func(i int) int { return 7 * i % rights }
			send(right, c.nodes[1], 0, rights, func(i int) int { return i })
			send(left, c.nodes[0], 0, lefts, leftKey)
			c.barrier()
			const view = 1003
			g := tt.graph(view, left, right)
			created := make([]<-chan struct{}, len(c.nodes))
			c.tick(func(n *testNode, tk Tick) error {
				ch, err := n.rt.StartJob(c.ctx, tk, view, g, Contiguous(16, 4), Placement{"a", "b", "a", "b"}, true)
				created[slices.Index(c.nodes, n)] = ch
				return err
			})
			// A left row written while the right table loads.
			c.barrier()
			send(left, c.nodes[0], lefts, lefts+1, leftKey)
			for range 30 {
				c.barrier()
			}
			for i, ch := range created {
				select {
				case <-ch:
				case <-time.After(10 * time.Second):
					t.Fatalf("node %s did not finish creating the view", c.nodes[i].id)
				}
			}
			epoch := c.barrier()
			if got := c.nodes[0].keys(t, view, epoch) + c.nodes[1].keys(t, view, epoch); got != lefts+1 {
				t.Fatalf("the temporal join view has %d rows, want %d", got, lefts+1)
			}
		})
	}
}

// backfillJoinSpec is an inner temporal join of two tables of types ts on
// their second columns.
func backfillJoinSpec(ts []types.T) *TemporalJoinSpec {
	return &TemporalJoinSpec{Kind: exec.Inner, LeftKey: []int{1}, RightKey: []int{1}, LeftTypes: ts, RightTypes: ts,
		LeftStreamKey: []int{0}, RightStreamKey: []int{0}, RightTable: 2001, HoldTable: 2003}
}
