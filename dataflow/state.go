package dataflow

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/RaduBerinde/btreemap"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// StateTable is one operator's view of a state table within one actor: the
// state of the actor's vnodes, read by group and cached in memory. A key is
// storage.AppendKey(table, vnode, prefix||suffix) and a value the row's
// types.AppendRow encoding. A group is every entry sharing a prefix (a join
// key, an aggregation group, a Top-N group); memcomparable prefixes are
// self-delimiting, so the key range of a prefix holds exactly its group.
// A group is loaded whole from storage on first use and then served from
// the cache, which is partitioned by vnode so that a vnode's cache can
// change owner, until it is evicted under the store's cache budget (see
// stateCache). A StateTable is used from one goroutine.
type StateTable struct {
	store  *Store
	id     uint32
	types  []types.T
	vnodes map[uint16]map[string]*Group
	// bare marks vnodes that had no entries in storage when first used and
	// none of whose groups was evicted since: every group of such a vnode
	// is either cached or absent from storage, so a miss needs no read.
	bare map[uint16]bool
	// pointGroups: every group holds at most one entry, under the empty
	// suffix (an aggregation's state row), so a miss is a point read that
	// Pebble's bloom filters answer without touching most files.
	pointGroups bool
	// layout, if set, finds the group prefix of a stored key (warm).
	layout   *groupLayout
	freelist *btreemap.FreeList[[]byte, slot]
	key      []byte
	writes   writeBuf
	// lru orders the cached groups by use; used are the groups used since
	// the last Commit (pinned in the cache), those whose gen is gen.
	lru  groupLRU
	used []*Group
	gen  uint64
	// empties are the groups Commits left without entries, in the order
	// of their epochs: they leave the cache once sealed, if still empty
	// and unused (dropEmpties).
	empties emptyQueue
	// unreported is the change of cached bytes not yet in acct and the
	// store's usage.
	unreported int64
	acct       *cacheAccount
	// hits and misses count lookups of groups found cached and of groups
	// read from storage, not yet added to the store's counts.
	hits, misses int64
}

// Group is the cached entries of one prefix, ordered by suffix. A group
// stays valid until the next Commit of its table; after that, get it again
// with StateTable.Group (it may have been evicted).
type Group struct {
	t      *StateTable
	vnode  uint16
	prefix string
	rows   entries
	// evicted is set once the group left the cache.
	evicted bool
	// memo is its operator's decoded form of the group (see SetMemo).
	memo      any
	memoBytes int64
	// dirty lists each suffix changed since the last Commit with whether
	// the key existed in storage before the change (if not, deleting it
	// again needs no tombstone).
	dirty dirtyKeys
	// prev and next link the table's LRU list; gen is the table generation
	// of the last use; epoch is that of the last Commit since the use (the
	// group is all in storage once that epoch is sealed); bytes is the
	// estimated memory of the group.
	prev, next *Group
	gen, epoch uint64
	bytes      int64
}

// NewStateTable returns an empty view of table tableID whose rows have
// rowTypes (types.TUnknown accepts a value of any type).
func NewStateTable(store *Store, tableID uint32, rowTypes []types.T) *StateTable {
	t := &StateTable{
		store: store, id: tableID, types: rowTypes,
		vnodes:   map[uint16]map[string]*Group{},
		bare:     map[uint16]bool{},
		freelist: btreemap.NewFreeList[[]byte, slot](btreemap.DefaultFreeListSize),
		gen:      1,
	}
	t.acct = newCacheAccount(t, store)
	return t
}

// Group returns the group of prefix in vnode, loading it from storage on
// first use (the latest sealed versions: recovery removes uncommitted ones
// before actors start). A cache hit does not allocate.
func (t *StateTable) Group(vnode uint16, prefix []byte) (*Group, error) {
	return t.group(vnode, prefix, true)
}

// Lookup is Group for a caller that only reads the group, or changes
// entries it finds: a group that is neither cached nor stored (its vnode
// is bare, see StateTable.bare) is nil, and no empty group is cached for
// it. A join (hash, interval or temporal) probing the other side for each
// row of this one would otherwise cache an empty group per key it never
// finds.
func (t *StateTable) Lookup(vnode uint16, prefix []byte) (*Group, error) {
	groups := t.vnodes[vnode]
	if groups == nil || !t.bare[vnode] {
		return t.group(vnode, prefix, true)
	}
	g := groups[string(prefix)]
	if g != nil {
		t.hits++
		t.touch(g)
	}
	return g, nil
}

// Refresh returns g, got from t before its last Commit, if it is still
// cached, else the group of its prefix as Group gets it: a caller that
// keeps groups across Commits gets them back without a lookup.
func (t *StateTable) Refresh(g *Group) (*Group, error) {
	if g.evicted || g.t != t {
		return t.Group(g.vnode, []byte(g.prefix))
	}
	t.hits++
	t.touch(g)
	return g, nil
}

// groupRef returns a reference to the group of prefix in vnode for
// Refresh, without reading it into the cache: an evicted group.
func (t *StateTable) groupRef(vnode uint16, prefix []byte) *Group {
	return &Group{t: t, vnode: vnode, prefix: string(prefix), evicted: true}
}

// emptyGroup returns the group of prefix in vnode, which the caller knows
// has no entries in storage, without reading storage.
func (t *StateTable) emptyGroup(vnode uint16, prefix []byte) *Group {
	g, _ := t.group(vnode, prefix, false)
	return g
}

// group returns the cached group or a new one, loaded from storage if load
// is set; it may evict other groups.
func (t *StateTable) group(vnode uint16, prefix []byte, load bool) (*Group, error) {
	groups := t.vnodes[vnode]
	if groups == nil {
		groups = map[string]*Group{}
		t.vnodes[vnode] = groups
		if load {
			bare, err := t.storedNothing(vnode)
			if err != nil {
				return nil, err
			}
			t.bare[vnode] = bare
		}
	} else if g := groups[string(prefix)]; g != nil {
		t.hits++
		t.touch(g)
		return g, nil
	}
	load = load && !t.bare[vnode]
	if load {
		t.misses++
	}
	g := &Group{
		t: t, vnode: vnode, prefix: string(prefix), bytes: groupOverhead + int64(len(prefix)),
	}
	if load && t.pointGroups {
		key := storage.AppendKey(nil, t.id, vnode, prefix)
		v, ver, ok, err := t.store.Engine().GetLatest(key)
		if err != nil {
			return nil, err
		}
		if ok {
			row, err := types.DecodeRow(v, t.types, nil)
			if err != nil {
				return nil, err
			}
			g.rows.put([]byte{}, slot{row, storedVersion(ver)}, t.freelist)
			g.bytes += entryBytes(nil, row)
		}
	} else if load {
		lower := storage.AppendKey(nil, t.id, vnode, prefix)
		err := t.store.Engine().ScanLatest(lower, prefixEnd(lower), func(key, value []byte, ver storage.Version) error {
			row, err := types.DecodeRow(value, t.types, nil)
			if err != nil {
				return err
			}
			suffix := bytes.Clone(key[len(lower):])
			g.rows.put(suffix, slot{row, storedVersion(ver)}, t.freelist)
			g.bytes += entryBytes(suffix, row)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	t.cacheNew(g)
	t.evict()
	return g, nil
}

// storedNothing reports whether storage holds no entry of the table in
// vnode (a new job's state: its groups need no storage reads).
func (t *StateTable) storedNothing(vnode uint16) (bool, error) {
	lower := storage.AppendKey(nil, t.id, vnode, nil)
	found := false
	err := t.store.Engine().Scan(lower, prefixEnd(lower), math.MaxUint64, func(_, _ []byte) error {
		found = true
		return errStopScan
	})
	if err != nil && err != errStopScan {
		return false, err
	}
	return !found, nil
}

// prefixEnd returns the smallest key greater than every key starting with
// prefix, or nil if there is none.
func prefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Commit stages every entry changed since the last Commit (deleted ones as
// tombstones) with the store for epoch, unpins the groups used since, and
// evicts groups if the node is over its cache budget. The versions the
// changes make obsolete go to the store's collector: the one each change
// supersedes and, for a deletion of a key with no older versions left,
// the tombstone itself. While the collector's queue is full, they stay in
// storage for the collector's scans, and the entries remember that older
// versions may be stored.
func (t *StateTable) Commit(epoch uint64) {
	collect := t.store.collecting()
	for _, g := range t.used {
		g.epoch = epoch
		for _, d := range g.dirty.keys {
			suffix, was := d.suffix, d.stored
			row, live := g.Get(suffix)
			if !live && was.epoch() == 0 {
				continue
			}
			t.key = storage.AppendKey(t.key[:0], t.id, g.vnode, nil)
			t.key = append(append(t.key, g.prefix...), suffix...)
			if live {
				t.writes.put(t.key, row)
			} else {
				t.writes.del(t.key)
			}
			older := was.older()
			var superseded uint64
			if p := was.epoch(); p > 0 && p < epoch {
				if collect {
					superseded = p
				} else {
					older = true
				}
			}
			if live {
				g.rows.setVersion(suffix, ownVersion(epoch, older))
			}
			if tombstone := !live && collect && !older; superseded > 0 || tombstone {
				t.writes.obsolete(t.key, superseded, was.own(), tombstone)
			}
		}
		g.dirty.reset()
		if g.rows.len() == 0 {
			t.empties.push(g, epoch)
		}
	}
	clear(t.used)
	t.used = t.used[:0]
	t.gen++
	// With the queue full, scans find what this epoch left.
	t.writes.tracks = collect
	t.writes.stage(t.store, epoch)
	t.evict()
	t.report()
}

// storedVersion returns the version of an entry loaded from storage.
func storedVersion(v storage.Version) version { return newVersion(v.Epoch, v.Older) }

// Get returns the row stored under suffix. The row must not be modified.
func (g *Group) Get(suffix []byte) ([]types.Datum, bool) {
	_, s, ok := g.rows.get(suffix)
	return s.row, ok
}

// Put stores row under suffix and marks it for the next Commit. The row is
// kept, not copied (changing it in place afterwards must keep its size, or
// the cache's estimate drifts); suffix is copied, and the copy returned: it
// never changes, so a caller may keep it.
func (g *Group) Put(suffix []byte, row []types.Datum) []byte {
	g.t.touch(g)
	key, old, ok := g.rows.set(suffix, row, g.t.freelist)
	if ok {
		g.resize(rowBytes(row) - rowBytes(old.row))
	} else {
		g.resize(entryBytes(key, row))
	}
	d := &g.dirty
	switch {
	case old.ver&versionDirty != 0:
		// Listed at its first change since the last Commit.
	case ok || !d.deleted || bytes.Compare(key, d.maxDeleted) > 0:
		// Neither listed as changed nor as deleted.
		d.add(key, old.ver)
	case bytes.Equal(key, d.lastDeleted):
		// Listed by its deletion: an update deletes and puts a key.
	default:
		d.mark(key, old.ver)
	}
	return key
}

// Clear removes every entry, as Delete of each would, in one pass that
// reads no row (a closed window's group goes whole).
func (g *Group) Clear() {
	if g.rows.len() == 0 {
		return
	}
	g.t.touch(g)
	g.rows.ascendSlots(func(key []byte, s slot) bool {
		g.dirty.noteDeletion(key, s.ver)
		return true
	})
	g.rows.clear()
	g.resize(groupOverhead + int64(len(g.prefix)) + g.memoBytes - g.bytes)
}

// Delete removes the entry under suffix, if any, and marks it for the next
// Commit.
func (g *Group) Delete(suffix []byte) {
	g.t.touch(g)
	if key, old, ok := g.rows.delete(suffix); ok {
		g.resize(-entryBytes(key, old.row))
		g.dirty.noteDeletion(key, old.ver)
	}
}

// dirtyKeys are the suffixes of a group changed since the last Commit, in
// order of first change. A changed entry carries versionDirty, so a key
// needs looking up here only when it is absent from the group after a
// deletion. A group changes few keys per epoch as a rule, so they are a
// list; an index over them appears once a lookup finds it long.
type dirtyKeys struct {
	keys  []dirtyKey
	index map[string]struct{}
	// deleted: some key was deleted since the last Commit, maxDeleted
	// the greatest, lastDeleted the last. A key absent from the group is
	// listed only if it is one of those (a join's cleanup deletes its
	// oldest rows, and new rows come with greater keys; an update deletes
	// a key and puts it again).
	deleted                 bool
	maxDeleted, lastDeleted []byte
}

// dirtyKey is a changed suffix with the versions of its key stored
// before its first change since the last Commit.
type dirtyKey struct {
	suffix []byte
	stored version
}

// dirtyIndexAt is the list length from which an index finds keys.
const dirtyIndexAt = 8

// add records the first change of suffix (kept, not copied), which is not
// listed yet; stored is the versions of its key before the change.
func (d *dirtyKeys) add(suffix []byte, stored version) {
	if d.index != nil {
		d.index[string(suffix)] = struct{}{}
	}
	d.keys = append(d.keys, dirtyKey{suffix, stored})
}

// mark records a change of suffix unless it is listed already.
func (d *dirtyKeys) mark(suffix []byte, stored version) {
	if d.index == nil && len(d.keys) >= dirtyIndexAt {
		d.index = make(map[string]struct{}, 2*len(d.keys))
		for _, k := range d.keys {
			d.index[string(k.suffix)] = struct{}{}
		}
	}
	if d.index != nil {
		if _, seen := d.index[string(suffix)]; seen {
			return
		}
	} else if slices.ContainsFunc(d.keys, func(k dirtyKey) bool { return bytes.Equal(k.suffix, suffix) }) {
		return
	}
	d.add(suffix, stored)
}

// noteDeletion records the deletion of the entry under key (kept, not
// copied), whose versions were ver: listed unless it carries versionDirty.
func (d *dirtyKeys) noteDeletion(key []byte, ver version) {
	if ver&versionDirty == 0 {
		d.add(key, ver)
	}
	if !d.deleted || bytes.Compare(key, d.maxDeleted) > 0 {
		d.maxDeleted = key
	}
	d.deleted, d.lastDeleted = true, key
}

// reset forgets every change. A list of dirtyIndexAt keys or more keeps
// its room: a group that changes often goes on doing so.
func (d *dirtyKeys) reset() {
	keys := d.keys
	if cap(keys) >= dirtyIndexAt {
		clear(keys)
		keys = keys[:0]
	} else {
		keys = nil
	}
	*d = dirtyKeys{keys: keys}
}

// Ascend calls fn for each entry in suffix byte order until fn returns
// false. fn must not modify the group, suffix or row.
func (g *Group) Ascend(fn func(suffix []byte, row []types.Datum) bool) {
	g.rows.ascend(fn)
}

// AscendFrom calls fn for each entry whose suffix is from or after it, in
// suffix byte order, until fn returns false. fn must not modify the group,
// suffix or row.
func (g *Group) AscendFrom(from []byte, fn func(suffix []byte, row []types.Datum) bool) {
	g.rows.ascendFrom(from, fn)
}

// Descend calls fn for each entry in reverse suffix byte order until fn
// returns false. fn must not modify the group, suffix or row.
func (g *Group) Descend(fn func(suffix []byte, row []types.Datum) bool) {
	g.rows.descend(fn)
}

// Memo returns what SetMemo last stored, nil if nothing (or the group was
// evicted and loaded again).
func (g *Group) Memo() any { return g.memo }

// SetMemo keeps v, an operator's decoded form of the group worth about
// bytes of memory, with the group in the cache, so that the operator need
// not decode the group again while it stays cached. nil drops it.
func (g *Group) SetMemo(v any, bytes int64) {
	if v == nil {
		bytes = 0
	}
	g.resize(bytes - g.memoBytes)
	g.memo, g.memoBytes = v, bytes
}

// Len returns the number of entries.
func (g *Group) Len() int { return g.rows.len() }

// clearVNode deletes every entry of vnode, calling fn with each row
// before it goes (in no particular order): the entries of the cached
// groups, then the stored ones of the groups not cached, each loaded into
// a new cached group that deletes it, so that later reads in the epoch
// find it absent and the next Commit writes its tombstone. A group leaves
// the cache only once its epoch is sealed, so the cached groups and the
// storage together hold every entry. The new groups stay pinned until the
// next Commit (a truncate costs memory per stored row for an epoch).
func (t *StateTable) clearVNode(vnode uint16, fn func(row []types.Datum) error) error {
	for _, g := range t.vnodes[vnode] {
		t.touch(g)
		for g.Len() > 0 {
			var suffix []byte
			var row []types.Datum
			g.rows.ascend(func(s []byte, r []types.Datum) bool {
				suffix, row = s, r
				return false
			})
			if err := fn(row); err != nil {
				return err
			}
			g.Delete(suffix)
		}
	}
	if t.bare[vnode] {
		return nil
	}
	lower := storage.AppendKey(nil, t.id, vnode, nil)
	var cur *Group
	return t.store.Engine().ScanLatest(lower, prefixEnd(lower), func(key, value []byte, ver storage.Version) error {
		rest := key[len(lower):]
		n, ok := t.prefixLen(rest)
		if !ok {
			return fmt.Errorf("state table %d: the group of a stored key is unknown", t.id)
		}
		if cur == nil || cur.prefix != string(rest[:n]) {
			if _, cached := t.vnodes[vnode][string(rest[:n])]; cached {
				return nil
			}
			cur = t.emptyGroup(vnode, rest[:n])
		}
		row, err := types.DecodeRow(value, t.types, nil)
		if err != nil {
			return err
		}
		suffix := bytes.Clone(rest[n:])
		cur.rows.put(suffix, slot{row, storedVersion(ver)}, t.freelist)
		cur.resize(entryBytes(suffix, row))
		if err := fn(row); err != nil {
			return err
		}
		cur.Delete(suffix)
		return nil
	})
}
