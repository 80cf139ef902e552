package dataflow

import (
	"bytes"

	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// distVNode returns the vnode of an encoded distribution key of ncols
// columns among groups vnodes (rowkey.VNode); a key of no columns, whose
// operator runs as a single actor, is vnode 0.
func distVNode(key []byte, ncols, groups int) uint16 {
	if ncols == 0 {
		return 0
	}
	return rowkey.VNode(key, groups)
}

// rowComparer tells rows with identical values apart from rows that only
// compare equal (2.5 and 2.50, 0 and -0): an output row is re-emitted when
// its representation changes. Its buffers are reused between calls.
type rowComparer struct{ a, b []byte }

// identical reports whether x and y encode to the same row value.
func (rc *rowComparer) identical(x, y []types.Datum) bool {
	rc.a = types.AppendRow(rc.a[:0], x)
	rc.b = types.AppendRow(rc.b[:0], y)
	return bytes.Equal(rc.a, rc.b)
}
