// Package changes holds what every sink connector delivers: the changes
// of a sink's rows, each with the vnode and epoch that order it and make
// a replay recognizable (a target records what it received per vnode).
package changes

import "github.com/streamdb/streamdb/types"

// Change is one change a sink delivers: a row added (Insert) or removed.
type Change struct {
	VNode  uint16
	Epoch  uint64
	Insert bool
	Row    []types.Datum
}
