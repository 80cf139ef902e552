package storage

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// BenchmarkGet measures point reads of keys in the memtable, as a
// primary key check before an INSERT does.
func BenchmarkGet(b *testing.B) {
	e, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	const n = 400000
	key := func(i uint64) []byte {
		return AppendKey(nil, 7, uint16(i%256), binary.BigEndian.AppendUint64([]byte{0x12}, i*2654435761))
	}
	batch := e.NewBatch()
	for i := range uint64(n) {
		batch.Put(key(i), 1+i/1000, make([]byte, 100))
	}
	if err := batch.Commit(false); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for range b.N {
		if _, _, err := e.Get(key(r.Uint64N(2*n)), 1000); err != nil {
			b.Fatal(err)
		}
	}
}
