package storage

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// Version garbage collection. Each checkpoint adds a version of every key
// it changes, and Pebble has no compaction filter to drop the versions no
// read needs any more, so they are deleted explicitly: Collect, at a
// horizon epoch h, deletes every version that a read at h or later cannot
// see (those below a key's newest version at or before h), and that
// newest version too when it is a tombstone (a read at h or later finds
// the key absent either way). Pebble then drops the deleted versions in
// its compactions, so the store holds about one version per live key
// instead of one per change, and compactions stop rewriting the garbage
// of every earlier epoch.
//
// A read at an epoch older than a horizon already used may miss versions:
// Pin keeps the horizon at or below an epoch while a read of several
// iterators (a scan of many vnode runs, a chain of migration deltas)
// needs it, and refuses an epoch the collector has passed (ErrCollected).
// A single Scan or Get is one Pebble iterator, a consistent view of the
// store as it was when it began, so it needs no pin when its epoch is at
// or after the horizon then; it fails with ErrCollected when it is not.

// ErrCollected reports a read at an epoch whose versions the collector
// may have deleted: the read must start again at a newer epoch.
var ErrCollected = errors.New("storage: versions of that epoch were garbage-collected")

// horizon is the registry of pins and the newest horizon used.
type horizon struct {
	mu   sync.Mutex
	pins map[uint64]int
	// floor is the newest horizon a collection used: reads at older
	// epochs may miss versions. It changes under mu.
	floor atomic.Uint64
}

// check returns ErrCollected if a read at epoch, whose iterator is open,
// may miss versions: a collection went past epoch before the iterator
// opened (after, the iterator does not see its deletions).
func (h *horizon) check(epoch uint64) error {
	if floor := h.floor.Load(); epoch < floor {
		return fmt.Errorf("%w (epoch %d, collected up to %d)", ErrCollected, epoch, floor)
	}
	return nil
}

// Pin keeps every version that a read at epoch needs until unpin is
// called (once). It fails with ErrCollected if a collection already went
// past epoch.
func (e *Engine) Pin(epoch uint64) (unpin func(), err error) {
	h := &e.horizon
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.check(epoch); err != nil {
		return nil, err
	}
	if h.pins == nil {
		h.pins = map[uint64]int{}
	}
	h.pins[epoch]++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			if h.pins[epoch]--; h.pins[epoch] == 0 {
				delete(h.pins, epoch)
			}
		})
	}, nil
}

// Horizon returns the horizon a collection at most at limit may use: limit
// lowered to the oldest pin. Reads at older epochs are refused from then
// on (Pin); the caller deletes only versions no read at the horizon or
// later needs.
func (e *Engine) Horizon(limit uint64) uint64 { return e.horizon.use(limit) }

// PinFor is Pin for at most d: the pin goes by itself then, if unpin was
// not called before (a pin its holder renews while it lives, and which
// must not outlive a holder that stopped without unpinning).
func (e *Engine) PinFor(epoch uint64, d time.Duration) (unpin func(), err error) {
	release, err := e.Pin(epoch)
	if err != nil {
		return nil, err
	}
	t := time.AfterFunc(d, release)
	return func() {
		t.Stop()
		release()
	}, nil
}

// use returns the horizon a collection at most at limit may use, the
// oldest pin bounding it, and raises the floor to it.
func (h *horizon) use(limit uint64) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	for p := range h.pins {
		limit = min(limit, p)
	}
	if limit > h.floor.Load() {
		h.floor.Store(limit)
	}
	return limit
}

// CollectStats counts what a collection found.
type CollectStats struct {
	// Live is the number of keys live at the horizon; Deleted the
	// number of versions deleted.
	Live, Deleted int
	// Horizon is the horizon used (the limit, or an older pin).
	Horizon uint64
}

// collectBatch is the most deletes a collection commits at once.
const collectBatch = 4096

// Collect deletes, in [lower, upper) (user keys; nil bounds are open),
// the versions that no read at limit or later can see, limit lowered to
// the oldest pin. The deletes are not synced: a crash that loses them
// leaves garbage, nothing wrong. limit must be a committed epoch that no
// recovery rolls back past, and a migration's or a durable checkpoint's
// delta must not span it (see the package's callers).
func (e *Engine) Collect(lower, upper []byte, limit uint64) (CollectStats, error) {
	st := CollectStats{Horizon: e.horizon.use(limit)}
	it, err := e.db.NewIter(boundsOptions(lower, upper))
	if err != nil {
		return st, err
	}
	defer it.Close()
	b := e.db.NewBatch()
	defer func() { b.Close() }()
	// key is the user key of the versions being read; seen is set once
	// its newest version at or before the horizon was read (each older
	// one is garbage).
	var key []byte
	seen := false
	for valid := it.First(); valid; valid = it.Next() {
		k := it.Key()
		p := split(k)
		if p == len(k) {
			continue // a bare key: not a version
		}
		if string(k[:p-1]) != string(key) {
			key, seen = append(key[:0], k[:p-1]...), false
		}
		if seen {
			lv := it.LazyValue() // its length, without reading a value stored apart
			if err := b.DeleteSized(k, uint32(lv.Len()), nil); err != nil {
				return st, err
			}
			st.Deleted++
		} else if versionEpoch(k) <= st.Horizon {
			seen = true
			v, err := it.ValueAndErr()
			if err != nil {
				return st, err
			}
			if v[0] == valueTombstone {
				if err := b.DeleteSized(k, uint32(len(v)), nil); err != nil {
					return st, err
				}
				st.Deleted++
			} else {
				st.Live++
			}
		}
		if b.Count() >= collectBatch {
			if err := b.Commit(pebble.NoSync); err != nil {
				return st, err
			}
			b.Close()
			b = e.db.NewBatch()
		}
	}
	if err := it.Error(); err != nil {
		return st, err
	}
	if b.Count() == 0 {
		return st, nil
	}
	return st, b.Commit(pebble.NoSync)
}
