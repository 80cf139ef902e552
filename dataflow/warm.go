package dataflow

import (
	"bytes"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// CacheMode says how the new owner of a vnode gets its cached state when a
// rescale moves the vnode (DESIGN.md §6: cold caches).
type CacheMode uint8

// Cache modes.
const (
	// CacheHandover: the old owner's cached groups of the vnode move to the
	// new owner on the same node (they share the storage); a new owner on
	// another node loads the groups its old owner used most recently
	// (Runtime.HotGroups) once the switch's delta has landed.
	CacheHandover CacheMode = iota
	// CacheEager: the new owner loads the vnode's groups from storage at
	// the switch, before it goes on, while the node's cache has room.
	CacheEager
	// CacheLazy: the new owner reads each group from storage on first use.
	CacheLazy
)

// groupLayout tells a state table where the group prefix of a stored key
// ends, so that it can load whole vnodes (warm): the prefix is cols
// memcomparable columns followed by extra bytes. Tables whose operator
// declares none are not warmed.
type groupLayout struct {
	cols, extra int
}

// prefixLen returns the length of the group prefix at the front of rest,
// a stored key after its table and vnode.
func (t *StateTable) prefixLen(rest []byte) (int, bool) {
	if t.pointGroups {
		return len(rest), true
	}
	if t.layout == nil {
		return 0, false
	}
	src := rest
	for i := 0; i < t.layout.cols; i++ {
		var err error
		if _, src, err = types.DecodeKey(types.TUnknown, src, false); err != nil {
			return 0, false
		}
	}
	n := len(rest) - len(src) + t.layout.extra
	return n, n <= len(rest)
}

// warm loads every group of vnodes from storage into the cache as least
// recently used, vnode by vnode, while the node's cache has room, and
// returns the bytes loaded. A vnode loaded whole needs no storage read on
// a miss (bare). Call it on a table with nothing cached for vnodes.
func (t *StateTable) warm(vnodes *Bitmap) (int64, error) {
	if !t.pointGroups && t.layout == nil {
		return 0, nil
	}
	c := &t.store.cache
	var total int64
	var err error
	vnodes.Each(func(vn int) {
		if err != nil {
			return
		}
		v := uint16(vn)
		groups := map[string]*Group{}
		t.vnodes[v] = groups
		lower := storage.AppendKey(nil, t.id, v, nil)
		complete := true
		var g *Group
		err = t.store.Engine().ScanLatest(lower, prefixEnd(lower), func(key, value []byte, ver storage.Version) error {
			rest := key[len(lower):]
			n, ok := t.prefixLen(rest)
			if !ok {
				complete = false
				return errStopScan
			}
			if g == nil || !bytes.Equal([]byte(g.prefix), rest[:n]) {
				if c.used.Load()+total > c.budget.Load() {
					complete = false
					return errStopScan
				}
				g = &Group{t: t, vnode: v, prefix: string(rest[:n]), bytes: groupOverhead + int64(n)}
				groups[g.prefix] = g
				t.lru.pushBack(g)
				total += g.bytes
			}
			row, err := types.DecodeRow(value, t.types, nil)
			if err != nil {
				return err
			}
			suffix := bytes.Clone(rest[n:])
			g.rows.put(suffix, slot{row, storedVersion(ver)}, t.freelist)
			b := entryBytes(suffix, row)
			g.bytes += b
			total += b
			return nil
		})
		if err == errStopScan {
			err = nil
		}
		t.bare[v] = complete
	})
	t.account(total)
	t.report()
	return total, err
}
