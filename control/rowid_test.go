package control

import (
	"testing"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// TestRowIDs checks that hidden row ids are unique, start at the
// high-water mark, stay below the one reported, and come in runs of one
// vnode that visit every vnode.
func TestRowIDs(t *testing.T) {
	vnode := func(id int64) uint16 {
		return rowkey.VNode(types.AppendKey(nil, types.NewInt(id), false), rowkey.VNodes)
	}
	for _, start := range []int64{0, 1 << 40} {
		r := newRowIDs(start)
		seen := map[int64]bool{}
		vnodes := map[uint16]bool{}
		const n = 3 * rowIDRun * 256
		changes := 0
		var prev int64
		for i := range n {
			id := r.take()
			if seen[id] || id < start || id >= r.next {
				t.Fatalf("start %d: id %d (taken before: %v, high-water mark %d)", start, id, seen[id], r.next)
			}
			seen[id] = true
			vnodes[vnode(id)] = true
			if i > 0 && vnode(id) != vnode(prev) {
				changes++
			} else if i > 0 && id < prev {
				t.Fatalf("start %d: id %d after %d in one vnode", start, id, prev)
			}
			prev = id
		}
		// A vnode change starts each run; blocks hold about rowIDRun ids
		// per vnode.
		if runs := n / (changes + 1); runs < rowIDRun/2 || len(vnodes) != rowkey.VNodes {
			t.Errorf("start %d: runs of %d ids on average over %d vnodes", start, runs, len(vnodes))
		}
		if again := newRowIDs(r.next).take(); seen[again] {
			t.Errorf("start %d: id %d handed out again after a restart from the high-water mark", start, again)
		}
	}
}
