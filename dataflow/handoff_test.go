package dataflow

import (
	"testing"
)

// TestHandOverCaches moves the cache of one vnode from one actor's view of
// a state table to another's: the groups keep their rows and changes, the
// node's cache usage stays the same, the old owner keeps nothing, and the
// new owner's later changes are staged under the moved vnode.
func TestHandOverCaches(t *testing.T) {
	store := newEnv(t).Store
	old := NewStateTable(store, 31, pairTypes)
	mustGroup(t, old, 1, "a").Put([]byte("x"), pair(1, "one"))
	mustGroup(t, old, 2, "b").Put([]byte("y"), pair(2, "two"))
	mustGroup(t, old, 2, "c").Put([]byte("z"), pair(3, "three"))
	old.Commit(1)
	store.WriteBehind()
	used := store.CacheUsage()

	caches := old.detachAll()
	if len(old.vnodes) != 0 || old.lru.head != nil {
		t.Fatal("the old owner kept cached groups")
	}
	mine, theirs := NewBitmap(4), NewBitmap(4)
	mine.Set(2)
	theirs.Set(1)
	next := NewStateTable(store, 31, pairTypes)
	if n := next.adopt(caches, mine); n <= 0 {
		t.Fatalf("adopted %d bytes", n)
	}
	old.adopt(caches, theirs)
	if got := store.CacheUsage(); got != used {
		t.Fatalf("cache usage %d after the hand-over, was %d", got, used)
	}
	if !cached(next, 2, "b") || !cached(next, 2, "c") || cached(next, 1, "a") || !cached(old, 1, "a") || cached(old, 2, "b") {
		t.Fatal("groups did not go to the owners of their vnodes")
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
