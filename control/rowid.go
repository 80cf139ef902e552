package control

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// rowIDKey is the node-local high-water mark of hidden row ids.
var rowIDKey = storage.AppendKey(nil, 0, 0, []byte("row_id"))

// loadRowIDs returns the allocator of hidden row ids of the node whose
// store is st. Ids continue from the latest high-water mark, committed or
// not: ids only have to be new.
func loadRowIDs(st *storage.Engine) (*rowIDs, error) {
	var next int64
	if v, ok, err := st.Get(rowIDKey, math.MaxUint64); err != nil {
		return nil, err
	} else if ok && len(v) == 8 {
		next = int64(binary.BigEndian.Uint64(v))
	}
	return newRowIDs(next), nil
}

// rowIDRun is about how many consecutive hidden row ids share a vnode.
const rowIDRun = 64

// rowIDStride orders the vnodes a block visits: coprime with the number
// of vnodes, it visits each once and spreads neighbours apart.
const rowIDStride = 97

// rowIDs hands out hidden row ids in blocks of rowIDRun per vnode: it takes
// the ids of a block by vnode, every id of one vnode (ascending) before
// the next vnode's, the vnodes in stride order. A statement's rows thus
// fall in runs within few vnodes, so their keys (table | vnode | row id)
// land in few places of the state store's sorted memtable, which makes
// inserting them cheap, while a view keyed by row id still spreads a large
// statement over its actors (which own ranges of vnodes). Ids are unique
// but not in order; an id is never reused, and those a block left unused
// when the node stopped are skipped.
type rowIDs struct {
	mu sync.Mutex
	// next is the first id after the current block: the high-water mark
	// recovery resumes from.
	next int64
	// free[v] holds the current block's unused ids of vnode v, ascending;
	// at is the vnode ids come from, visited how many vnodes of the block
	// have been.
	free    [][]int64
	at      int
	visited int
}

// newRowIDs returns an allocator whose ids start at next.
func newRowIDs(next int64) *rowIDs {
	return &rowIDs{next: next, free: make([][]int64, rowkey.VNodes), visited: rowkey.VNodes}
}

// take returns a new row id.
func (r *rowIDs) take() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.free[r.at]) == 0 {
		if r.visited == rowkey.VNodes {
			r.refill()
			continue
		}
		r.at = (r.at + rowIDStride) % rowkey.VNodes
		r.visited++
	}
	id := r.free[r.at][0]
	r.free[r.at] = r.free[r.at][1:]
	return id
}

// highWater returns the first id after every id handed out.
func (r *rowIDs) highWater() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.next
}

// advance has the ids continue at or after next: a node that takes over
// tables of another node continues after every id the other handed out.
func (r *rowIDs) advance(next int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if next <= r.next {
		return
	}
	for v := range r.free {
		r.free[v] = r.free[v][:0]
	}
	r.next, r.visited = next, rowkey.VNodes
}

// refill starts a new block: the rowIDRun ids per vnode after next.
func (r *rowIDs) refill() {
	for v := range r.free {
		r.free[v] = r.free[v][:0]
	}
	var key []byte
	end := r.next + rowIDRun*int64(rowkey.VNodes)
	for id := r.next; id < end; id++ {
		key = types.AppendKey(key[:0], types.NewInt(id), false)
		v := rowkey.VNode(key, rowkey.VNodes)
		r.free[v] = append(r.free[v], id)
	}
	r.next, r.visited = end, 1
}

// highWaterWrite is the write that records the high-water mark, staged
// with the epoch of every write that took ids.
func (r *rowIDs) highWaterWrite() []dataflow.Write {
	return []dataflow.Write{{Key: rowIDKey, Value: binary.BigEndian.AppendUint64(nil, uint64(r.highWater()))}}
}
