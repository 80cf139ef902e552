package dataflow

import (
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// valueRows keeps an operator's rows in its state table ordered by a value
// of each, so that a moving bound walks only the rows it passes: a row
// lives under prefix in the vnode of its stream key, keyed by the value
// (memcomparable) then the stream key. The temporal and dynamic filters
// keep their rows this way.
type valueRows struct {
	state     *StateTable
	prefix    []byte
	streamKey []int
	groups    int
	sk, key   []byte
}

// apply stores row under value v for an insert, or removes it for a
// delete.
func (r *valueRows) apply(row []types.Datum, v types.Datum, insert bool) error {
	r.sk, _ = rowkey.AppendCols(r.sk[:0], row, r.streamKey)
	g, err := r.state.Group(distVNode(r.sk, len(r.streamKey), r.groups), r.prefix)
	if err != nil {
		return err
	}
	r.key = append(types.AppendKey(r.key[:0], v, false), r.sk...)
	if insert {
		g.Put(r.key, row)
	} else {
		g.Delete(r.key)
	}
	return nil
}
