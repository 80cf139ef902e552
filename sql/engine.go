// Package sql runs SQL sessions: it parses statements with sql/parser,
// binds and plans them with planner, executes DDL through the Raft catalog
// (meta), runs queries over storage, and writes DML as epoch-versioned
// batches. It implements pgwire's Handler and Session interfaces.
package sql

import (
	"encoding/binary"
	"math"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/storage"
)

// Engine is a node's SQL engine: the catalog, the state store and the
// epoch clock that orders writes.
type Engine struct {
	Meta    *meta.Meta
	Storage *storage.Engine
	// Version is reported to clients as server_version.
	Version string

	// writeMu serializes DML: uniqueness checks and the epoch order.
	writeMu sync.Mutex
	// committed is the newest epoch whose writes are durable and visible.
	committed atomic.Uint64
	// nextRowID is the next hidden row id (guarded by writeMu).
	nextRowID int64
}

// System keys of the node-local metadata kept in storage.
var (
	epochKey = storage.AppendKey(nil, 0, 0, []byte("epoch"))
	rowIDKey = storage.AppendKey(nil, 0, 0, []byte("row_id"))
)

// NewEngine returns an engine over an open catalog and state store,
// recovering the epoch clock and id sequences from storage.
func NewEngine(m *meta.Meta, st *storage.Engine, version string) (*Engine, error) {
	e := &Engine{Meta: m, Storage: st, Version: version}
	for _, x := range []struct {
		key []byte
		set func(uint64)
	}{
		{epochKey, e.committed.Store},
		{rowIDKey, func(v uint64) { e.nextRowID = int64(v) }},
	} {
		v, ok, err := st.Get(x.key, math.MaxUint64)
		if err != nil {
			return nil, err
		}
		if ok && len(v) == 8 {
			x.set(binary.BigEndian.Uint64(v))
		}
	}
	return e, nil
}

// ReadEpoch returns the epoch a new statement reads at: the newest
// committed one.
func (e *Engine) ReadEpoch() uint64 { return e.committed.Load() }

// commit writes a DML batch at the next epoch, synced, together with the
// clock and id high-water marks. Callers hold writeMu.
func (e *Engine) commit(b *storage.Batch, epoch uint64) error {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], epoch)
	b.Put(epochKey, epoch, buf[:])
	binary.BigEndian.PutUint64(buf[:], uint64(e.nextRowID))
	b.Put(rowIDKey, epoch, buf[:])
	if err := b.Commit(true); err != nil {
		return err
	}
	e.committed.Store(epoch)
	return nil
}
