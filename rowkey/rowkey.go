// Package rowkey owns how a row becomes a key (DESIGN.md §3): the
// memcomparable encoding of its key columns, the key group (vnode) that
// encoding hashes to, and the storage key of a table row that puts them
// together. Batch scans, the dataflow's operators and exchanges, DML and
// rescaling all spell keys through it, so that they agree.
package rowkey

import (
	"github.com/cespare/xxhash/v2"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// VNodes is the default number of key groups of a table.
const VNodes = 256

// AppendCols appends the memcomparable encoding (ascending) of the columns
// cols of row to dst, and reports whether one of them is NULL.
func AppendCols(dst []byte, row []types.Datum, cols []int) ([]byte, bool) {
	null := false
	for _, c := range cols {
		null = null || row[c].IsNull()
		dst = types.AppendKey(dst, row[c], false)
	}
	return dst, null
}

// VNode returns the key group of an encoded key (AppendCols): xxhash64 of
// the encoding modulo groups, which must be between 1 and 65536.
func VNode(key []byte, groups int) uint16 {
	return uint16(xxhash.Sum64(key) % uint64(groups))
}

// Table appends the storage key of a table row: table id, the vnode of
// its primary key among VNodes, and the memcomparable primary key.
func Table(dst []byte, tableID uint32, pk []int, row []types.Datum) []byte {
	var buf [64]byte
	key, _ := AppendCols(buf[:0], row, pk)
	return storage.AppendKey(dst, tableID, VNode(key, VNodes), key)
}
