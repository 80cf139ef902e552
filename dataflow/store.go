package dataflow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/storage"
)

// Store is the node's state store over storage.Engine: state tables stage
// their per-epoch deltas here; the checkpoint writes everything staged for
// an epoch in one synced Pebble batch. It also keeps the node's budget for
// the groups state tables cache (see stateCache).
type Store struct {
	engine *storage.Engine
	mu     sync.Mutex
	staged map[uint64][]Write
	// onPressure asks for an early barrier (nil: none); pressured is set
	// once it was asked until the next seal.
	onPressure func()
	pressured  atomic.Bool
	// sealed is the newest epoch up to which every staged write is in
	// storage; written under mu.
	sealed atomic.Uint64
	cache  stateCache
}

// Write is one staged change of a state table.
type Write struct {
	// Key is the storage user key: table | vnode | memcomparable key.
	Key []byte
	// Value is the encoded row; nil deletes the key.
	Value []byte
}

// NewStore returns a store over e with nothing staged and a cache budget
// of DefaultCacheBytes.
func NewStore(e *storage.Engine) *Store {
	s := &Store{engine: e, staged: map[uint64][]Write{}}
	s.cache.budget.Store(DefaultCacheBytes)
	return s
}

// Engine returns the underlying storage engine.
func (s *Store) Engine() *storage.Engine { return s.engine }

// Stage adds writes to epoch's delta. The store keeps the slices: callers
// must not modify them afterwards. Writes of one epoch are applied in the
// order staged, so a later write of a key wins; they must be staged before
// the epoch is sealed (else the cache may take them for sealed). Safe for
// concurrent use.
func (s *Store) Stage(epoch uint64, writes []Write) {
	if len(writes) == 0 {
		return
	}
	s.mu.Lock()
	s.staged[epoch] = append(s.staged[epoch], writes...)
	s.mu.Unlock()
}

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
// own epoch, in one synced batch, together with whatever extra adds to the
// batch (nil: nothing). Once it returns without error, reads see the writes
// and they are no longer staged; on error they stay staged.
func (s *Store) Seal(epoch uint64, extra func(*storage.Batch)) error {
	s.mu.Lock()
	var epochs []uint64
	for e := range s.staged {
		if e <= epoch {
			epochs = append(epochs, e)
		}
	}
	sort.Slice(epochs, func(i, j int) bool { return epochs[i] < epochs[j] })
	writes := make([][]Write, len(epochs))
	for i, e := range epochs {
		writes[i] = s.staged[e]
	}
	s.mu.Unlock()

	b := s.engine.NewBatch()
	inStorageOrder(epochs, writes, func(w Write, epoch uint64) {
		if w.Value == nil {
			b.Delete(w.Key, epoch)
		} else {
			b.Put(w.Key, epoch, w.Value)
		}
	})
	if extra != nil {
		extra(b)
	}
	if err := b.Commit(true); err != nil {
		return err
	}

	s.mu.Lock()
	s.pressured.Store(false)
	for i, e := range epochs {
		// Writes staged for e while the batch was written stay staged.
		if rest := s.staged[e][len(writes[i]):]; len(rest) > 0 {
			s.staged[e] = rest
		} else {
			delete(s.staged, e)
		}
	}
	through := epoch
	for e := range s.staged {
		if e <= through {
			through = e - 1
		}
	}
	if through > s.sealed.Load() {
		s.sealed.Store(through)
	}
	s.mu.Unlock()
	return nil
}

// versionRef orders one staged write: writes[e][w], staged for epochs[e].
// hi and lo hold the first 16 bytes of its key (zero-padded), which
// usually decide, so sorting touches the keys themselves only on ties.
type versionRef struct {
	hi, lo uint64
	e, w   int32
}

// inStorageOrder calls fn with the writes of epochs (writes[i] staged for
// epochs[i]) in storage order, key ascending then epoch descending, and
// only with the last write staged for a key in an epoch. Pebble sorts a
// large batch before it commits, comparing entries it decodes from the
// batch with cache misses on each; handed over sorted, that sort is a
// linear scan (pdqsort detects ordered input).
func inStorageOrder(epochs []uint64, writes [][]Write, fn func(w Write, epoch uint64)) {
	n := 0
	for _, ws := range writes {
		n += len(ws)
	}
	refs := make([]versionRef, 0, n)
	for e, ws := range writes {
		for w := range ws {
			hi, lo := abbreviate(ws[w].Key)
			refs = append(refs, versionRef{hi: hi, lo: lo, e: int32(e), w: int32(w)})
		}
	}
	key := func(r versionRef) []byte { return writes[r.e][r.w].Key }
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
		// epochs ascend with e; within an epoch, later staged first.
		if c := cmp.Compare(b.e, a.e); c != 0 {
			return c
		}
		return cmp.Compare(b.w, a.w)
	})
	for i, r := range refs {
		// Keep the first of each (key, epoch) run: the last one staged.
		if i > 0 && refs[i-1].e == r.e && bytes.Equal(key(refs[i-1]), key(r)) {
			continue
		}
		fn(writes[r.e][r.w], epochs[r.e])
	}
}

// abbreviate returns the first 16 bytes of k as two big-endian integers,
// zero-padded.
func abbreviate(k []byte) (hi, lo uint64) {
	var b [16]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
}
