package dataflow

import (
	"bytes"
	"slices"

	"github.com/RaduBerinde/btreemap"
	"github.com/streamdb/streamdb/types"
)

// entries holds a group's cached entries ordered by suffix. Most groups
// are small (an aggregation's single state row, a few join rows per key),
// so they live in a sorted slice; a group that outgrows smallEntries moves
// to a B-tree, which keeps inserts cheap for groups of any size. A B-tree
// per group would cost a node allocation sized for dozens of items even
// for a group of one.
type entries struct {
	small []entry
	tree  *btreemap.BTreeMap[[]byte, slot]
}

type entry struct {
	key []byte
	slot
}

// slot is an entry's row and the versions of its key in storage.
type slot struct {
	row []types.Datum
	ver version
}

// version tells which versions of an entry's key storage holds: the epoch
// of the newest (0: none yet) and three marks in the top bits. versionOlder:
// there may be older versions too (a key loaded with several, or one
// whose obsolete versions were left for the collector's scans, see
// Commit). versionOwn: this table wrote the newest, once, on this node
// (not loaded, perhaps copied in by a migration), so a single delete
// removes it (storage.Batch.PurgeOnce). versionDirty: the entry changed
// since the last Commit, so its key is among the group's dirty keys
// already (a cached entry's mark only, never a stored version's).
type version uint64

const (
	versionOlder version = 1 << 63
	versionOwn   version = 1 << 62
	versionDirty version = 1 << 61
)

// newVersion returns the version of a loaded key whose newest version is
// of epoch, with older versions if older is set.
func newVersion(epoch uint64, older bool) version {
	if older {
		return version(epoch) | versionOlder
	}
	return version(epoch)
}

// ownVersion is newVersion of a version this table wrote.
func ownVersion(epoch uint64, older bool) version { return newVersion(epoch, older) | versionOwn }

// epoch returns the epoch of the newest stored version (0: none).
func (v version) epoch() uint64 { return uint64(v &^ (versionOlder | versionOwn | versionDirty)) }

// older reports whether older versions may be stored too.
func (v version) older() bool { return v&versionOlder != 0 }

// own reports whether this table wrote the newest version.
func (v version) own() bool { return v&versionOwn != 0 }

// smallEntries is the most entries kept in the sorted slice.
const smallEntries = 32

// btreeDegree is the degree of the B-trees ordering large groups.
const btreeDegree = 16

func (es *entries) search(suffix []byte) (int, bool) {
	return slices.BinarySearchFunc(es.small, suffix, func(e entry, k []byte) int { return bytes.Compare(e.key, k) })
}

// get returns the entry under suffix.
func (es *entries) get(suffix []byte) (key []byte, s slot, ok bool) {
	if es.tree != nil {
		return es.tree.Get(suffix)
	}
	if i, found := es.search(suffix); found {
		return es.small[i].key, es.small[i].slot, true
	}
	return nil, slot{}, false
}

// put inserts or replaces the entry under key (kept, not copied).
func (es *entries) put(key []byte, s slot, free *btreemap.FreeList[[]byte, slot]) {
	if es.tree != nil {
		es.tree.ReplaceOrInsert(key, s)
		return
	}
	i, found := es.search(key)
	if found {
		es.small[i].slot = s
		return
	}
	es.insert(i, key, s, free)
}

// set stores row under suffix, marked versionDirty, keeping the versions
// of the entry it replaces, if any, which it returns; a new entry's key is
// a copy of suffix. It returns the entry's key. Each is one search: a
// group's new entries (a join's rows, keyed by stream key) mostly go after
// every other.
func (es *entries) set(suffix []byte, row []types.Datum, free *btreemap.FreeList[[]byte, slot]) (key []byte, old slot, replaced bool) {
	if es.tree != nil {
		key = bytes.Clone(suffix)
		if _, old, replaced = es.tree.ReplaceOrInsert(key, slot{row, versionDirty}); replaced {
			es.tree.ReplaceOrInsert(key, slot{row, old.ver | versionDirty})
		}
		return key, old, replaced
	}
	i, found := es.search(suffix)
	if found {
		e := &es.small[i]
		old = e.slot
		e.slot = slot{row, old.ver | versionDirty}
		return e.key, old, true
	}
	key = bytes.Clone(suffix)
	es.insert(i, key, slot{row, versionDirty}, free)
	return key, slot{}, false
}

// insert adds an entry at position i of the small slice, which holds
// none under key, or moves the entries to a tree once that is full.
func (es *entries) insert(i int, key []byte, s slot, free *btreemap.FreeList[[]byte, slot]) {
	if len(es.small) < smallEntries {
		es.small = slices.Insert(es.small, i, entry{key, s})
		return
	}
	es.tree = btreemap.NewWithFreeList[[]byte, slot](btreeDegree, bytes.Compare, free)
	for _, e := range es.small {
		es.tree.ReplaceOrInsert(e.key, e.slot)
	}
	es.small = nil
	es.tree.ReplaceOrInsert(key, s)
}

// setVersion sets the version of the entry under key, if any.
func (es *entries) setVersion(key []byte, v version) {
	if es.tree != nil {
		if _, s, ok := es.tree.Get(key); ok {
			s.ver = v
			es.tree.ReplaceOrInsert(key, s)
		}
		return
	}
	if i, found := es.search(key); found {
		es.small[i].ver = v
	}
}

// delete removes the entry under suffix and returns it.
func (es *entries) delete(suffix []byte) (key []byte, s slot, ok bool) {
	if es.tree != nil {
		return es.tree.Delete(suffix)
	}
	i, found := es.search(suffix)
	if !found {
		return nil, slot{}, false
	}
	e := es.small[i]
	es.small = slices.Delete(es.small, i, i+1)
	return e.key, e.slot, true
}

// ascend calls fn for each entry in suffix order until it returns false.
func (es *entries) ascend(fn func(suffix []byte, row []types.Datum) bool) {
	es.ascendSlots(func(k []byte, s slot) bool { return fn(k, s.row) })
}

// ascendSlots calls fn for each entry, with its slot, in suffix order
// until it returns false.
func (es *entries) ascendSlots(fn func(suffix []byte, s slot) bool) {
	if es.tree != nil {
		es.tree.AscendFunc(btreemap.Min[[]byte](), btreemap.Max[[]byte](), fn)
		return
	}
	for _, e := range es.small {
		if !fn(e.key, e.slot) {
			return
		}
	}
}

// ascendFrom calls fn for each entry whose suffix is from or after it, in
// suffix order, until fn returns false.
func (es *entries) ascendFrom(from []byte, fn func(suffix []byte, row []types.Datum) bool) {
	if es.tree != nil {
		es.tree.AscendFunc(btreemap.GE(from), btreemap.Max[[]byte](), func(k []byte, s slot) bool { return fn(k, s.row) })
		return
	}
	i, _ := es.search(from)
	for _, e := range es.small[i:] {
		if !fn(e.key, e.row) {
			return
		}
	}
}

// descend calls fn for each entry in reverse suffix order until it returns
// false.
func (es *entries) descend(fn func(suffix []byte, row []types.Datum) bool) {
	if es.tree != nil {
		es.tree.DescendFunc(btreemap.Max[[]byte](), btreemap.Min[[]byte](), func(k []byte, s slot) bool { return fn(k, s.row) })
		return
	}
	for i := len(es.small) - 1; i >= 0; i-- {
		if !fn(es.small[i].key, es.small[i].row) {
			return
		}
	}
}

// len returns the number of entries.
func (es *entries) len() int {
	if es.tree != nil {
		return es.tree.Len()
	}
	return len(es.small)
}

// clear drops every entry, returning B-tree nodes to the free list.
func (es *entries) clear() {
	if es.tree != nil {
		es.tree.Clear(true)
	}
	*es = entries{}
}
