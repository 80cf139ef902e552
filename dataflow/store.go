package dataflow

import (
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
	for i, e := range epochs {
		for _, w := range writes[i] {
			if w.Value == nil {
				b.Delete(w.Key, e)
			} else {
				b.Put(w.Key, e, w.Value)
			}
		}
	}
	if extra != nil {
		extra(b)
	}
	if err := b.Commit(true); err != nil {
		return err
	}

	s.mu.Lock()
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
