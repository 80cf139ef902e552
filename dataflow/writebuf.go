package dataflow

import "github.com/streamdb/streamdb/types"

// writeBuf collects an epoch's writes in one buffer before they are staged
// with the store, and the versions they make obsolete, if its owner
// reports them (a StateTable), in another.
type writeBuf struct {
	buf   []byte
	spans []writeSpan
	// tracks is set when the owner reports the obsolete versions of the
	// writes to stage: the store's collector then need not count them.
	tracks bool
	// obs encodes the obsolete versions (appendObsolete).
	obs []byte
}

// writeSpan locates one write in writeBuf.buf: the key is buf[key:value],
// the value buf[value:end]. An encoded row is never empty, so value == end
// marks a delete.
type writeSpan struct{ key, value, end int }

// put adds a write of row under key (copied).
func (w *writeBuf) put(key []byte, row []types.Datum) {
	s := writeSpan{key: len(w.buf)}
	w.buf = append(w.buf, key...)
	s.value = len(w.buf)
	w.buf = types.AppendRow(w.buf, row)
	s.end = len(w.buf)
	w.spans = append(w.spans, s)
}

// putValue adds a write of an encoded, non-empty value under key (both
// copied).
func (w *writeBuf) putValue(key, value []byte) {
	s := writeSpan{key: len(w.buf)}
	w.buf = append(w.buf, key...)
	s.value = len(w.buf)
	w.buf = append(w.buf, value...)
	s.end = len(w.buf)
	w.spans = append(w.spans, s)
}

// del adds a delete of key (copied).
func (w *writeBuf) del(key []byte) {
	s := writeSpan{key: len(w.buf)}
	w.buf = append(w.buf, key...)
	s.value, s.end = len(w.buf), len(w.buf)
	w.spans = append(w.spans, s)
}

// obsolete adds the versions of key (copied) that its change in the
// writes staged next makes obsolete (see appendObsolete).
func (w *writeBuf) obsolete(key []byte, superseded uint64, once, tombstone bool) {
	w.obs = appendObsolete(w.obs, key, superseded, once, tombstone)
}

// stage hands the writes and obsolete versions to the store for epoch
// and empties the buffers.
func (w *writeBuf) stage(store *Store, epoch uint64) {
	if len(w.spans) == 0 {
		return
	}
	writes := make([]Write, len(w.spans))
	for i, s := range w.spans {
		writes[i].Key = w.buf[s.key:s.value:s.value]
		if s.end > s.value {
			writes[i].Value = w.buf[s.value:s.end:s.end]
		}
	}
	if w.tracks {
		store.stageTracked(epoch, writes, w.obs)
		// The store keeps them too.
		w.obs = make([]byte, 0, len(w.obs))
	} else {
		store.Stage(epoch, writes)
	}
	// The store keeps the writes: start a new buffer, as large as this
	// one, since epochs tend to write alike.
	w.buf, w.spans = make([]byte, 0, len(w.buf)), w.spans[:0]
}
