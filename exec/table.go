package exec

import (
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// VNodes is the default number of key groups of a table (DESIGN.md §3).
const VNodes = 256

// RowKey appends the storage key of a table row: table id, the vnode of
// its primary key, and the memcomparable primary key.
func RowKey(dst []byte, tableID uint32, pk []int, row []types.Datum) []byte {
	var pkBuf [64]byte
	key := pkBuf[:0]
	for _, i := range pk {
		key = types.AppendKey(key, row[i], false)
	}
	return storage.AppendKey(dst, tableID, types.VNode(key, VNodes), key)
}
