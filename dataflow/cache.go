package dataflow

import (
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// DefaultCacheBytes is a new Store's budget for cached state groups.
const DefaultCacheBytes int64 = 256 << 20

// stateCache bounds the memory of the groups cached by every StateTable of
// a node. Design:
//
//   - Each table keeps its own groups in an intrusive LRU list (groupLRU)
//     that only its goroutine touches, so the hot path takes no lock and
//     does not allocate; the budget is shared through atomics. A single
//     node-wide list under a mutex would make every touch of every actor
//     contend on one lock, and would let one goroutine drop groups from
//     another's maps while that one reads them.
//   - A table evicts only its own groups, on its goroutine: after loading
//     a group (a cache miss) and at each Commit. It evicts from its least
//     recently used end while the node is over budget.
//   - LRU order across tables is kept at epoch granularity: a group's
//     epoch is that of the last Commit after it was used. Evicting a group
//     for lack of budget raises the watermark below to its epoch, and
//     every table then also evicts its groups last used in an earlier
//     epoch (colder than one already evicted), at its next miss or Commit.
//     Every actor commits at each checkpoint, so idle tables shed their
//     cold groups within one checkpoint and active ones get the room.
//   - Only clean groups go: not used since the table's last Commit (an
//     operator may hold and change a group until then) and with nothing
//     staged after the newest sealed epoch (a reload reads storage, which
//     does not hold unsealed writes). The budget is therefore soft: groups
//     in use or unsealed stay cached whatever it says. A table over budget
//     with nothing left to evict asks for a barrier at once (once per
//     sealed epoch), so the groups piling up become evictable sooner than
//     the barrier interval would make them.
//
// Sizes are estimates (key and datum sizes plus fixed overheads) kept per
// group; a table reports its changes to used in batches of up to
// accountBatch bytes and at each Commit, and returns what it holds once it
// is garbage.
type stateCache struct {
	// budget is the budget in force: configured, or less while the heap
	// is short of room (FollowHeap).
	budget     atomic.Int64
	configured atomic.Int64
	used       atomic.Int64
	below      atomic.Uint64
	// hits and misses count the tables' group lookups found cached and
	// read from storage, as last reported.
	hits, misses atomic.Int64
}

// Estimated sizes of cached state, in bytes, set from heap measurements
// (within about 7% for groups of 1 to 300 entries of two columns).
const (
	// groupOverhead is a Group's struct, its map entry and its LRU links.
	groupOverhead = 200
	// entryOverhead is an entry's slot (in the group's slice or B-tree,
	// with spare room), the key allocation and the row's slice rounding.
	entryOverhead = 176
	datumBytes    = int64(unsafe.Sizeof(types.Datum{}))
	decimalBytes  = int64(unsafe.Sizeof(apd.Decimal{}))
	// accountBatch bounds a table's unreported change of cached bytes.
	accountBatch = 16 << 10
)

// SetCacheBytes sets the node-wide budget for cached state groups (n <= 0:
// keep only the groups that cannot go: in use or not yet sealed). Tables
// evict down to it at their next cache miss or checkpoint. Safe for
// concurrent use.
func (s *Store) SetCacheBytes(n int64) {
	s.cache.configured.Store(max(n, 0))
	s.cache.budget.Store(max(n, 0))
}

// CacheBytes returns the budget for cached state groups, as configured.
func (s *Store) CacheBytes() int64 { return s.cache.configured.Load() }

// CacheBytesInForce returns the budget the cache evicts down to now: the
// configured one, or less while the heap is short of room (FollowHeap).
func (s *Store) CacheBytesInForce() int64 { return s.cache.budget.Load() }

// CacheUsage returns the estimated bytes of cached state groups, as last
// reported by the tables.
func (s *Store) CacheUsage() int64 { return s.cache.used.Load() }

// CacheLookups returns how many lookups of state groups found them
// cached (hits) and read them from storage (misses), as last reported by
// the tables (at each checkpoint, or sooner).
func (s *Store) CacheLookups() (hits, misses int64) {
	return s.cache.hits.Load(), s.cache.misses.Load()
}

// raiseBelow moves the eviction watermark up to epoch.
func (c *stateCache) raiseBelow(epoch uint64) {
	for {
		cur := c.below.Load()
		if epoch <= cur || c.below.CompareAndSwap(cur, epoch) {
			return
		}
	}
}

// cacheAccount is what one table has reported to its store's cache; it
// outlives the table so that the table's share can be returned once the
// table is garbage (a stopped job's operators have no close hook).
type cacheAccount struct {
	cache *stateCache
	bytes atomic.Int64
}

// release returns the account's bytes to the cache.
func (a *cacheAccount) release() { a.cache.used.Add(-a.bytes.Load()) }

// newCacheAccount returns t's account with store, released when t is
// garbage.
func newCacheAccount(t *StateTable, store *Store) *cacheAccount {
	a := &cacheAccount{cache: &store.cache}
	runtime.AddCleanup(t, (*cacheAccount).release, a)
	return a
}

// groupLRU is a table's cached groups, most recently used first, linked
// through Group.prev and Group.next.
type groupLRU struct{ head, tail *Group }

// pushFront links g, which is not in the list, at the front.
func (l *groupLRU) pushFront(g *Group) {
	g.prev, g.next = nil, l.head
	if l.head != nil {
		l.head.prev = g
	} else {
		l.tail = g
	}
	l.head = g
}

// pushBack links g, which is not in the list, at the back.
func (l *groupLRU) pushBack(g *Group) {
	g.prev, g.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = g
	} else {
		l.head = g
	}
	l.tail = g
}

// remove unlinks g.
func (l *groupLRU) remove(g *Group) {
	if g.prev != nil {
		g.prev.next = g.next
	} else {
		l.head = g.next
	}
	if g.next != nil {
		g.next.prev = g.prev
	} else {
		l.tail = g.prev
	}
	g.prev, g.next = nil, nil
}

// touch pins g until the next Commit and makes it the most recently used
// group. Only the first touch in a Commit interval moves it, so the list
// is ordered by epoch and the pinned groups are at its front.
func (t *StateTable) touch(g *Group) {
	if g.gen == t.gen {
		return
	}
	if g.evicted {
		panic("dataflow: use of a state group evicted from the cache (get it again with Group after Commit)")
	}
	g.gen = t.gen
	t.lru.remove(g)
	t.lru.pushFront(g)
	t.used = append(t.used, g)
}

// cacheNew adds g, new to the cache and its estimated size counted in
// g.bytes, as pinned and most recently used.
func (t *StateTable) cacheNew(g *Group) {
	t.vnodes[g.vnode][g.prefix] = g
	g.gen = t.gen
	t.lru.pushFront(g)
	t.used = append(t.used, g)
	t.account(g.bytes)
}

// resize records a change of delta bytes of g.
func (g *Group) resize(delta int64) {
	g.bytes += delta
	g.t.account(delta)
}

// account records a change of the table's cached bytes, reporting it to
// the store once it reaches accountBatch.
func (t *StateTable) account(delta int64) {
	t.unreported += delta
	if t.unreported >= accountBatch || t.unreported <= -accountBatch {
		t.report()
	}
}

// report hands the table's unreported change of cached bytes and its
// lookups' counts to the store.
func (t *StateTable) report() {
	if t.unreported != 0 {
		t.store.cache.used.Add(t.unreported)
		t.acct.bytes.Add(t.unreported)
		t.unreported = 0
	}
	if t.hits+t.misses != 0 {
		t.store.cache.hits.Add(t.hits)
		t.store.cache.misses.Add(t.misses)
		t.hits, t.misses = 0, 0
	}
}

// evict drops least recently used clean groups while the node is over its
// budget, and those last used before the node's watermark (see
// stateCache).
func (t *StateTable) evict() {
	c := &t.store.cache
	sealed := t.store.sealed.Load()
	t.dropEmpties(sealed)
	used, budget, below := c.used.Load()+t.unreported, c.budget.Load(), c.below.Load()
	for g := t.lru.tail; g != nil && g.gen != t.gen && g.epoch <= sealed; g = t.lru.tail {
		if used <= budget && g.epoch >= below {
			break
		}
		if used > budget {
			c.raiseBelow(g.epoch)
		}
		used -= g.bytes
		t.drop(g)
	}
	if used > budget {
		t.store.pressure()
	}
}

// dropEmpties drops the groups left empty by a Commit whose epoch is
// sealed and that were not used since: state that operators deleted (the
// groups of closed windows, of keys retracted to nothing) leaves the cache
// then rather than when the budget runs out, so the cache holds live
// state, not its ghosts. A later lookup of such a group reads storage,
// which holds nothing for it.
func (t *StateTable) dropEmpties(sealed uint64) {
	q := &t.empties
	for ; q.head < len(q.list) && q.list[q.head].epoch <= sealed; q.head++ {
		e := q.list[q.head]
		q.list[q.head] = emptyGroup{}
		g := e.g
		if g.evicted || g.rows.len() > 0 || g.epoch != e.epoch || g.gen == t.gen {
			// Gone already, filled again, or used since: a later Commit
			// that leaves it empty lists it again.
			continue
		}
		t.drop(g)
	}
	q.compact()
}

// emptyQueue lists groups with the epoch of the Commit that left them
// empty, oldest first: Commits come in epoch order, so the sealed ones
// are a prefix, and dropping them costs nothing per group still waiting.
type emptyQueue struct {
	list []emptyGroup
	head int // list[:head] are done
}

type emptyGroup struct {
	g     *Group
	epoch uint64
}

// push lists g, left empty by the Commit of epoch.
func (q *emptyQueue) push(g *Group, epoch uint64) {
	q.list = append(q.list, emptyGroup{g, epoch})
}

// compact moves the waiting groups to the front once the done ones are
// at least half the list, so that the list's storage is reused.
func (q *emptyQueue) compact() {
	if q.head < len(q.list)/2 {
		return
	}
	n := copy(q.list, q.list[q.head:])
	clear(q.list[n:])
	q.list, q.head = q.list[:n], 0
}

// remove unlists the waiting groups lost reports true for.
func (q *emptyQueue) remove(lost func(*Group) bool) {
	q.list = slices.DeleteFunc(q.list[q.head:], func(e emptyGroup) bool { return lost(e.g) })
	q.head = 0
}

// drop removes g from the cache.
func (t *StateTable) drop(g *Group) {
	if g.rows.len() > 0 {
		// The evicted group's entries are now only in storage.
		t.bare[g.vnode] = false
	}
	t.lru.remove(g)
	delete(t.vnodes[g.vnode], g.prefix)
	t.account(-g.bytes)
	g.bytes = 0
	g.rows.clear()
	g.memo = nil
	g.evicted = true
}

// rowBytes estimates the memory of a cached row.
func rowBytes(row []types.Datum) int64 {
	n := int64(len(row)) * datumBytes
	for _, d := range row {
		switch d.Kind() {
		case types.KindString, types.KindBytes, types.KindJSON:
			n += int64(len(d.Str()))
		case types.KindDecimal:
			n += decimalBytes
		case types.KindArray:
			n += rowBytes(d.Array())
		}
	}
	return n
}

// entryBytes estimates the memory of a cached entry.
func entryBytes(suffix []byte, row []types.Datum) int64 {
	return entryOverhead + int64(len(suffix)) + rowBytes(row)
}
