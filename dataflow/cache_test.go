package dataflow

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// cached reports whether prefix's group of vnode is in st's cache.
func cached(st *StateTable, vnode uint16, prefix string) bool {
	_, ok := st.vnodes[vnode][string(types.AppendKey(nil, types.NewString(prefix), false))]
	return ok
}

// mustSeal seals store up to epoch.
func mustSeal(t tester, store *Store, epoch uint64) {
	t.Helper()
	if err := store.Seal(epoch, nil, true); err != nil {
		t.Fatal(err)
	}
}

// TestEvictOnlyClean checks, with a budget of nothing, that groups in use
// since the last Commit and groups with unsealed writes stay cached, that
// everything else goes, and that an evicted group reloads its state.
func TestEvictOnlyClean(t *testing.T) {
	store := newEnv(t).Store
	store.SetCacheBytes(0)
	st := NewStateTable(store, 21, pairTypes)
	a := mustGroup(t, st, 1, "a")
	a.Put([]byte("x"), pair(1, "one"))
	mustGroup(t, st, 1, "read")
	// Loading more groups evicts nothing in use.
	for _, p := range []string{"b", "c"} {
		mustGroup(t, st, 2, p)
	}
	if mustGroup(t, st, 1, "a") != a || !cached(st, 1, "read") {
		t.Fatal("a group in use was evicted")
	}
	st.Commit(1)
	steps := []struct {
		name   string
		do     func()
		cached []string
	}{
		{"after commit 1: unsealed", func() {}, []string{"a", "read"}},
		{"after sealing 1", func() { mustSeal(t, store, 1); st.Commit(2) }, nil},
		{"changed again, committed", func() { mustGroup(t, st, 1, "a").Put([]byte("y"), pair(2, "two")); st.Commit(3) }, []string{"a"}},
		{"sealed", func() { mustSeal(t, store, 3); st.Commit(4) }, nil},
	}
	for _, s := range steps {
		s.do()
		var got []string
		for _, p := range []string{"a", "read"} {
			if cached(st, 1, p) {
				got = append(got, p)
			}
		}
		if strings.Join(got, ",") != strings.Join(s.cached, ",") {
			t.Fatalf("%s: cached %v, want %v", s.name, got, s.cached)
		}
	}
	if cached(st, 2, "b") || cached(st, 2, "c") {
		t.Fatal("clean groups stay cached over budget")
	}
	if got := groupContents(mustGroup(t, st, 1, "a")); got != "x=1 one,y=2 two" {
		t.Fatalf("reloaded group: %s", got)
	}
	if st.lru.head == nil || st.lru.head != st.lru.tail {
		t.Fatal("the LRU list does not hold exactly the one cached group")
	}
}

// TestEvictedGroupPanics checks that changing a group after it was
// evicted fails loudly instead of losing the change.
func TestEvictedGroupPanics(t *testing.T) {
	store := newEnv(t).Store
	store.SetCacheBytes(0)
	st := NewStateTable(store, 22, pairTypes)
	g := mustGroup(t, st, 0, "g")
	st.Commit(1)
	mustSeal(t, store, 1)
	st.Commit(2)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	g.Put(nil, pair(1, "x"))
}

// TestSealedEpoch checks the store's sealed epoch, also when writes of a
// sealed epoch arrive while the batch is written.
func TestSealedEpoch(t *testing.T) {
	store := newEnv(t).Store
	w := func(k string) []Write {
		return []Write{{Key: storage.AppendKey(nil, 23, 0, []byte(k)), Value: []byte("v")}}
	}
	store.Stage(1, w("a"))
	store.Stage(3, w("b"))
	mustSeal(t, store, 2)
	if got := store.sealed.Load(); got != 2 {
		t.Fatalf("sealed %d after Seal(2), want 2", got)
	}
	if err := store.Seal(4, func(*storage.Batch) { store.Stage(3, w("c")) }, true); err != nil {
		t.Fatal(err)
	}
	if got := store.sealed.Load(); got != 2 {
		t.Fatalf("sealed %d with epoch 3 partly staged, want 2", got)
	}
	mustSeal(t, store, 4)
	if got := store.sealed.Load(); got != 4 {
		t.Fatalf("sealed %d after Seal(4), want 4", got)
	}
}

// TestColdGroupsOfIdleTables checks LRU across tables: once a busy table
// evicts a group for lack of budget, an idle table drops its groups last
// used before that group at its next Commit, and keeps newer ones.
func TestColdGroupsOfIdleTables(t *testing.T) {
	store := newEnv(t).Store
	idle := NewStateTable(store, 24, pairTypes)
	busy := NewStateTable(store, 25, pairTypes)
	filled := func(st *StateTable, prefix string) {
		mustGroup(t, st, 0, prefix).Put([]byte("k"), pair(1, prefix))
	}
	filled(idle, "old")
	idle.Commit(1)
	filled(busy, "b1")
	busy.Commit(2)
	filled(idle, "new")
	idle.Commit(3)
	filled(busy, "b2")
	busy.Commit(3)
	mustSeal(t, store, 3)
	// Room for the four groups: loading a fifth evicts b1 (epoch 2).
	store.SetCacheBytes(store.CacheUsage())
	mustGroup(t, busy, 0, "b3")
	if cached(busy, 0, "b1") || !cached(busy, 0, "b2") {
		t.Fatal("the busy table did not evict exactly its least recently used group")
	}
	idle.Commit(4)
	if cached(idle, 0, "old") || !cached(idle, 0, "new") {
		t.Fatal("the idle table did not drop exactly its groups colder than the evicted one")
	}
}

// TestTouchDoesNotAllocate checks that using cached groups, and a Commit
// of an epoch without changes, do not allocate.
func TestTouchDoesNotAllocate(t *testing.T) {
	st := NewStateTable(newEnv(t).Store, 26, pairTypes)
	keys := [][]byte{types.AppendKey(nil, types.NewInt(1), false), types.AppendKey(nil, types.NewInt(2), false)}
	for _, k := range keys {
		if _, err := st.Group(0, k); err != nil {
			t.Fatal(err)
		}
	}
	epoch := uint64(0)
	allocs := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			if _, err := st.Group(0, k); err != nil {
				t.Fatal(err)
			}
		}
		epoch++
		st.Commit(epoch)
	})
	if allocs != 0 {
		t.Fatalf("%.0f allocations per epoch touching two cached groups", allocs)
	}
}

// TestCacheAccounting runs random changes over several tables under small
// budgets and checks that the usage is the sum of the cached groups' sizes,
// never negative, and 0 once everything is evicted.
func TestCacheAccounting(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		store := NewStore(engine)
		store.SetCacheBytes(rapid.Int64Range(0, 8<<10).Draw(rt, "budget"))
		tables := make([]*StateTable, rapid.IntRange(1, 3).Draw(rt, "tables"))
		for i := range tables {
			tables[i] = NewStateTable(store, freshTable(), pairTypes)
		}
		sum := func() int64 {
			n := int64(0)
			for _, st := range tables {
				st.report()
				for g := st.lru.head; g != nil; g = g.next {
					n += g.bytes
				}
			}
			return n
		}
		epoch := uint64(0)
		for range rapid.IntRange(1, 100).Draw(rt, "ops") {
			st := tables[rapid.IntRange(0, len(tables)-1).Draw(rt, "table")]
			g, err := st.Group(uint16(rapid.IntRange(0, 3).Draw(rt, "vnode")),
				types.AppendKey(nil, types.NewInt(rapid.Int64Range(0, 20).Draw(rt, "group")), false))
			if err != nil {
				rt.Fatal(err)
			}
			suffix := []byte(rapid.SampledFrom([]string{"", "a", "bb"}).Draw(rt, "suffix"))
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 0, 1:
				g.Put(suffix, pair(1, strings.Repeat("v", rapid.IntRange(0, 100).Draw(rt, "len"))))
			case 2:
				g.Delete(suffix)
			default:
				epoch++
				for _, st := range tables {
					st.Commit(epoch)
				}
				if rapid.Bool().Draw(rt, "seal") {
					mustSeal(rt, store, epoch)
				}
			}
			if used := sum(); used < 0 || used != store.CacheUsage() {
				rt.Fatalf("usage %d, groups hold %d", store.CacheUsage(), used)
			}
		}
		epoch++
		store.SetCacheBytes(0)
		for _, st := range tables {
			st.Commit(epoch)
		}
		mustSeal(rt, store, epoch)
		for _, st := range tables {
			st.Commit(epoch + 1)
		}
		if store.CacheUsage() != 0 {
			rt.Fatalf("usage %d with everything evicted", store.CacheUsage())
		}
	})
}

// TestCacheReleasedWithTable checks that a table's cached bytes return to
// the budget once the table is garbage.
func TestCacheReleasedWithTable(t *testing.T) {
	store := newEnv(t).Store
	func() {
		st := NewStateTable(store, 27, pairTypes)
		mustGroup(t, st, 0, "g").Put(nil, pair(1, "x"))
		st.report()
	}()
	if store.CacheUsage() == 0 {
		t.Fatal("no usage recorded")
	}
	for i := 0; i < 100 && store.CacheUsage() != 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if store.CacheUsage() != 0 {
		t.Fatalf("usage %d after the table is garbage", store.CacheUsage())
	}
}

// TestCacheConcurrentSeal runs actors that count into their groups under a
// budget of nothing while another goroutine seals each epoch once every
// actor committed it, as the barrier manager does: evicted groups must
// reload every count.
func TestCacheConcurrentSeal(t *testing.T) {
	store := newEnv(t).Store
	store.SetCacheBytes(0)
	const actors, keys, ops, perEpoch = 4, 10, 400, 7
	key := func(i int) []byte { return types.AppendKey(nil, types.NewInt(int64(i%keys)), false) }
	committed := make(chan uint64, actors)
	sealed := make(chan error, 1)
	go func() {
		reported := map[uint64]int{}
		next := uint64(1)
		for e := range committed {
			for reported[e]++; reported[next] == actors; next++ {
				if err := store.Seal(next, nil, true); err != nil {
					sealed <- err
					return
				}
			}
		}
		sealed <- nil
	}()
	var wg sync.WaitGroup
	for a := range actors {
		wg.Go(func() {
			st := NewStateTable(store, 28, pairTypes)
			epoch := uint64(0)
			for i := range ops {
				g, err := st.Group(uint16(a), key(i))
				if err != nil {
					t.Error(err)
					return
				}
				n := int64(0)
				if row, ok := g.Get(nil); ok {
					n = row[0].Int()
				}
				g.Put(nil, pair(n+1, "c"))
				if i%perEpoch == perEpoch-1 || i == ops-1 {
					epoch++
					st.Commit(epoch)
					committed <- epoch
				}
			}
		})
	}
	wg.Wait()
	close(committed)
	if err := <-sealed; err != nil {
		t.Fatal(err)
	}
	fresh := NewStateTable(store, 28, pairTypes)
	for a := range actors {
		for k := range keys {
			g, err := fresh.Group(uint16(a), key(k))
			if err != nil {
				t.Fatal(err)
			}
			if row, ok := g.Get(nil); !ok || row[0].Int() != ops/keys {
				t.Fatalf("actor %d key %d: %v, want count %d", a, k, row, ops/keys)
			}
		}
	}
}

func TestGroupLRU(t *testing.T) {
	gs := map[string]*Group{"a": {prefix: "a"}, "b": {prefix: "b"}, "c": {prefix: "c"}}
	tests := []struct {
		op, group string
		want      string // the list front to back
	}{
		{"push", "a", "a"},
		{"push", "b", "ba"},
		{"push", "c", "cba"},
		{"remove", "b", "ca"},
		{"remove", "c", "a"},
		{"push", "c", "ca"},
		{"remove", "a", "c"},
		{"remove", "c", ""},
	}
	var l groupLRU
	for _, tt := range tests {
		if tt.op == "push" {
			l.pushFront(gs[tt.group])
		} else {
			l.remove(gs[tt.group])
		}
		var fwd, back string
		for g := l.head; g != nil; g = g.next {
			fwd += g.prefix
		}
		for g := l.tail; g != nil; g = g.prev {
			back = g.prefix + back
		}
		if fwd != tt.want || back != tt.want {
			t.Fatalf("after %s %s: list %q, backwards %q, want %q", tt.op, tt.group, fwd, back, tt.want)
		}
	}
}

func TestRowBytes(t *testing.T) {
	dec, err := types.ParseText(types.TNumeric, "1.5")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		row  []types.Datum
		want int64
	}{
		{nil, 0},
		{[]types.Datum{types.Null, types.NewInt(1)}, 2 * datumBytes},
		{[]types.Datum{types.NewString("abc"), types.NewBytes([]byte{1, 2})}, 2*datumBytes + 5},
		{[]types.Datum{dec}, datumBytes + decimalBytes},
	}
	for _, tt := range tests {
		if got := rowBytes(tt.row); got != tt.want {
			t.Errorf("rowBytes(%v) = %d, want %d", tt.row, got, tt.want)
		}
	}
}

// TestBareVnodes checks the shortcut for a new job's state: a vnode with
// nothing in storage is marked bare (misses skip storage reads) until one of
// its groups is evicted, and a vnode with stored entries never is.
func TestBareVnodes(t *testing.T) {
	store := newEnv(t).Store
	st := NewStateTable(store, 22, pairTypes)
	mustGroup(t, st, 3, "k").Put([]byte("x"), pair(1, "one"))
	if !st.bare[3] {
		t.Fatal("a vnode with nothing stored is not bare")
	}
	st.Commit(1)
	mustSeal(t, store, 1)
	store.SetCacheBytes(0)
	st.Commit(2) // evicts "k", whose entry is now only in storage
	if cached(st, 3, "k") || st.bare[3] {
		t.Fatalf("after eviction: cached=%v bare=%v", cached(st, 3, "k"), st.bare[3])
	}
	if got := groupContents(mustGroup(t, st, 3, "k")); got != "x=1 one" {
		t.Fatalf("reloaded group: %s", got)
	}
	again := NewStateTable(store, 22, pairTypes)
	mustGroup(t, again, 3, "other")
	if again.bare[3] {
		t.Fatal("a vnode with stored entries is bare")
	}
}

// TestPressureAsksForOneBarrierPerSeal checks that a table over budget with
// nothing evictable asks for a barrier, once until the next seal.
func TestPressureAsksForOneBarrierPerSeal(t *testing.T) {
	store := newEnv(t).Store
	store.SetCacheBytes(0)
	asked := 0
	store.onPressure = func() { asked++ }
	st := NewStateTable(store, 22, pairTypes)
	for _, p := range []string{"a", "b", "c"} {
		mustGroup(t, st, 1, p).Put([]byte("x"), pair(1, p))
	}
	if asked != 1 {
		t.Fatalf("asked for %d barriers before a seal, want 1", asked)
	}
	st.Commit(1)
	mustSeal(t, store, 1)
	mustGroup(t, st, 1, "d").Put([]byte("x"), pair(1, "d"))
	mustGroup(t, st, 1, "e").Put([]byte("x"), pair(1, "e"))
	if asked != 2 {
		t.Fatalf("asked for %d barriers after one seal, want 2", asked)
	}
}

// TestCacheEstimatesMatchHeap checks the cache's size estimates against the
// heap a table's groups really take, for groups of 1 to 300 entries: the
// budget means little if they drift.
func TestCacheEstimatesMatchHeap(t *testing.T) {
	for _, per := range []int{1, 3, 10, 40, 300} {
		store := newEnv(t).Store
		st := NewStateTable(store, 21, pairTypes)
		var held, freed runtime.MemStats
		for g := range 20000 / per {
			grp := mustGroup(t, st, uint16(g%256), fmt.Sprintf("g%07d", g))
			for e := range per {
				grp.Put(types.AppendKey(nil, types.NewInt(int64(e)), false), pair(int64(e), "abcdefgh"))
			}
		}
		st.Commit(1)
		mustSeal(t, store, 1)
		var est int64
		for _, groups := range st.vnodes {
			for _, g := range groups {
				est += g.bytes
			}
		}
		// Two collections empty sync.Pools (Pebble's batches among them),
		// which the second measurement would otherwise count as freed.
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&held)
		runtime.KeepAlive(st)
		// What the table frees is what its groups took: the store's own
		// allocations (Pebble's, which depend on when it flushes) stay.
		runtime.GC()
		runtime.ReadMemStats(&freed)
		ratio := float64(held.HeapAlloc-freed.HeapAlloc) / float64(est)
		t.Logf("per %d ratio %.3f", per, ratio)
		if ratio < 0.8 || ratio > 1.25 {
			t.Errorf("groups of %d entries: heap/estimate = %.2f", per, ratio)
		}
		runtime.KeepAlive(store)
	}
}

// TestEmptyGroupsLeave checks that a group a Commit leaves without entries
// leaves the cache once its epoch is sealed and it is unused, whatever the
// budget, without losing what storage holds: its deleted entries stay
// deleted, and a vnode whose state is all cached stays known as such.
func TestEmptyGroupsLeave(t *testing.T) {
	store := newEnv(t).Store
	st := NewStateTable(store, 26, pairTypes)
	g := mustGroup(t, st, 3, "w")
	g.Put([]byte("a"), pair(1, "a"))
	mustGroup(t, st, 3, "live").Put([]byte("b"), pair(2, "b"))
	st.Commit(1)
	mustSeal(t, store, 1)
	st.Commit(2)
	mustGroup(t, st, 3, "w").Delete([]byte("a"))
	st.Commit(3)
	if !cached(st, 3, "w") {
		t.Fatal("an emptied group left before its epoch was sealed")
	}
	mustSeal(t, store, 3)
	st.Commit(4)
	if cached(st, 3, "w") || !cached(st, 3, "live") {
		t.Fatal("after sealing, the emptied group should be gone and the live one cached")
	}
	if !st.bare[3] {
		t.Fatal("dropping an empty group made its vnode read storage again")
	}
	if got := groupContents(mustGroup(t, st, 3, "w")); got != "" {
		t.Fatalf("the emptied group came back with %q", got)
	}
	// Filled again before the seal: it stays.
	mustGroup(t, st, 3, "w").Put([]byte("c"), pair(3, "c"))
	st.Commit(5)
	mustSeal(t, store, 5)
	st.Commit(6)
	if got := groupContents(mustGroup(t, st, 3, "w")); got != "c=3 c" || !cached(st, 3, "w") {
		t.Fatalf("a refilled group: %q", got)
	}
	// Emptied, then used again while empty: it waits for the later epoch.
	mustGroup(t, st, 3, "w").Delete([]byte("c"))
	st.Commit(7)
	mustGroup(t, st, 3, "w").Get([]byte("c"))
	st.Commit(8)
	mustSeal(t, store, 7)
	st.Commit(9)
	if !cached(st, 3, "w") {
		t.Fatal("an empty group used in an epoch not yet sealed left")
	}
	mustSeal(t, store, 9)
	st.Commit(10)
	if cached(st, 3, "w") {
		t.Fatal("an empty group stayed after the epoch of its last use was sealed")
	}
}
