// Package storage is a node's state store: one Pebble instance holding every
// state table of the node, multi-versioned by epoch. A row of a state table
// lives under the user key table_id | vnode | memcomparable(pk) (see
// AppendKey); each checkpoint writes new versions of changed keys tagged with
// the epoch, and a read at epoch e sees, per key, the newest version <= e, a
// deleted key being a tombstone version. Versions no read needs any more
// are deleted explicitly (Collect; Pebble has no compaction filter).
package storage

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// Value tags: the first byte of every stored value.
const (
	valueTombstone byte = 0
	valueLive      byte = 1
)

// DefaultCacheSize is the default block cache: large enough that operator
// state evicted from the in-memory caches is usually read back without
// decompressing blocks again (Pebble's own default is 8 MiB).
const DefaultCacheSize = 128 << 20

// DefaultMemTableSize is the default size of a memtable: large, because
// state keys are spread over every vnode, so each L0 file overlaps the
// whole of the levels below; small memtables flush often, and each L0
// compaction rewrites most of the store (Pebble's own default is 4 MiB).
const DefaultMemTableSize = 64 << 20

// l0CompactionThreshold is the L0 read amplification (its sublevels; a
// flush's files share one) at which L0 is compacted into the levels below
// (Pebble's default is 4). Reads rarely mind: operator state is read from
// the state cache, and point reads skip L0's files by their bloom filters.
const l0CompactionThreshold = 16

// Options configures an Engine.
type Options struct {
	// CacheSize is the block cache size in bytes; 0 means DefaultCacheSize.
	CacheSize int64
	// MemTableSize is the size of a memtable in bytes; 0 means
	// DefaultMemTableSize.
	MemTableSize uint64
	// Logger receives Pebble's messages; nil means slog.Default().
	Logger *slog.Logger
}

// Reader reads committed state: a node's own store (Engine), or a
// cluster's, where each node holds the key groups it owns.
type Reader interface {
	// Get returns the value of key live at epoch, if any (see
	// Engine.Get): a point read, where a Scan of the one key would seek
	// every level.
	Get(key []byte, epoch uint64) (value []byte, ok bool, err error)
	// Scan calls fn, in key order per node, for every key in [lower,
	// upper) live at epoch (see Engine.Scan).
	Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error
	// TableDiskUsage estimates the bytes a table takes in storage.
	TableDiskUsage(tableID uint32) (uint64, error)
}

var _ Reader = (*Engine)(nil)

// Engine is a node's multi-versioned state store. It is safe for concurrent
// use.
type Engine struct {
	db *DB
	// dir is the store's directory; opts its Pebble options (for the
	// SSTs that migrations write).
	dir  string
	opts *pebble.Options
	// horizon holds the pins and the floor of version collection.
	horizon horizon
}

// Open opens, creating it if needed, the state store in dir.
func Open(dir string, opts Options) (*Engine, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	po := &pebble.Options{
		Comparer:           Comparer,
		CacheSize:          cmp.Or(opts.CacheSize, DefaultCacheSize),
		MemTableSize:       cmp.Or(opts.MemTableSize, DefaultMemTableSize),
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             PebbleLogger{L: logger},
	}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	// Operator state is written and deleted within seconds, over every
	// vnode: each flushed L0 file overlaps all of L6, and is dense with
	// single deletes of versions in earlier files. Pebble's default
	// compacted each such file into L6 at once (a tombstone-density
	// compaction), rewriting all of L6 per flush; letting L0 gather up to
	// l0CompactionThreshold sublevels first, merged into L6 in fewer
	// compactions, has more versions meet their deletes before L6: over 20 M
	// events, Nexmark q7 spent 17% of its CPU in compactions, 13% after.
	po.Experimental.TombstoneDenseCompactionThreshold = -1
	po.L0CompactionThreshold = l0CompactionThreshold
	po.L0StopWritesThreshold = 3 * l0CompactionThreshold
	po.BlockPropertyCollectors = []func() pebble.BlockPropertyCollector{epochsCollector}
	po.EventListener = stallLogger(logger)
	// With its defaults filled in, it also makes the writer options of
	// the SSTs that migrations export.
	po.EnsureDefaults()
	exists, err := hasStore(dir)
	if err != nil {
		return nil, err
	}
	db, err := OpenDB(dir, po)
	if err != nil {
		return nil, err
	}
	if err := checkFormat(dir, !exists); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &Engine{db: db, dir: dir, opts: po}, nil
}

// stallLogger logs Pebble's write stalls (too many memtables or L0 files
// waiting for flushes and compactions): every write of the node waits
// meanwhile, so each is worth a warning with its cause and length.
func stallLogger(logger *slog.Logger) *pebble.EventListener {
	var began atomic.Int64
	return &pebble.EventListener{
		WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			began.Store(time.Now().UnixNano())
			logger.Warn("storage: Pebble stalls writes", "reason", info.Reason)
		},
		WriteStallEnd: func() {
			logger.Warn("storage: Pebble's write stall ended", "stalled", time.Since(time.Unix(0, began.Load())).Round(time.Millisecond))
		},
	}
}

// Close closes the store. Writes committed without sync may be lost.
func (e *Engine) Close() error { return e.db.Close() }

// Get returns the value of key as of epoch: its newest version <= epoch, or
// ok=false when there is none or that version is a tombstone. The returned
// value is a copy owned by the caller. It seeks the key's prefix only, so
// that the bloom filters skip the tables without the key.
func (e *Engine) Get(key []byte, epoch uint64) (value []byte, ok bool, err error) {
	value, _, ok, err = e.get(key, epoch, false)
	return value, ok, err
}

// GetLatest is Get of the newest version, with the key's Version (see
// ScanLatest).
func (e *Engine) GetLatest(key []byte) (value []byte, v Version, ok bool, err error) {
	return e.get(key, math.MaxUint64, true)
}

// get is Get, and GetLatest with versions.
func (e *Engine) get(key []byte, epoch uint64, versions bool) (value []byte, v Version, ok bool, err error) {
	it, err := e.db.NewIter(nil)
	if err != nil {
		return nil, v, false, err
	}
	defer it.Close()
	if err := e.horizon.check(epoch); err != nil {
		return nil, v, false, err
	}
	if !it.SeekPrefixGE(appendVersioned(make([]byte, 0, len(key)+keyOverhead), key, epoch)) {
		return nil, v, false, it.Error()
	}
	v.Epoch = versionEpoch(it.Key())
	raw, err := it.ValueAndErr()
	if err != nil || raw[0] == valueTombstone {
		return nil, v, false, err
	}
	value = bytes.Clone(raw[1:])
	if versions {
		// A prefix iteration stays within the key's versions.
		v.Older = it.Next()
	}
	return value, v, true, it.Error()
}

// RaftKeys returns the database of the store and the prefix and suffix
// that frame the keys of the node's Raft log in it (raftstore.Within):
// under RaftTableID, each ending in the sentinel, so that the comparer
// reads none as versioned. The log shares the store's WAL, so the sync of
// a log entry makes every write committed before it durable too.
func (e *Engine) RaftKeys() (db *DB, prefix, suffix []byte) {
	return e.db, AppendKey(nil, RaftTableID, 0, nil), []byte{sentinel}
}

// Sync makes every write committed before it durable, those committed
// without syncing included.
func (e *Engine) Sync() error { return e.db.LogData(nil, pebble.Sync) }

// Scan calls fn, in key order, for every key in [lower, upper) that is live
// at epoch, with its newest version <= epoch. A nil bound is open. key is the
// user key (as AppendKey builds it); key and value are valid only during fn.
// An error from fn stops the scan and is returned.
func (e *Engine) Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	return e.scan(lower, upper, epoch, nil, func(key, value []byte, _ Version) error { return fn(key, value) })
}

// Version tells which versions of a key are stored: the epoch of its
// newest, and whether there are older ones.
type Version struct {
	Epoch uint64
	Older bool
}

// ScanLatest is Scan of the newest versions, with each key's Version: what
// a state table loads, so that it knows which versions of a key a later
// change of it makes obsolete (see Batch.Purge).
func (e *Engine) ScanLatest(lower, upper []byte, fn func(key, value []byte, v Version) error) error {
	return e.scan(lower, upper, math.MaxUint64, make([]byte, 0, 256), fn)
}

// scan is Scan, and ScanLatest when buf is not nil: it then looks past
// each key's newest version for an older one, with the key and value
// copied into buf first.
func (e *Engine) scan(lower, upper []byte, epoch uint64, buf []byte, fn func(key, value []byte, v Version) error) error {
	it, err := e.db.NewIter(boundsOptions(lower, upper))
	if err != nil {
		return err
	}
	defer it.Close()
	if err := e.horizon.check(epoch); err != nil {
		return err
	}
	var seek []byte
	for valid := it.First(); valid; {
		k := it.Key()
		p := split(k)
		if versionEpoch(k) > epoch {
			// Skip the versions newer than epoch.
			seek = appendVersioned(seek[:0], k[:p-1], epoch)
			valid = it.SeekGE(seek)
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if buf == nil {
			if v[0] == valueLive {
				if err := fn(k[:p-1], v[1:], Version{Epoch: versionEpoch(k)}); err != nil {
					return err
				}
			}
			valid = it.NextPrefix()
			continue
		}
		ver := Version{Epoch: versionEpoch(k)}
		buf = append(append(buf[:0], k[:p-1]...), v...)
		key, value := buf[:p-1], buf[p-1:]
		// Most keys have one version: Next, then NextPrefix past the
		// older ones if there are.
		if valid = it.Next(); valid {
			if nk := it.Key(); split(nk) == p && string(nk[:p-1]) == string(key) {
				ver.Older = true
				valid = it.NextPrefix()
			}
		}
		if value[0] == valueLive {
			if err := fn(key, value[1:], ver); err != nil {
				return err
			}
		}
	}
	return it.Error()
}

// boundsOptions returns the options of an iterator over the versions of
// the user keys in [lower, upper); a nil bound is open.
func boundsOptions(lower, upper []byte) *pebble.IterOptions {
	var opts pebble.IterOptions
	if lower != nil {
		opts.LowerBound = appendBound(nil, lower)
	}
	if upper != nil {
		opts.UpperBound = appendBound(nil, upper)
	}
	return &opts
}

// DropTable deletes every version of every key of a table, durably.
func (e *Engine) DropTable(tableID uint32) error {
	if tableID == math.MaxUint32 {
		return fmt.Errorf("storage: table id %d out of range", tableID)
	}
	span := tableSpan(tableID)
	return e.db.DeleteRange(span.Start, span.End, pebble.Sync)
}

// tableSpan returns the bare Pebble keys that bound a table's versions
// (tableID < MaxUint32).
func tableSpan(tableID uint32) pebble.KeyRange {
	return pebble.KeyRange{Start: appendBound(nil, TablePrefix(tableID)), End: appendBound(nil, TablePrefix(tableID+1))}
}

// TableDiskUsage estimates the bytes that the keys of a table take in
// storage files (writes still in memtables are not counted).
func (e *Engine) TableDiskUsage(tableID uint32) (uint64, error) {
	span := tableSpan(tableID)
	return e.db.EstimateDiskUsage(span.Start, span.End)
}

// tableBytesExact is the size below which TableBytes counts a table's
// keys and values (memtables included) rather than estimating: a
// memtable's worth, which writes not yet in storage files can reach.
const tableBytesExact = DefaultMemTableSize

// TableBytes returns the bytes a table takes, as pg_relation_size reports
// them: the storage files' estimate or, for a table whose files hold less
// than a memtable's worth (its writes may still be in memtables), the sum
// of its keys' and values' sizes, every version counted.
func (e *Engine) TableBytes(tableID uint32) (uint64, error) {
	span := tableSpan(tableID)
	est, err := e.db.EstimateDiskUsage(span.Start, span.End)
	if err != nil || est >= tableBytesExact {
		return est, err
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: span.Start, UpperBound: span.End})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var n uint64
	for valid := it.First(); valid && n < tableBytesExact; valid = it.Next() {
		lv := it.LazyValue()
		n += uint64(len(it.Key())) + uint64(lv.Len())
	}
	return max(n, est), it.Error()
}

// VNodeDiskUsage estimates the bytes that the keys of one vnode of a table
// take in storage files (writes still in memtables are not counted).
func (e *Engine) VNodeDiskUsage(tableID uint32, vnode uint16) (uint64, error) {
	return e.db.EstimateDiskUsage(appendBound(nil, AppendKey(nil, tableID, vnode, nil)), appendBound(nil, AppendKey(nil, tableID, vnode+1, nil)))
}

// Busy reports whether Pebble is flushing memtables or compacting: work
// that writes it deferred and still owes.
func (e *Engine) Busy() bool {
	m := e.db.Metrics()
	return m.Flush.NumInProgress > 0 || m.Compact.NumInProgress > 0
}

// Metrics returns Pebble's metrics as a human-readable table.
func (e *Engine) Metrics() string { return e.db.Metrics().String() }

// PebbleMetrics returns Pebble's metrics now.
func (e *Engine) PebbleMetrics() *pebble.Metrics { return e.db.Metrics() }

// Rollback deletes every version written at an epoch after epoch (written
// but never committed), durably, and returns how many it deleted. Recovery
// calls it before any actor starts, and a restore from a durable
// checkpoint with that checkpoint's epoch. It reads only the SST blocks
// that hold versions newer than epoch (epochsProperty).
func (e *Engine) Rollback(epoch uint64) (int, error) {
	it, err := e.db.NewIter(&pebble.IterOptions{PointKeyFilters: []pebble.BlockPropertyFilter{epochsFilter(epoch, math.MaxUint64-1)}})
	if err != nil {
		return 0, err
	}
	defer it.Close()
	b := e.db.NewBatch()
	defer b.Close()
	n := 0
	for valid := it.First(); valid; valid = it.Next() {
		k := it.Key()
		if split(k) == len(k) || versionEpoch(k) <= epoch {
			continue
		}
		if err := b.Delete(k, nil); err != nil {
			return n, err
		}
		n++
	}
	if err := it.Error(); err != nil {
		return n, err
	}
	if n == 0 {
		return 0, nil
	}
	return n, b.Commit(pebble.Sync)
}
