package storage

import (
	"encoding/binary"

	"github.com/cockroachdb/pebble/v2"
)

// Batch collects versioned writes to commit atomically. It is not safe for
// concurrent use.
type Batch struct {
	b *pebble.Batch
}

// NewBatch returns an empty batch. Commit or Close it.
func (e *Engine) NewBatch() *Batch { return &Batch{b: e.db.NewBatch()} }

// NewBatchSized is NewBatch with room for writes whose WriteSizes add up
// to size: a large batch is not copied again and again as it grows.
func (e *Engine) NewBatchSized(size int) *Batch {
	if size == 0 {
		return e.NewBatch()
	}
	return &Batch{b: e.db.NewBatchWithSize(batchHeader + size)}
}

// batchHeader is the room a batch takes before its first write.
const batchHeader = 12

// WriteSize is what a Put of key and value takes in a batch (at most: its
// lengths are varints).
func WriteSize(key, value []byte) int {
	return 1 + 2*binary.MaxVarintLen32 + len(key) + keyOverhead + 1 + len(value)
}

// Put writes value as version epoch of key (a user key from AppendKey).
func (b *Batch) Put(key []byte, epoch uint64, value []byte) {
	b.set(key, epoch, valueLive, value)
}

// Delete writes a tombstone as version epoch of key: reads at epoch or later
// see the key as absent, reads at older epochs still see older versions.
func (b *Batch) Delete(key []byte, epoch uint64) {
	b.set(key, epoch, valueTombstone, nil)
}

// Purge deletes version epoch of key (a version no read needs any more,
// see Engine.Collect): unlike Delete, it leaves no version behind.
func (b *Batch) Purge(key []byte, epoch uint64) {
	op := b.b.DeleteDeferred(len(key) + keyOverhead)
	appendVersioned(op.Key[:0], key, epoch)
	_ = op.Finish() // fails only for indexed batches
}

// PurgeOnce is Purge of a version written once in this store (by one
// Put or Delete, never copied in again since): Pebble's single delete,
// which vanishes together with that write where they meet, instead of
// going down to the last level as a delete does. A version written twice
// could reappear.
func (b *Batch) PurgeOnce(key []byte, epoch uint64) {
	op := b.b.SingleDeleteDeferred(len(key) + keyOverhead)
	appendVersioned(op.Key[:0], key, epoch)
	_ = op.Finish() // fails only for indexed batches
}

func (b *Batch) set(key []byte, epoch uint64, tag byte, value []byte) {
	op := b.b.SetDeferred(len(key)+keyOverhead, 1+len(value))
	appendVersioned(op.Key[:0], key, epoch)
	op.Value[0] = tag
	copy(op.Value[1:], value)
	_ = op.Finish() // fails only for indexed batches
}

// Len returns the number of writes in the batch.
func (b *Batch) Len() int { return int(b.b.Count()) }

// Commit writes the batch atomically, durably when sync is set, and releases
// it: the batch must not be used afterwards.
func (b *Batch) Commit(sync bool) error {
	opts := pebble.NoSync
	if sync {
		opts = pebble.Sync
	}
	err := b.b.Commit(opts)
	if cerr := b.b.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close releases the batch without committing it.
func (b *Batch) Close() error { return b.b.Close() }
