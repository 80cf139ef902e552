package dataflow

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// TestHandOverCaches moves the cache of one vnode from one actor's view of
// a state table to another's: the groups keep their rows and changes, the
// node's cache usage stays the same, the old owner keeps only the vnodes
// it keeps, and the new owner's later changes are staged under the moved
// vnode.
func TestHandOverCaches(t *testing.T) {
	store := newEnv(t).Store
	old := NewStateTable(store, 31, pairTypes)
	mustGroup(t, old, 1, "a").Put([]byte("x"), pair(1, "one"))
	mustGroup(t, old, 2, "b").Put([]byte("y"), pair(2, "two"))
	mustGroup(t, old, 2, "c").Put([]byte("z"), pair(3, "three"))
	mustGroup(t, old, 2, "empty") // left empty: the old owner lists it to drop
	old.Commit(1)
	store.WriteBehind()
	used := store.CacheUsage()

	mine := NewBitmap(4)
	mine.Set(2)
	caches := old.detach(mine)
	if len(old.vnodes) != 1 || !cached(old, 1, "a") || old.lru.head == nil || old.lru.head.vnode != 1 || old.lru.head != old.lru.tail {
		t.Fatal("the old owner should keep exactly the groups of vnode 1")
	}
	next := NewStateTable(store, 31, pairTypes)
	if n := next.adopt(caches, mine); n <= 0 {
		t.Fatalf("adopted %d bytes", n)
	}
	if got := store.CacheUsage(); got != used {
		t.Fatalf("cache usage %d after the hand-over, was %d", got, used)
	}
	if !cached(next, 2, "b") || !cached(next, 2, "c") || cached(next, 1, "a") || !cached(old, 1, "a") || cached(old, 2, "b") {
		t.Fatal("groups did not go to the owners of their vnodes")
	}
	// The old owner's next Commits drop no group it handed over.
	mustSeal(t, store, 1)
	old.Commit(2)
	if e := next.vnodes[2][string(types.AppendKey(nil, types.NewString("empty"), false))]; e == nil || e.evicted {
		t.Fatal("the old owner dropped an empty group it handed over")
	}
	g := mustGroup(t, next, 2, "b")
	if got := groupContents(g); got != "y=2 two" {
		t.Fatalf("handed-over group holds %s", got)
	}
	g.Put([]byte("w"), pair(4, "four"))
	next.Commit(2)
	mustSeal(t, store, 2)
	// Read back from storage by a third view of the table.
	if got := groupContents(mustGroup(t, NewStateTable(store, 31, pairTypes), 2, "b")); got != "w=4 four,y=2 two" {
		t.Fatalf("storage holds %s after the new owner's change", got)
	}
}

// TestWarmLoadsWholeGroups loads vnodes from storage into a fresh view of
// a table (CacheEager): every group comes back whole, a loaded vnode needs
// no storage read on a miss, and nothing loads past the cache budget.
func TestWarmLoadsWholeGroups(t *testing.T) {
	store := newEnv(t).Store
	old := NewStateTable(store, 32, pairTypes)
	for _, p := range []string{"a", "b", "c"} {
		g := mustGroup(t, old, 1, p)
		g.Put([]byte("1"), pair(1, p))
		g.Put([]byte("2"), pair(2, p))
	}
	mustGroup(t, old, 2, "d").Put([]byte("1"), pair(3, "d"))
	old.Commit(1)
	mustSeal(t, store, 1)

	fresh := func() *StateTable {
		st := NewStateTable(store, 32, pairTypes)
		st.layout = &groupLayout{cols: 1}
		return st
	}
	vnodes := NewBitmap(4)
	vnodes.Set(1)
	st := fresh()
	if n, err := st.warm(vnodes); err != nil || n <= 0 {
		t.Fatalf("warm = %d, %v", n, err)
	}
	for _, p := range []string{"a", "b", "c"} {
		if !cached(st, 1, p) {
			t.Fatalf("group %s of vnode 1 was not loaded", p)
		}
		if got, want := groupContents(mustGroup(t, st, 1, p)), groupContents(mustGroup(t, old, 1, p)); got != want {
			t.Fatalf("group %s loaded as %s, stored %s", p, got, want)
		}
	}
	if !st.bare[1] || cached(st, 2, "d") {
		t.Fatal("vnode 1 should be complete and vnode 2 not loaded")
	}

	store.SetCacheBytes(0)
	st = fresh()
	if _, err := st.warm(vnodes); err != nil || len(st.vnodes[1]) != 0 || st.bare[1] {
		t.Fatalf("over budget: loaded %d groups (bare %v, err %v)", len(st.vnodes[1]), st.bare[1], err)
	}
}

// TestLoadHot loads the hot groups that a remote old owner sent into a
// fresh view of a table: those of the table and the gained vnodes come
// whole from storage, others are skipped, and nothing loads past the
// cache budget or its deadline.
func TestLoadHot(t *testing.T) {
	store := newEnv(t).Store
	old := NewStateTable(store, 33, pairTypes)
	mustGroup(t, old, 1, "a").Put([]byte("1"), pair(1, "a"))
	mustGroup(t, old, 1, "b").Put([]byte("1"), pair(2, "b"))
	mustGroup(t, old, 2, "c").Put([]byte("1"), pair(3, "c"))
	old.Commit(1)
	mustSeal(t, store, 1)
	gained := NewBitmap(4)
	gained.Set(1)
	prefix := func(p string) []byte { return types.AppendKey(nil, types.NewString(p), false) }
	hot := []HotGroup{{Table: 33, VNode: 1, Prefix: prefix("b")}, {Table: 33, VNode: 2, Prefix: prefix("c")}, {Table: 34, VNode: 1, Prefix: prefix("a")}}
	st := NewStateTable(store, 33, pairTypes)
	later := time.Now().Add(time.Minute)
	if n, err := st.loadHot(hot, gained, later); err != nil || n <= 0 {
		t.Fatalf("loadHot = %d, %v", n, err)
	}
	if !cached(st, 1, "b") || cached(st, 1, "a") || cached(st, 2, "c") {
		t.Fatal("only group b of vnode 1 should be loaded")
	}
	if got := groupContents(mustGroup(t, st, 1, "b")); got != "1=2 b" {
		t.Fatalf("group b loaded as %s", got)
	}
	st = NewStateTable(store, 33, pairTypes)
	if n, err := st.loadHot(hot, gained, time.Now().Add(-time.Second)); err != nil || n != 0 || cached(st, 1, "b") {
		t.Fatalf("past the deadline: loaded %d bytes (err %v)", n, err)
	}
	store.SetCacheBytes(0)
	st = NewStateTable(store, 33, pairTypes)
	if n, err := st.loadHot(hot, gained, later); err != nil || n != 0 || cached(st, 1, "b") {
		t.Fatalf("over budget: loaded %d bytes (err %v)", n, err)
	}
}
