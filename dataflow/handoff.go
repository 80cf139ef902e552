package dataflow

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"
)

// handoff is what an actor losing vnodes (or source splits) at a
// reassignment barrier leaves to their new owners: the cached state groups
// of those vnodes, detached from its state tables. It is done once the
// loser has passed the barrier and written its state for the barrier's
// epoch into storage (Store.WriteBehind), so that a new owner reading
// storage from then on sees exactly that state (DESIGN.md §6: on one node
// the moved vnodes' cache segments change owner, no state is copied).
type handoff struct {
	done chan struct{}
	// caches[i][j] are the detached caches of the j-th state table of the
	// i-th operator, by vnode.
	caches [][]map[uint16]*vnodeCache
}

func newHandoff() *handoff { return &handoff{done: make(chan struct{})} }

// wait blocks until h is done or ctx ends.
func (h *handoff) wait(ctx context.Context) error {
	select {
	case <-h.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// vnodeCache is one vnode's part of a state table's cache: its groups by
// prefix and, in order, most recently used first.
type vnodeCache struct {
	groups map[string]*Group
	order  []*Group
	bare   bool
	bytes  int64
}

// stateHolder is an operator that keeps state tables: their cached
// groups move with their vnodes when the actor's vnodes are reassigned.
// Tables are listed in a fixed order, the same for every operator built
// from one spec.
type stateHolder interface {
	stateTables() []*StateTable
}

// detachCaches detaches every cached group of the chain's state tables.
func detachCaches(chain []Operator) [][]map[uint16]*vnodeCache {
	out := make([][]map[uint16]*vnodeCache, len(chain))
	for i, op := range chain {
		h, ok := op.(stateHolder)
		if !ok {
			continue
		}
		for _, t := range h.stateTables() {
			out[i] = append(out[i], t.detachAll())
		}
	}
	return out
}

// adoptCaches gives the chain's state tables the caches in from of the
// vnodes in vnodes, and returns their bytes.
func adoptCaches(chain []Operator, from [][]map[uint16]*vnodeCache, vnodes *Bitmap) int64 {
	var n int64
	for i, op := range chain {
		h, ok := op.(stateHolder)
		if !ok || i >= len(from) {
			continue
		}
		for j, t := range h.stateTables() {
			if j < len(from[i]) {
				n += t.adopt(from[i][j], vnodes)
			}
		}
	}
	return n
}

// detachAll removes every cached group from t and returns them by vnode.
// Call it at a barrier, after Commit: no group is in use.
func (t *StateTable) detachAll() map[uint16]*vnodeCache {
	out := make(map[uint16]*vnodeCache, len(t.vnodes))
	for v, groups := range t.vnodes {
		out[v] = &vnodeCache{groups: groups, bare: t.bare[v]}
	}
	var total int64
	for g := t.lru.head; g != nil; g = g.next {
		c := out[g.vnode]
		c.order = append(c.order, g)
		c.bytes += g.bytes
		total += g.bytes
	}
	t.lru = groupLRU{}
	clear(t.vnodes)
	clear(t.bare)
	t.account(-total)
	t.report()
	return out
}

// adopt takes over the caches of the vnodes in vnodes from caches,
// detached from other views of the same table, and returns their bytes.
// The groups join the LRU list behind those cached already, most recent
// epochs first (the list's order, see stateCache), keeping each vnode's
// order within an epoch.
func (t *StateTable) adopt(caches map[uint16]*vnodeCache, vnodes *Bitmap) int64 {
	var groups []*Group
	var n int64
	for v, c := range caches {
		if !vnodes.Has(int(v)) {
			continue
		}
		t.vnodes[v] = c.groups
		t.bare[v] = c.bare
		groups = append(groups, c.order...)
		n += c.bytes
	}
	slices.SortStableFunc(groups, func(a, b *Group) int { return cmp.Compare(b.epoch, a.epoch) })
	for _, g := range groups {
		g.t = t
		// Not used since this table's last Commit.
		g.gen = 0
		t.lru.pushBack(g)
	}
	t.account(n)
	t.report()
	return n
}

// rescaleCounters are the figures of a reassignment, shared by its actors.
type rescaleCounters struct {
	// cacheBytes is the cached state new owners got (ReassignResult).
	cacheBytes atomic.Int64
}
