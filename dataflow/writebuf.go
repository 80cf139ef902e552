package dataflow

import "github.com/streamdb/streamdb/types"

// writeBuf collects an epoch's writes, their keys and values copied into
// slabs, before they are staged with the store, and the versions they make
// obsolete, if its owner reports them (a StateTable), in another buffer.
// Slabs are filled one after the other and never copied to grow (an epoch
// of a view that writes every input row holds hundreds of MiB); the first
// of an epoch is as large as the last epoch wrote, since epochs tend to
// write alike, the next ones twice the one before, within [minSlab,
// maxSlab].
type writeBuf struct {
	slab   []byte
	writes []Write
	// size is the bytes written in this epoch, last those of the last
	// epoch staged.
	size, last int
	// tracks is set when the owner reports the obsolete versions of the
	// writes to stage: the store's collector then need not count them.
	tracks bool
	// obs encodes the obsolete versions (appendObsolete).
	obs []byte
}

// minSlab and maxSlab bound the size of a writeBuf's slabs; a larger
// write gets a slab of its own size.
const (
	minSlab = 4 << 10
	maxSlab = 4 << 20
)

// room makes sure the slab has room for n more bytes.
func (w *writeBuf) room(n int) {
	if cap(w.slab)-len(w.slab) >= n {
		return
	}
	size := 2 * cap(w.slab)
	if w.slab == nil {
		size = w.last
	}
	size = min(max(size, minSlab), maxSlab)
	w.slab = make([]byte, 0, max(size, n))
}

// copy appends b to the slab and returns the copy.
func (w *writeBuf) copy(b []byte) []byte {
	start := len(w.slab)
	w.slab = append(w.slab, b...)
	return w.slab[start:len(w.slab):len(w.slab)]
}

// put adds a write of row under key (copied).
func (w *writeBuf) put(key []byte, row []types.Datum) {
	// Most rows fit; one that does not moves the slab (the writes before
	// it keep the old one).
	w.room(len(key) + 16*len(row))
	k := w.copy(key)
	start := len(w.slab)
	w.slab = types.AppendRow(w.slab, row)
	w.add(Write{Key: k, Value: w.slab[start:len(w.slab):len(w.slab)]})
}

// putValue adds a write of an encoded, non-empty value under key (both
// copied).
func (w *writeBuf) putValue(key, value []byte) {
	w.room(len(key) + len(value))
	k := w.copy(key)
	w.add(Write{Key: k, Value: w.copy(value)})
}

// del adds a delete of key (copied).
func (w *writeBuf) del(key []byte) {
	w.room(len(key))
	w.add(Write{Key: w.copy(key)})
}

// add records write.
func (w *writeBuf) add(write Write) {
	w.writes = append(w.writes, write)
	w.size += len(write.Key) + len(write.Value)
}

// obsolete adds the versions of key (copied) that its change in the
// writes staged next makes obsolete (see appendObsolete).
func (w *writeBuf) obsolete(key []byte, superseded uint64, once, tombstone bool) {
	w.obs = appendObsolete(w.obs, key, superseded, once, tombstone)
}

// stage hands the writes and obsolete versions to the store for epoch
// and empties the buffers.
func (w *writeBuf) stage(store *Store, epoch uint64) {
	if len(w.writes) == 0 {
		return
	}
	if w.tracks {
		store.stageTracked(epoch, w.writes, w.obs)
		// The store keeps them too.
		w.obs = make([]byte, 0, len(w.obs))
	} else {
		store.Stage(epoch, w.writes)
	}
	// The store keeps the writes and the slabs.
	w.writes, w.slab = make([]Write, 0, len(w.writes)), nil
	w.last, w.size = w.size, 0
}
