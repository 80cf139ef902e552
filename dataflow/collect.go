package dataflow

import (
	"cmp"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/storage"
)

// Version collection (DESIGN.md §5): every write of a state key adds a
// version, which becomes obsolete once a newer one is at or before the
// collection horizon (or, a deletion's, once it is), and Collect deletes
// the obsolete versions, so that storage holds about one version per live
// key and compactions stop rewriting the garbage of every past epoch.
//
// State tables know which versions their changes make obsolete (each
// cached entry knows the epoch of its key's stored version): they report
// them as they stage their writes, and Collect purges them by exact key,
// with no read, once the horizon passes the epoch of the change. A version
// the table wrote itself goes by a single delete, which vanishes with it
// in the next flush or compaction that meets both; others by a delete,
// which Pebble carries down to the last level. The
// queue is bounded (obsoleteQueueShare of the cache budget); while it is
// full, state tables leave obsolete versions in storage and remember
// that their keys have older versions, so that a later deletion keeps
// its tombstone, and their writes are counted for scans as the others.
//
// The other writes (materialized views' rows, source offsets,
// watermarks) are counted per table vnode, and Collect scans a table
// vnode (storage.Engine.Collect) once the writes there since its last
// scan, all at or before the horizon, reach as many as the keys it found
// live then: about one read per write.

// The queue of obsolete versions may take an eighth of the state cache's
// budget, and at least obsoleteQueueMin bytes.
const (
	obsoleteQueueShare = 8
	obsoleteQueueMin   = 32 << 20
)

// Obsolete is a version that a later change made obsolete.
type Obsolete struct {
	// Key is the storage user key, Epoch the version's.
	Key   []byte
	Epoch uint64
	// Once is set when the version was written once on this node, by
	// the state table that reports it: a single delete removes it
	// (storage.Batch.PurgeOnce).
	Once bool
}

// obsoleteQueue holds the obsolete versions by the epoch of the change
// that made them so, encoded (appendObsolete), which takes a third of the
// memory of Obsolete values: the queue holds a few seconds of changes.
type obsoleteQueue struct {
	mu     sync.Mutex
	epochs []obsoleteEpoch
	bytes  atomic.Int64
}

type obsoleteEpoch struct {
	epoch uint64
	buf   []byte
}

// Flags of an encoded obsolete record.
const (
	obsoleteTombstone byte = 1 << iota
	obsoleteOnce
)

// appendObsolete appends to buf the versions of key that its change at an
// epoch makes obsolete: the one of epoch superseded (0: none), written
// once on this node if once is set, and the change's own tombstone (which
// its table wrote once) if tombstone is set.
func appendObsolete(buf, key []byte, superseded uint64, once, tombstone bool) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(key)))
	buf = append(buf, key...)
	buf = binary.AppendUvarint(buf, superseded)
	var flags byte
	if tombstone {
		flags |= obsoleteTombstone
	}
	if once {
		flags |= obsoleteOnce
	}
	return append(buf, flags)
}

// decodeObsolete appends to out the versions that e's buffer holds.
func decodeObsolete(out []Obsolete, e obsoleteEpoch) ([]Obsolete, error) {
	for b := e.buf; len(b) > 0; {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return out, errBadObsolete
		}
		key := b[w : w+int(n)]
		b = b[w+int(n):]
		superseded, w := binary.Uvarint(b)
		if w <= 0 || len(b) == w {
			return out, errBadObsolete
		}
		flags := b[w]
		if superseded > 0 {
			out = append(out, Obsolete{key, superseded, flags&obsoleteOnce != 0})
		}
		if flags&obsoleteTombstone != 0 {
			out = append(out, Obsolete{key, e.epoch, true})
		}
		b = b[w+1:]
	}
	return out, nil
}

var errBadObsolete = errors.New("dataflow: undecodable queue of obsolete versions")

// add queues the versions buf holds (appendObsolete), made obsolete at
// epoch.
func (q *obsoleteQueue) add(epoch uint64, buf []byte) {
	if len(buf) == 0 {
		return
	}
	q.bytes.Add(int64(len(buf)))
	q.mu.Lock()
	defer q.mu.Unlock()
	i, _ := slices.BinarySearchFunc(q.epochs, epoch, func(e obsoleteEpoch, t uint64) int { return cmp.Compare(e.epoch, t+1) })
	q.epochs = slices.Insert(q.epochs, i, obsoleteEpoch{epoch, buf})
}

// take removes the versions made obsolete at or before horizon.
func (q *obsoleteQueue) take(horizon uint64) []obsoleteEpoch {
	q.mu.Lock()
	defer q.mu.Unlock()
	i, _ := slices.BinarySearchFunc(q.epochs, horizon, func(e obsoleteEpoch, t uint64) int { return cmp.Compare(e.epoch, t+1) })
	taken := q.epochs[:i:i]
	q.epochs = slices.Clone(q.epochs[i:])
	for _, e := range taken {
		q.bytes.Add(-int64(len(e.buf)))
	}
	return taken
}

// reset forgets the queue (a recovery: the caches that knew the versions
// are gone, and reloading finds their keys' older versions).
func (q *obsoleteQueue) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.epochs = nil
	q.bytes.Store(0)
}

// collecting reports whether the obsolete versions of changes are queued
// (else the queue is full).
func (s *Store) collecting() bool {
	return s.obsolete.bytes.Load() < max(obsoleteQueueMin, s.CacheBytes()/obsoleteQueueShare)
}

// purge deletes the versions of epochs, in storage order (see
// inStorageOrder).
func (s *Store) purge(epochs []obsoleteEpoch) (int, error) {
	var versions []Obsolete
	for _, e := range epochs {
		var err error
		if versions, err = decodeObsolete(versions, e); err != nil {
			return 0, err
		}
	}
	if len(versions) == 0 {
		return 0, nil
	}
	refs := make([]versionRef, len(versions))
	for i, v := range versions {
		refs[i] = newVersionRef(v.Key, 0, i)
	}
	sortVersions(refs, func(r versionRef) []byte { return versions[r.w].Key }, func(r versionRef) uint64 { return versions[r.w].Epoch })
	b := s.engine.NewBatch()
	for _, r := range refs {
		if v := versions[r.w]; v.Once {
			b.PurgeOnce(v.Key, v.Epoch)
		} else {
			b.Purge(v.Key, v.Epoch)
		}
	}
	return len(refs), b.Commit(false)
}

// collectMin is the fewest writes to one table vnode that make it worth a
// scan.
const collectMin = 256

// tableVNode is a table id and a vnode: table<<16 | vnode.
type tableVNode uint64

// keyTableVNode returns the table and vnode of a storage user key.
func keyTableVNode(key []byte) tableVNode {
	return tableVNode(binary.BigEndian.Uint32(key))<<16 | tableVNode(binary.BigEndian.Uint16(key[4:]))
}

// writeCounts is the store's count of writes per table vnode.
type writeCounts struct {
	mu sync.Mutex
	// pending are the writes not yet at or before the horizon: n writes
	// to tv, the newest at epoch.
	pending []pendingWrites
	// ready counts the writes at or before the horizon since the last
	// scan; live the keys that scan found live.
	ready, live map[tableVNode]int
}

type pendingWrites struct {
	tv    tableVNode
	n     int
	epoch uint64
}

// writeRuns counts one write call's writes, which come in key order: a run
// per table vnode.
type writeRuns struct {
	runs []pendingWrites
}

// add counts a write of key at epoch.
func (c *writeRuns) add(key []byte, epoch uint64) {
	if len(key) < 6 {
		return // not a table key (storage.AppendKey)
	}
	tv := keyTableVNode(key)
	if n := len(c.runs); n > 0 && c.runs[n-1].tv == tv {
		r := &c.runs[n-1]
		r.n++
		r.epoch = max(r.epoch, epoch)
		return
	}
	c.runs = append(c.runs, pendingWrites{tv, 1, epoch})
}

// record adds the runs counted to the pending writes.
func (c *writeCounts) record(runs []pendingWrites) {
	if len(runs) == 0 {
		return
	}
	c.mu.Lock()
	c.pending = append(c.pending, runs...)
	c.mu.Unlock()
}

// due moves the pending writes at or before horizon to the ready counts
// and returns the table vnodes due for a scan, in key order, each with
// its ready count (epoch unset).
func (c *writeCounts) due(horizon uint64) []pendingWrites {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready == nil {
		c.ready, c.live = map[tableVNode]int{}, map[tableVNode]int{}
	}
	c.pending = slices.DeleteFunc(c.pending, func(p pendingWrites) bool {
		if p.epoch > horizon {
			return false
		}
		c.ready[p.tv] += p.n
		return true
	})
	var due []pendingWrites
	for tv, n := range c.ready {
		if n >= max(collectMin, c.live[tv]) {
			due = append(due, pendingWrites{tv: tv, n: n})
		}
	}
	slices.SortFunc(due, func(a, b pendingWrites) int { return cmp.Compare(a.tv, b.tv) })
	return due
}

// scanned records that a scan of tv found live keys, taking the n writes
// counted ready before it.
func (c *writeCounts) scanned(tv tableVNode, n, live int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready[tv] -= n; c.ready[tv] <= 0 {
		delete(c.ready, tv)
	}
	c.live[tv] = live
}

// reset forgets the pending writes (a recovery removes those after the
// committed epoch; the ready ones are in storage either way).
func (c *writeCounts) reset() {
	c.mu.Lock()
	c.pending = nil
	c.mu.Unlock()
}

// CollectStats sums what a Collect did.
type CollectStats struct {
	// Purged is the number of obsolete versions the state tables
	// reported; Scans the table vnodes scanned, Deleted the versions
	// those scans deleted.
	Purged, Scans, Deleted int
}

// Collect deletes the versions that no read at horizon or later needs:
// those the state tables reported obsolete at or before it, and those a
// scan finds in the table vnodes written to enough since they were last
// scanned. horizon must be an epoch committed cluster-wide, which no read
// still to begin is older than, and no migration's or durable
// checkpoint's delta in progress starts before (the caller lowers it to
// the oldest pin of the engine: storage.Engine.Pin). It stops at the first
// error.
func (s *Store) Collect(horizon uint64) (CollectStats, error) {
	var total CollectStats
	defer func() { s.collected.Add(int64(total.Purged + total.Deleted)) }()
	// The horizon the engine's pins allow.
	horizon = s.engine.Horizon(horizon)
	s.horizon.Store(horizon)
	n, err := s.purge(s.obsolete.take(horizon))
	total.Purged = n
	if err != nil {
		return total, err
	}
	for _, d := range s.writeCounts.due(horizon) {
		lower := storage.AppendKey(nil, uint32(d.tv>>16), uint16(d.tv), nil)
		st, err := s.engine.Collect(lower, prefixEnd(lower), horizon)
		if err != nil {
			return total, err
		}
		s.writeCounts.scanned(d.tv, d.n, st.Live)
		total.Scans++
		total.Deleted += st.Deleted
	}
	return total, nil
}

// CollectTotals returns the versions Collect deleted so far, the horizon
// it last used, and the bytes of obsolete versions queued for it.
func (s *Store) CollectTotals() (deleted int64, horizon uint64, queued int64) {
	return s.collected.Load(), s.horizon.Load(), s.obsolete.bytes.Load()
}
