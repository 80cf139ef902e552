package meta

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"pgregory.net/rapid"
)

func TestRebalance(t *testing.T) {
	contiguous := func(g, n int) []int {
		out := make([]int, g)
		for v := range out {
			out[v] = v * n / g
		}
		return out
	}
	for _, c := range []struct {
		name  string
		owner []int
		n     int
		want  []int
	}{
		{"same", []int{0, 0, 1, 1}, 2, []int{0, 0, 1, 1}},
		{"up by one", []int{0, 0, 0, 1, 1, 1}, 3, []int{0, 0, 2, 1, 1, 2}},
		{"down to one", []int{0, 1, 2, 3}, 1, []int{0, 0, 0, 0}},
		// The slots owning most keep theirs.
		{"down keeps the largest", []int{0, 1, 1, 2, 2, 2}, 2, []int{1, 1, 1, 2, 2, 2}},
		{"new slots take free numbers", []int{1, 1, 3, 3}, 4, []int{1, 0, 3, 2}},
		{"to G", contiguous(4, 2), 4, []int{0, 2, 1, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Rebalance(c.owner, c.n); !slices.Equal(got, c.want) {
				t.Fatalf("Rebalance(%v, %d) = %v, want %v", c.owner, c.n, got, c.want)
			}
		})
	}
}

// TestRebalanceProperties: any assignment rebalanced to any n from 1 to G
// uses n slots, each owning G/n or G/n+1 vnodes, and moves exactly the
// vnodes the slots over their share must give up; steps towards it move
// 1 to step vnodes each, each to its target, and reach it.
func TestRebalanceProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := rapid.IntRange(1, 64).Draw(t, "g")
		owner := rapid.SliceOfN(rapid.IntRange(0, 9), g, g).Draw(t, "owner")
		n := rapid.IntRange(1, g).Draw(t, "n")
		target := Rebalance(owner, n)
		count := map[int]int{}
		for _, s := range target {
			count[s]++
		}
		if len(count) != n {
			t.Fatalf("%d slots, want %d: %v", len(count), n, target)
		}
		for s, c := range count {
			if c != g/n && c != g/n+1 {
				t.Fatalf("slot %d owns %d of %d vnodes over %d slots", s, c, g, n)
			}
		}
		// The fewest moves: every vnode a slot keeps beyond its old count
		// would have to come from elsewhere anyway.
		before := map[int]int{}
		for _, s := range owner {
			before[s]++
		}
		kept := 0
		for v := range owner {
			if owner[v] == target[v] {
				kept++
			}
		}
		best := 0
		for s, c := range count {
			best += min(c, before[s])
		}
		if kept != best {
			t.Fatalf("keeps %d vnodes in place, the slots' shares allow %d: %v -> %v", kept, best, owner, target)
		}
		step := rapid.IntRange(1, g).Draw(t, "step")
		cur := owner
		for i := 0; !slices.Equal(cur, target); i++ {
			if i > g {
				t.Fatalf("steps of %d do not reach %v from %v", step, target, owner)
			}
			next := NextStep(cur, target, step)
			moved := 0
			for v := range next {
				if next[v] != cur[v] {
					moved++
					if next[v] != target[v] {
						t.Fatalf("vnode %d moved to %d, not to its target %d", v, next[v], target[v])
					}
				}
			}
			if moved == 0 || moved > step {
				t.Fatalf("a step moves %d vnodes, want 1 to %d", moved, step)
			}
			cur = next
		}
	})
}

// TestRescaleClaim checks that one node at a time rescales a job: a plan
// of another runner is refused until the recorded one ends (its last
// step, its runner's end, or its runner's removal).
func TestRescaleClaim(t *testing.T) {
	f := newFSM(quiet)
	for _, n := range []string{"n1", "n2"} {
		if _, err := applyCmd(t, f, opPutNode, putNodeCmd{Node: &Node{ID: n, Cores: 2}}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := applyCmd(t, f, opCreateTable, createTableCmd{Table: tbl("mv", KindMaterializedView)})
	if err != nil {
		t.Fatal(err)
	}
	id := v.(*Table).ID
	plan := func(runner string) rescaleCmd {
		return rescaleCmd{Table: id, Rescale: &Rescale{Parallelism: 2, Target: []int{0, 1}, Strategy: "fluid", Runner: runner}}
	}
	steps := []struct {
		name    string
		op      op
		payload any
		code    string // expected SQLSTATE, "" for success
		runner  string // the runner recorded after the step, "" for none
	}{
		{"n1 begins", opRescale, plan("n1"), "", "n1"},
		{"n2 is refused", opRescale, plan("n2"), "55006", "n1"},
		{"n1 plans again", opRescale, plan("n1"), "", "n1"},
		{"n2 cannot end n1's", opEndRescale, endRescaleCmd{Table: id, Runner: "n2"}, "", "n1"},
		{"n1 ends it", opEndRescale, endRescaleCmd{Table: id, Runner: "n1"}, "", ""},
		{"n2 begins", opRescale, plan("n2"), "", "n2"},
		{"its last step ends it", opCommitEpoch, commitEpochCmd{Epoch: 1, Step: &RescaleStep{Table: id, Assignment: []int{0, 1}, Done: true}}, "", ""},
		{"n2 begins again", opRescale, plan("n2"), "", "n2"},
		{"n2 is removed", opRemoveNode, removeNodeCmd{ID: "n2"}, "", ""},
		{"n1 begins after", opRescale, plan("n1"), "", "n1"},
	}
	for _, s := range steps {
		if _, err := applyCmd(t, f, s.op, s.payload); pgerror.Code(err) != s.code {
			t.Fatalf("%s: error %v, want code %q", s.name, err, s.code)
		}
		tb, _ := f.catalog.Load().TableByID(id)
		runner := ""
		if tb.Rescale != nil {
			runner = tb.Rescale.Runner
		}
		if runner != s.runner {
			t.Fatalf("%s: runner %q, want %q", s.name, runner, s.runner)
		}
	}
}
