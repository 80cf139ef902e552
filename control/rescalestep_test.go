package control

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/meta"
)

// TestRescaleSteps drives rescaleSteps switch by switch, each taking the
// given time, and checks the vnodes each moves, the steps estimated in
// all after it, and that the last one reaches the target.
func TestRescaleSteps(t *testing.T) {
	fill := func(n, slot int) []int {
		out := make([]int, n)
		for v := range out {
			out[v] = slot
		}
		return out
	}
	alternate := make([]int, 16)
	for v := range alternate {
		alternate[v] = v % 2
	}
	ms := time.Millisecond
	for _, tc := range []struct {
		name          string
		owner, target []int
		strategy      string
		step          int
		took          []time.Duration // per switch; the last repeats
		want          string          // moved/steps-total per switch
	}{
		// Adaptive fluid steps start at firstStep vnodes and at most
		// double after a quick switch.
		{"fluid quick switches", fill(16, 0), alternate, StrategyFluid, 0, []time.Duration{10 * ms}, "4/2 4/2"},
		// A switch that holds the vnodes longer than the quickest one
		// shrinks the next step by stepPause over the difference, to one
		// vnode at least; quick ones grow it again.
		{"fluid slow switches", fill(16, 0), fill(16, 1), StrategyFluid, 0,
			[]time.Duration{100 * ms, 400 * ms, 50 * ms, 0}, "4/3 8/6 1/5 2/5 1/5"},
		// Switches that all cost the same (their commits) grow the step
		// however slow they are.
		{"fluid slow commits", fill(16, 0), fill(16, 1), StrategyFluid, 0, []time.Duration{120 * ms}, "4/3 8/3 4/3"},
		{"fluid given step", fill(8, 0), fill(8, 1), StrategyFluid, 3, []time.Duration{time.Second}, "3/3 3/3 2/3"},
		{"fluid nothing to move", alternate, alternate, StrategyFluid, 0, []time.Duration{ms}, "0/1"},
		{"all at once", []int{0, 0, 1, 1}, []int{0, 1, 1, 2}, StrategyAllAtOnce, 0, []time.Duration{time.Second}, "2/1"},
		// Restart replaces every actor: every vnode moves, changing owner
		// or not.
		{"restart", []int{0, 0, 1, 1}, []int{0, 0, 0, 0}, StrategyRestart, 0, []time.Duration{time.Second}, "4/1"},
		{"restart in place", []int{0, 1}, []int{0, 1}, StrategyRestart, 0, []time.Duration{ms}, "2/1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := newRescaleSteps(slices.Clone(tc.owner), &meta.Rescale{Target: tc.target, Strategy: tc.strategy, Step: tc.step})
			p := RescaleProgress{VNodesTotal: steps.total}
			var got []string
			moved := map[int]bool{}
			for i := 0; ; i++ {
				if i > len(tc.owner) {
					t.Fatalf("no last switch after %d: %v", i, got)
				}
				st := steps.next()
				for _, v := range st.vnodes {
					if moved[v] || st.to[v] != tc.target[v] {
						t.Fatalf("switch %d moves vnode %d again or not to its target: %+v", i+1, v, st)
					}
					moved[v] = true
				}
				steps.switched(st, tc.took[min(i, len(tc.took)-1)])
				steps.record(&p, st, 10, 1)
				got = append(got, fmt.Sprintf("%d/%d", len(st.vnodes), p.StepsTotal))
				if st.last {
					if !slices.Equal(st.to, tc.target) {
						t.Fatalf("the last switch reaches %v, want %v", st.to, tc.target)
					}
					break
				}
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Fatalf("switches %s, want %s", s, tc.want)
			}
			n := int64(len(got))
			if p.VNodesMoved != p.VNodesTotal || p.StepsDone != len(got) || p.StepsTotal != len(got) || p.BytesMoved != 10*n || p.CacheBytesMoved != n {
				t.Fatalf("progress at the end: %+v", p)
			}
		})
	}
}

func TestNodeMoves(t *testing.T) {
	place := []string{"n1", "n2", "n3"}
	got := nodeMoves([]int{0, 0, 1, 1, 2, 2}, []int{0, 1, 1, 2, 2, 0}, place)
	if want := "[{n1 n2 [1]} {n2 n3 [3]} {n3 n1 [5]}]"; fmt.Sprint(got) != want {
		t.Fatalf("nodeMoves: %v, want %v", got, want)
	}
	if got := nodeMoves([]int{0, 1}, []int{1, 0}, []string{"n1", "n1"}); len(got) != 0 {
		t.Fatalf("moves on one node: %v", got)
	}
}
