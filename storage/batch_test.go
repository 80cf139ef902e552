package storage

import (
	"bytes"
	"testing"
)

// TestWriteSizeBoundsBatch checks that a batch sized by WriteSize holds
// its writes without growing: every key and value length, across the
// varint widths of their lengths.
func TestWriteSizeBoundsBatch(t *testing.T) {
	e := openTest(t, t.TempDir())
	defer e.Close()
	for _, kl := range []int{0, 1, 117, 118, 16373, 16374} {
		for _, vl := range []int{0, 1, 126, 127, 16382, 16383, 1 << 20} {
			key, value := bytes.Repeat([]byte{'k'}, kl), bytes.Repeat([]byte{'v'}, vl)
			size := WriteSize(key, value)
			b := e.NewBatchSized(2 * size)
			b.Put(key, 7, value)
			b.Delete(key, 8)
			if got := len(b.b.Repr()); got > batchHeader+2*size {
				t.Errorf("key %d bytes, value %d: the batch takes %d bytes, WriteSize allows %d", kl, vl, got, batchHeader+2*size)
			}
			b.Close()
		}
	}
}
