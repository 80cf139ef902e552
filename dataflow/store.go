package dataflow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/storage"
)

// Store is the node's state store over storage.Engine: state tables stage
// their per-epoch deltas here. Actors write what is staged into storage
// without syncing once they have passed a barrier on (WriteBehind), while
// the actors downstream go on; the checkpoint then writes what is left
// and syncs, which makes the epoch durable. Writes of epochs not yet
// committed are in storage at their own epochs, which readers of committed
// epochs skip and recovery removes. It also keeps the node's budget for
// the groups state tables cache (see stateCache).
type Store struct {
	engine *storage.Engine
	// writeMu orders the writes into storage, so that they are applied in
	// the order staged; it is taken before mu.
	writeMu sync.Mutex
	// dirty is set when writes went to storage unsynced (under writeMu).
	dirty bool
	mu    sync.Mutex
	// staged holds the Stage calls not yet written, in order.
	staged []staged
	// stages counts the Stage calls; unsynced maps each epoch with writes
	// not yet synced to the count of its last Stage.
	stages   uint64
	unsynced map[uint64]uint64
	// err is the first failed write behind, which fails the next seal.
	err error
	// onPressure asks for an early barrier (nil: none); pressured is set
	// once it was asked until the next seal.
	onPressure func()
	pressured  atomic.Bool
	// sealed is the newest epoch up to which every staged write is in
	// storage; written under mu.
	sealed atomic.Uint64
	cache  stateCache
	// obsolete queues the versions state tables report obsolete;
	// writeCounts counts the other writes, whose versions Collect finds
	// by scanning.
	obsolete    obsoleteQueue
	writeCounts writeCounts
	// collected counts the versions Collect deleted; horizon is the one
	// it last used.
	collected atomic.Int64
	horizon   atomic.Uint64
}

// Write is one staged change of a state table.
type Write struct {
	// Key is the storage user key: table | vnode | memcomparable key.
	Key []byte
	// Value is the encoded row; nil deletes the key.
	Value []byte
}

// staged is the writes of one Stage call.
type staged struct {
	epoch  uint64
	writes []Write
}

// NewStore returns a store over e with nothing staged and a cache budget
// of DefaultCacheBytes.
func NewStore(e *storage.Engine) *Store {
	s := &Store{engine: e, unsynced: map[uint64]uint64{}}
	s.SetCacheBytes(DefaultCacheBytes)
	return s
}

// reset forgets every staged write and the cache's account, for a
// recovery (Runtime.Reset): the actors that staged them are gone.
func (s *Store) reset() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.staged, s.unsynced, s.err, s.dirty = nil, map[uint64]uint64{}, nil, false
	s.cache.used.Store(0)
	s.obsolete.reset()
	s.writeCounts.reset()
}

// Engine returns the underlying storage engine.
func (s *Store) Engine() *storage.Engine { return s.engine }

// Stage adds writes to epoch's delta. The store keeps the slices: callers
// must not modify them afterwards. Writes of one epoch are applied in the
// order staged, so a later write of a key wins; they must be staged before
// the epoch is sealed (else the cache may take them for sealed). Safe for
// concurrent use.
func (s *Store) Stage(epoch uint64, writes []Write) {
	var runs writeRuns
	for _, w := range writes {
		runs.add(w.Key, epoch)
	}
	s.writeCounts.record(runs.runs)
	s.stage(epoch, writes)
}

// stageTracked is Stage for the writes of a state table, which reports
// the versions they make obsolete (see StateTable.Commit).
func (s *Store) stageTracked(epoch uint64, writes []Write, obsolete []byte) {
	s.obsolete.add(epoch, obsolete)
	s.stage(epoch, writes)
}

// stage is Stage without counting the writes.
func (s *Store) stage(epoch uint64, writes []Write) {
	if len(writes) == 0 {
		return
	}
	s.mu.Lock()
	s.staged = append(s.staged, staged{epoch, writes})
	s.stages++
	s.unsynced[epoch] = s.stages
	s.mu.Unlock()
}

// WriteBehind writes everything staged so far into storage, unsynced: the
// actors call it after passing a barrier on, so that the checkpoint only
// has to sync. A failure fails the next Seal.
func (s *Store) WriteBehind() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	stages := s.take(math.MaxUint64)
	s.mu.Unlock()
	if len(stages) == 0 {
		return
	}
	err := s.write(stages, nil, false)
	s.mu.Lock()
	if err != nil && s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.dirty = true
}

// take removes the writes staged for epochs <= epoch and returns them in
// the order staged (mu held).
func (s *Store) take(epoch uint64) []staged {
	var taken []staged
	s.staged = slices.DeleteFunc(s.staged, func(st staged) bool {
		if st.epoch <= epoch {
			taken = append(taken, st)
			return true
		}
		return false
	})
	return taken
}

// write commits the writes of stages and whatever extra adds, synced if
// durable. Writes of more than writePart keys go in parallel batches over
// disjoint key ranges (one per core): memtable inserts are the bulk of the
// work. A single batch syncs as it commits, so that the sync overlaps its
// memtable inserts; parallel ones are synced once all are in.
func (s *Store) write(stages []staged, extra func(*storage.Batch), durable bool) error {
	n, size := 0, 0
	for _, st := range stages {
		n += len(st.writes)
		for _, w := range st.writes {
			size += storage.WriteSize(w.Key, w.Value)
		}
	}
	parts := max(1, min(runtime.GOMAXPROCS(0), n/writePart))
	batches := make([]*storage.Batch, parts)
	for i := range batches {
		// Parts take equal numbers of writes, of sizes that differ
		// little: an eighth more than the mean seldom grows.
		batches[i] = s.engine.NewBatchSized(size/parts + size/(8*parts))
	}
	i := 0
	inStorageOrder(stages, func(w Write, epoch uint64) {
		b := batches[i*parts/n]
		i++
		if w.Value == nil {
			b.Delete(w.Key, epoch)
		} else {
			b.Put(w.Key, epoch, w.Value)
		}
	})
	if extra != nil {
		extra(batches[0])
	}
	if parts == 1 {
		if batches[0].Len() > 0 {
			return batches[0].Commit(durable)
		}
		batches[0].Close()
		if durable {
			return s.engine.Sync()
		}
		return nil
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for k, b := range batches {
		wg.Go(func() { errs[k] = b.Commit(false) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil || !durable {
		return err
	}
	return s.engine.Sync()
}

// writePart is the fewest keys a write gives each parallel batch.
const writePart = 1024

// pressure reports that the state cache is over budget with nothing it may
// evict: the groups changed in the current epoch stay until it is sealed.
// The first report after each seal asks for a barrier at once, so that a
// fast input does not pile a whole barrier interval of changed groups into
// memory.
func (s *Store) pressure() {
	if s.onPressure != nil && s.pressured.CompareAndSwap(false, true) {
		s.onPressure()
	}
}

// Seal writes every write staged for epochs <= epoch, each version at its
// own epoch, together with whatever extra adds to the batch (nil:
// nothing), and, if sync, syncs, which makes them and every write behind
// durable (without, a later sync of the store's WAL does: the Raft entry
// that commits the epoch, see Hooks.CommitSyncs). Once it returns without
// error, reads see the writes; an error is permanent (the node must
// recover).
func (s *Store) Seal(epoch uint64, extra func(*storage.Batch), sync bool) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	stages := s.take(epoch)
	through, err := s.stages, s.err
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if len(stages) > 0 || extra != nil || s.dirty {
		if err := s.write(stages, extra, sync); err != nil {
			return err
		}
		s.dirty = !sync
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.pressured.Store(false)
	// Every write staged before the take is in storage now, but for the
	// epochs that are still staged.
	sealed := epoch
	for e, n := range s.unsynced {
		waiting := slices.ContainsFunc(s.staged, func(st staged) bool { return st.epoch == e })
		if n <= through && !waiting {
			delete(s.unsynced, e)
		} else if e <= sealed {
			sealed = e - 1
		}
	}
	if sealed > s.sealed.Load() {
		s.sealed.Store(sealed)
	}
	return nil
}

// versionRef orders one version in a list of lists (a staged write:
// stages[s].writes[w]). hi and lo hold the first 16 bytes of its key
// (zero-padded), which usually decide, so sorting touches the keys
// themselves only on ties.
type versionRef struct {
	hi, lo uint64
	s, w   int32
}

// inStorageOrder calls fn with the writes of stages (in the order staged)
// in storage order, key ascending then epoch descending, and only with the
// last write staged for a key in an epoch. Pebble sorts a large batch
// before it commits, comparing entries it decodes from the batch with
// cache misses on each; handed over sorted, that sort is a linear scan
// (pdqsort detects ordered input), and a memtable takes sorted keys with
// fewer cache misses too.
func inStorageOrder(stages []staged, fn func(w Write, epoch uint64)) {
	n := 0
	for _, st := range stages {
		n += len(st.writes)
	}
	refs := make([]versionRef, 0, n)
	for i, st := range stages {
		for w := range st.writes {
			refs = append(refs, newVersionRef(st.writes[w].Key, i, w))
		}
	}
	key := func(r versionRef) []byte { return stages[r.s].writes[r.w].Key }
	epoch := func(r versionRef) uint64 { return stages[r.s].epoch }
	sortVersions(refs, key, epoch)
	for i, r := range refs {
		// Keep the first of each (key, epoch) run: the last one staged.
		if i > 0 && epoch(refs[i-1]) == epoch(r) && bytes.Equal(key(refs[i-1]), key(r)) {
			continue
		}
		fn(stages[r.s].writes[r.w], epoch(r))
	}
}

// newVersionRef returns the reference to item w of list s, whose key is k.
func newVersionRef(k []byte, s, w int) versionRef {
	hi, lo := abbreviate(k)
	return versionRef{hi: hi, lo: lo, s: int32(s), w: int32(w)}
}

// sortVersions sorts refs in storage order: key ascending, then epoch
// descending, then the later list and item first.
func sortVersions(refs []versionRef, key func(versionRef) []byte, epoch func(versionRef) uint64) {
	slices.SortFunc(refs, func(a, b versionRef) int {
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(epoch(b), epoch(a)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(b.w, a.w))
	})
}

// abbreviate returns the first 16 bytes of k as two big-endian integers,
// zero-padded.
func abbreviate(k []byte) (hi, lo uint64) {
	var b [16]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
}
