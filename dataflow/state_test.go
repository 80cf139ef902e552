package dataflow

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

var pairTypes = []types.T{types.TInt8, types.TText}

func pair(i int64, s string) []types.Datum {
	return []types.Datum{types.NewInt(i), types.NewString(s)}
}

// groupContents renders a group's entries in order, as suffix=row.
func groupContents(g *Group) string {
	var parts []string
	g.Ascend(func(suffix []byte, row []types.Datum) bool {
		parts = append(parts, string(suffix)+"="+rowString(row))
		return true
	})
	return strings.Join(parts, ",")
}

// mustGroup returns the group of prefix, encoded as a memcomparable key
// (prefixes are self-delimiting).
func mustGroup(t *testing.T, st *StateTable, vnode uint16, prefix string) *Group {
	t.Helper()
	g, err := st.Group(vnode, types.AppendKey(nil, types.NewString(prefix), false))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGroupOps(t *testing.T) {
	env := newEnv(t)
	st := NewStateTable(env.Store, 7, pairTypes)
	g := mustGroup(t, st, 3, "p")
	if g.Len() != 0 {
		t.Fatalf("new group has %d entries", g.Len())
	}
	tests := []struct {
		name string
		do   func()
		want string
	}{
		{"put out of order", func() { g.Put([]byte("b"), pair(2, "two")); g.Put([]byte("a"), pair(1, "one")) }, "a=1 one,b=2 two"},
		{"replace", func() { g.Put([]byte("a"), pair(10, "ten")) }, "a=10 ten,b=2 two"},
		{"delete", func() { g.Delete([]byte("b")) }, "a=10 ten"},
		{"delete absent", func() { g.Delete([]byte("zz")) }, "a=10 ten"},
		{"prefix suffixes sort first", func() { g.Put([]byte("ab"), pair(3, "x")); g.Put([]byte(""), pair(0, "")) }, "=0 ,a=10 ten,ab=3 x"},
	}
	for _, tt := range tests {
		tt.do()
		if got := groupContents(g); got != tt.want {
			t.Fatalf("%s: group %s, want %s", tt.name, got, tt.want)
		}
	}
	if row, ok := g.Get([]byte("a")); !ok || rowString(row) != "10 ten" {
		t.Fatalf("Get(a) = %v, %v", row, ok)
	}
	if _, ok := g.Get([]byte("b")); ok {
		t.Fatal("Get of a deleted entry found it")
	}
	var desc []string
	g.Descend(func(suffix []byte, _ []types.Datum) bool {
		desc = append(desc, string(suffix))
		return len(desc) < 2
	})
	if strings.Join(desc, ",") != "ab,a" {
		t.Fatalf("Descend stopped at %v", desc)
	}
	if g2 := mustGroup(t, st, 3, "p"); g2 != g {
		t.Fatal("a group is not cached")
	}
	if g3 := mustGroup(t, st, 4, "p"); g3 == g || g3.Len() != 0 {
		t.Fatal("groups of different vnodes are shared")
	}
}

// TestLookup checks that Lookup finds cached and stored groups, and
// reports a group of a vnode without stored entries that is not cached as
// nil without caching an empty one.
func TestLookup(t *testing.T) {
	env := newEnv(t)
	st := NewStateTable(env.Store, 11, pairTypes)
	mustGroup(t, st, 1, "k1").Put([]byte("x"), pair(1, "a"))
	st.Commit(1)
	if err := env.Store.Seal(1, nil, true); err != nil {
		t.Fatal(err)
	}
	lookup := func(st *StateTable, vnode uint16, prefix string) *Group {
		t.Helper()
		g, err := st.Lookup(vnode, types.AppendKey(nil, types.NewString(prefix), false))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	fresh := NewStateTable(env.Store, 11, pairTypes)
	if g := lookup(fresh, 1, "k1"); g == nil || groupContents(g) != "x=1 a" {
		t.Fatalf("a stored group looked up: %v", g)
	}
	// Vnode 1 holds stored entries: an absent group is read and cached
	// empty, so that the next lookup reads nothing.
	if g := lookup(fresh, 1, "k2"); g == nil || g.Len() != 0 {
		t.Fatalf("an absent group of a stored vnode: %v", g)
	}
	// Vnode 2 holds none: its first use learns that, and then an absent
	// group is nil and leaves no trace.
	mustGroup(t, fresh, 2, "p").Put([]byte("y"), pair(2, "b"))
	cached := len(fresh.vnodes[2])
	if g := lookup(fresh, 2, "q"); g != nil {
		t.Fatalf("an absent group of a bare vnode is %v, want nil", g)
	}
	if len(fresh.vnodes[2]) != cached {
		t.Fatalf("a lookup of an absent group cached %d groups", len(fresh.vnodes[2])-cached)
	}
	if g := lookup(fresh, 2, "p"); g == nil || groupContents(g) != "y=2 b" {
		t.Fatalf("a cached group looked up: %v", g)
	}
}

// TestStatePersistence checks that committed and sealed state is what a
// new StateTable loads, over the same Store or a new one, and that staged
// but unsealed state is invisible to a new Store.
func TestStatePersistence(t *testing.T) {
	dir := t.TempDir()
	engine := openEngine(t, dir)
	store := NewStore(engine)
	st := NewStateTable(store, 9, pairTypes)
	g := mustGroup(t, st, 1, "k1")
	g.Put([]byte("x"), pair(1, "a"))
	g.Put([]byte("y"), pair(2, "b"))
	mustGroup(t, st, 1, "k2").Put([]byte("x"), pair(3, "c"))
	// A neighbouring prefix must not leak into k1's range.
	mustGroup(t, st, 1, "k1x").Put([]byte(""), pair(4, "d"))
	mustGroup(t, st, 2, "k1").Put([]byte("x"), pair(5, "e"))
	st.Commit(1)

	g.Delete([]byte("x"))
	g.Put([]byte("z"), pair(6, "f"))
	// Inserted and deleted within one epoch: no write at all.
	g.Put([]byte("w"), pair(7, "g"))
	g.Delete([]byte("w"))
	st.Commit(2)
	if err := store.Seal(2, nil, true); err != nil {
		t.Fatal(err)
	}

	// Epoch 3 is staged, never sealed.
	g.Put([]byte("y"), pair(8, "h"))
	st.Commit(3)

	reload := func(s *Store) string {
		fresh := NewStateTable(s, 9, pairTypes)
		var parts []string
		for _, k := range []struct {
			vnode  uint16
			prefix string
		}{{1, "k1"}, {1, "k2"}, {1, "k1x"}, {2, "k1"}, {3, "k1"}} {
			parts = append(parts, groupContents(mustGroup(t, fresh, k.vnode, k.prefix)))
		}
		return strings.Join(parts, " | ")
	}
	want := "y=2 b,z=6 f | x=3 c | =4 d | x=5 e | "
	if got := reload(NewStore(engine)); got != want {
		t.Fatalf("reloaded state %q, want %q", got, want)
	}

	// Reopening the engine (a restart) drops the staged epoch.
	if err := engine.Close(); err != nil {
		t.Fatal(err)
	}
	engine = openEngine(t, dir)
	defer engine.Close()
	if got := reload(NewStore(engine)); got != want {
		t.Fatalf("state after reopening %q, want %q", got, want)
	}

	// Versions are kept per epoch: epoch 1 still reads the old rows.
	key := storage.AppendKey(nil, 9, 1, types.AppendKey(nil, types.NewString("k1"), false))
	key = append(key, 'x')
	if v, ok, err := engine.Get(key, 1); err != nil || !ok || !bytes.Equal(v, types.AppendRow(nil, pair(1, "a"))) {
		t.Fatalf("k1x at epoch 1: %v %v %v", v, ok, err)
	}
	if _, ok, _ := engine.Get(key, 2); ok {
		t.Fatal("k1x is not deleted at epoch 2")
	}
}

func TestSealPartialAndExtra(t *testing.T) {
	env := newEnv(t)
	store := env.Store
	store.Stage(1, []Write{{Key: []byte("\x00\x00\x00\x05\x00\x00a"), Value: []byte("1")}})
	store.Stage(3, []Write{{Key: []byte("\x00\x00\x00\x05\x00\x00b"), Value: []byte("3")}})
	store.Stage(1, []Write{{Key: []byte("\x00\x00\x00\x05\x00\x00a"), Value: nil}})
	extraKey := storage.AppendKey(nil, storage.SystemTableID, 0, []byte("last"))
	if err := store.Seal(2, func(b *storage.Batch) { b.Put(extraKey, 2, []byte("x")) }, true); err != nil {
		t.Fatal(err)
	}
	e := store.Engine()
	read := func(key string) string {
		v, ok, err := e.Get([]byte(key), math.MaxUint64)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "-"
		}
		return string(v)
	}
	// The later write of a key in one epoch wins; epoch 3 stays staged.
	if a, b, x := read("\x00\x00\x00\x05\x00\x00a"), read("\x00\x00\x00\x05\x00\x00b"), read(string(extraKey)); a != "-" || b != "-" || x != "x" {
		t.Fatalf("after sealing 2: a=%s b=%s extra=%s", a, b, x)
	}
	if err := store.Seal(3, nil, true); err != nil {
		t.Fatal(err)
	}
	if b := read("\x00\x00\x00\x05\x00\x00b"); b != "3" {
		t.Fatalf("after sealing 3: b=%s", b)
	}
	if len(store.staged) != 0 {
		t.Fatalf("still staged: %v", store.staged)
	}
}

// TestWriteBehind checks that writes behind are readable at once, that
// only the seal after them counts their epochs as sealed, and that a key
// staged again after a write behind keeps its last value.
func TestWriteBehind(t *testing.T) {
	store := newEnv(t).Store
	key := "\x00\x00\x00\x05\x00\x00a"
	stage := func(epoch uint64, v string) {
		store.Stage(epoch, []Write{{Key: []byte(key), Value: []byte(v)}})
	}
	read := func(epoch uint64) string {
		v, ok, err := store.Engine().Get([]byte(key), epoch)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "-"
		}
		return string(v)
	}
	stage(1, "1")
	store.WriteBehind()
	if got := read(1); got != "1" || store.sealed.Load() != 0 {
		t.Fatalf("after writing epoch 1 behind: read %s, sealed %d", got, store.sealed.Load())
	}
	stage(1, "1'")
	stage(2, "2")
	store.WriteBehind()
	stage(2, "2'")
	mustSeal(t, store, 1)
	if got := store.sealed.Load(); got != 1 {
		t.Fatalf("sealed %d after sealing 1, want 1", got)
	}
	mustSeal(t, store, 2)
	if a, b, sealed := read(1), read(2), store.sealed.Load(); a != "1'" || b != "2'" || sealed != 2 {
		t.Fatalf("after sealing 2: epoch 1 reads %s, epoch 2 reads %s, sealed %d", a, b, sealed)
	}
}

// TestWriteBehindInParts checks that a write behind large enough to go in
// parallel batches writes every key once, its last value.
func TestWriteBehindInParts(t *testing.T) {
	store := newEnv(t).Store
	key := func(i int) []byte { return storage.AppendKey(nil, 5, uint16(i%7), fmt.Appendf(nil, "k%05d", i)) }
	const n = 5 * writePart
	var first, last []Write
	for i := range n {
		first = append(first, Write{Key: key(i), Value: []byte("old")})
		last = append(last, Write{Key: key(i), Value: fmt.Appendf(nil, "v%d", i)})
	}
	store.Stage(1, first)
	store.Stage(1, last)
	store.WriteBehind()
	for i := range n {
		v, ok, err := store.Engine().Get(key(i), 1)
		if err != nil || !ok || string(v) != fmt.Sprintf("v%d", i) {
			t.Fatalf("key %d reads %q %v %v", i, v, ok, err)
		}
	}
}

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want []byte }{
		{[]byte{1, 2}, []byte{1, 3}},
		{[]byte{1, 0xff}, []byte{2}},
		{[]byte{0xff, 0xff}, nil},
	}
	for _, tt := range tests {
		if got := prefixEnd(tt.in); !bytes.Equal(got, tt.want) {
			t.Errorf("prefixEnd(%x) = %x, want %x", tt.in, got, tt.want)
		}
	}
}

func TestStageConcurrently(t *testing.T) {
	store := newEnv(t).Store
	const actors, writes = 4, 100
	var wg sync.WaitGroup
	for a := 0; a < actors; a++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := NewStateTable(store, 11, pairTypes)
			for i := 0; i < writes; i++ {
				g, err := st.Group(uint16(a), types.AppendKey(nil, types.NewInt(int64(i)), false))
				if err != nil {
					t.Error(err)
					return
				}
				g.Put(nil, pair(int64(i), "v"))
				if i%10 == 9 {
					st.Commit(uint64(i / 10))
				}
			}
		}()
	}
	wg.Wait()
	if err := store.Seal(writes/10, nil, true); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := store.Engine().Scan(storage.TablePrefix(11), storage.TablePrefix(12), math.MaxUint64, func(_, _ []byte) error {
		n++
		return nil
	})
	if err != nil || n != actors*writes {
		t.Fatalf("%d rows sealed (%v), want %d", n, err, actors*writes)
	}
}

// TestStateTableModel puts and deletes entries of a few groups at random
// and clears whole groups, with Commits, seals and evictions between, and
// checks after each step that every changed entry is listed once among its
// group's dirty keys and carries versionDirty (Put and Delete skip the
// list's lookup on that mark) and that a group's estimated bytes are those
// of its entries, and after each seal that a fresh table reads what a map
// of the entries holds.
func TestStateTableModel(t *testing.T) {
	engine := newEnv(t).Store.Engine()
	rapid.Check(t, func(rt *rapid.T) {
		store := NewStore(engine)
		store.SetCacheBytes(rapid.Int64Range(0, 4<<10).Draw(rt, "budget"))
		id := freshTable()
		st := NewStateTable(store, id, pairTypes)
		prefixes := []string{"g0", "g1", "g2"}
		// Up to 40 entries: groups outgrow smallEntries.
		var suffixes []string
		for i := range 40 {
			suffixes = append(suffixes, fmt.Sprintf("%02d", i))
		}
		model := map[string]map[string]int64{}
		for _, p := range prefixes {
			model[p] = map[string]int64{}
		}
		group := func(t *StateTable, p string) *Group {
			g, err := t.Group(1, types.AppendKey(nil, types.NewString(p), false))
			if err != nil {
				rt.Fatal(err)
			}
			return g
		}
		check := func() {
			for _, p := range prefixes {
				g := st.vnodes[1][string(types.AppendKey(nil, types.NewString(p), false))]
				if g == nil {
					continue
				}
				bytes := groupOverhead + int64(len(g.prefix)) + g.memoBytes
				g.rows.ascendSlots(func(key []byte, s slot) bool {
					bytes += entryBytes(key, s.row)
					return true
				})
				if g.bytes != bytes {
					rt.Fatalf("group %s estimated at %d bytes, its entries make %d", p, g.bytes, bytes)
				}
				listed := map[string]bool{}
				for _, k := range g.dirty.keys {
					if listed[string(k.suffix)] {
						rt.Fatalf("group %s lists %q twice", p, k.suffix)
					}
					listed[string(k.suffix)] = true
				}
				for _, suffix := range suffixes {
					if _, s, ok := g.rows.get([]byte(suffix)); ok && (s.ver&versionDirty != 0) != listed[suffix] {
						rt.Fatalf("group %s entry %q: dirty mark %v, listed %v", p, suffix, s.ver&versionDirty != 0, listed[suffix])
					}
				}
			}
		}
		epoch := uint64(0)
		for range rapid.IntRange(1, 300).Draw(rt, "ops") {
			p := rapid.SampledFrom(prefixes).Draw(rt, "group")
			suffix := rapid.SampledFrom(suffixes).Draw(rt, "suffix")
			switch rapid.IntRange(0, 5).Draw(rt, "op") {
			case 0, 1:
				v := rapid.Int64Range(0, 9).Draw(rt, "value")
				group(st, p).Put([]byte(suffix), pair(v, ""))
				model[p][suffix] = v
			case 2, 3:
				group(st, p).Delete([]byte(suffix))
				delete(model[p], suffix)
			case 4:
				group(st, p).Clear()
				clear(model[p])
			default:
				epoch++
				st.Commit(epoch)
				mustSeal(rt, store, epoch)
				fresh := NewStateTable(NewStore(engine), id, pairTypes)
				for _, p := range prefixes {
					var want []string
					for s, v := range model[p] {
						want = append(want, fmt.Sprintf("%s=%d ", s, v))
					}
					slices.Sort(want)
					if got := groupContents(group(fresh, p)); got != strings.Join(want, ",") {
						rt.Fatalf("group %s stored as %s, want %s", p, got, strings.Join(want, ","))
					}
				}
			}
			check()
		}
	})
}
