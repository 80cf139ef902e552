package dataflow

import (
	"cmp"
	"context"
	"slices"
	"sync/atomic"
	"time"
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
	// caches are the detached caches by state table id and vnode.
	caches map[uint32]map[uint16]*vnodeCache
	// hot are, for vnodes gained from another node, the groups their old
	// owner had cached, hottest first (Migrator.Fetch).
	hot []HotGroup
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
// prefix, and each with a copy of its epoch, to order them without
// touching them.
type vnodeCache struct {
	groups  map[string]*Group
	byEpoch []groupEpoch
	bare    bool
	bytes   int64
}

type groupEpoch struct {
	epoch uint64
	g     *Group
}

// detach removes the cached groups of the vnodes in lost from t and
// returns them by vnode; the groups of other vnodes stay. Call it at a
// barrier, after Commit: no group is in use.
func (t *StateTable) detach(lost *Bitmap) map[uint16]*vnodeCache {
	out := map[uint16]*vnodeCache{}
	var total int64
	for v, groups := range t.vnodes {
		if !lost.Has(int(v)) {
			continue
		}
		c := &vnodeCache{groups: groups, bare: t.bare[v], byEpoch: make([]groupEpoch, 0, len(groups))}
		for _, g := range groups {
			t.lru.remove(g)
			c.bytes += g.bytes
			c.byEpoch = append(c.byEpoch, groupEpoch{g.epoch, g})
		}
		total += c.bytes
		out[v] = c
		delete(t.vnodes, v)
		delete(t.bare, v)
	}
	// The groups go to another actor's table: this one must not drop them.
	t.empties.remove(func(g *Group) bool { return lost.Has(int(g.vnode)) })
	t.account(-total)
	t.report()
	return out
}

// adopt takes over the caches of the vnodes in vnodes from caches,
// detached from another actor's view of the same table, and returns their
// bytes. The groups join the LRU list behind those cached already, most
// recent epochs first (the list's order, see stateCache).
func (t *StateTable) adopt(caches map[uint16]*vnodeCache, vnodes *Bitmap) int64 {
	var groups []groupEpoch
	var n int64
	for v, c := range caches {
		if !vnodes.Has(int(v)) {
			continue
		}
		t.vnodes[v] = c.groups
		t.bare[v] = c.bare
		groups = append(groups, c.byEpoch...)
		n += c.bytes
	}
	slices.SortFunc(groups, func(a, b groupEpoch) int { return cmp.Compare(b.epoch, a.epoch) })
	for _, e := range groups {
		e.g.t = t
		// Not used since this table's last Commit.
		e.g.gen = 0
		t.lru.pushBack(e.g)
	}
	t.account(n)
	t.report()
	return n
}

// loadHot loads from storage into the cache the groups of hot (a remote
// old owner's, hottest first) that belong to t and to vnodes, and are
// not cached yet, hottest first, while the node's cache has room and
// until deadline: the moved vnodes' rows wait meanwhile, and a group not
// loaded is read on first use. It returns their bytes.
func (t *StateTable) loadHot(hot []HotGroup, vnodes *Bitmap, deadline time.Time) (int64, error) {
	c := &t.store.cache
	var n int64
	for i, h := range hot {
		if h.Table != t.id || !vnodes.Has(int(h.VNode)) || t.vnodes[h.VNode][string(h.Prefix)] != nil {
			continue
		}
		if c.used.Load() >= c.budget.Load() || i%16 == 0 && time.Now().After(deadline) {
			break
		}
		g, err := t.group(h.VNode, h.Prefix, true)
		if err != nil {
			return n, err
		}
		n += g.bytes
	}
	return n, nil
}

// rescaleCounters are the figures of a reassignment, shared by its actors.
type rescaleCounters struct {
	// cacheBytes is the cached state new owners got (ReassignResult).
	cacheBytes atomic.Int64
}
