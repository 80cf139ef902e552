package pgcdc

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Column is a column of the source: an upstream column of the same name.
type Column struct {
	Name string
	Type types.T
}

// maxBuffered bounds the changes a split buffers before its reader waits
// for them to be taken.
const maxBuffered = 64 << 10

// change is one buffered change: a row (nil for a bare position) that is
// a delete by key or an upsert, and, for the last change of a
// transaction, the end LSN that it completes.
type change struct {
	row []types.Datum
	del bool
	end int64
}

// Split reads the one split of a postgres-cdc source. A background reader
// (Open) buffers changes whole transactions at a time; NextChanges takes
// them on the source's goroutine, which also calls Offset and SetOffset.
type Split struct {
	cfg  Config
	cols []Column
	log  *slog.Logger
	// offset is the end LSN of the last transaction taken (0: snapshot
	// not done).
	offset int64
	// taking are the changes taken from ready, served from next on.
	taking []change
	next   int
	// committed is the highest offset reported durable.
	committed atomic.Int64

	mu    sync.Mutex
	room  *sync.Cond
	ready []change
}

// NewSplit returns the split of a source of cfg with columns cols.
func NewSplit(cfg Config, cols []Column) *Split {
	s := &Split{cfg: cfg, cols: cols, log: slog.Default().With("source", "postgres-cdc", "table", cfg.Schema+"."+cfg.Table)}
	s.room = sync.NewCond(&s.mu)
	return s
}

// Open starts the background reader, which runs until ctx ends.
func (s *Split) Open(ctx context.Context) {
	s.committed.Store(s.offset)
	r := &reader{split: s, pos: s.offset}
	go r.run(ctx)
	go func() {
		<-ctx.Done()
		s.mu.Lock()
		s.room.Broadcast()
		s.mu.Unlock()
	}()
}

// Next implements connector.Split for callers that ignore deletes.
func (s *Split) Next(rows [][]types.Datum) int {
	return s.NextChanges(rows, make([]bool, len(rows)))
}

// NextChanges writes up to len(rows) buffered changes into rows (each of
// the columns' width) and deletes and returns how many; 0 if none is
// buffered.
func (s *Split) NextChanges(rows [][]types.Datum, deletes []bool) int {
	n := 0
	for n < len(rows) {
		if s.next == len(s.taking) && !s.take() {
			break
		}
		c := s.taking[s.next]
		s.next++
		if c.end != 0 {
			s.offset = c.end
		}
		if c.row == nil {
			continue
		}
		copy(rows[n], c.row)
		deletes[n] = c.del
		n++
	}
	return n
}

// take moves the buffered changes to taking; false if there are none.
func (s *Split) take() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ready) == 0 {
		return false
	}
	clear(s.taking)
	s.taking, s.ready = s.ready, s.taking[:0]
	s.next = 0
	s.room.Broadcast()
	return true
}

// put buffers changes, waiting while the buffer is full; false once ctx
// ended.
func (s *Split) put(ctx context.Context, changes []change) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.ready) >= maxBuffered && ctx.Err() == nil {
		s.room.Wait()
	}
	s.ready = append(s.ready, changes...)
	return ctx.Err() == nil
}

// Offset is the end LSN of the last transaction taken whole, 0 until the
// snapshot is taken.
func (s *Split) Offset() int64 { return s.offset }

// SetOffset positions the split at a checkpointed offset, before Open;
// later calls (the source's pacing) keep the position.
func (s *Split) SetOffset(offset int64) { s.offset = offset }

// Done is false: a table's changes never end.
func (s *Split) Done() bool { return false }

// Pace is 0: changes are emitted as they come.
func (s *Split) Pace() time.Duration { return 0 }

// Committed reports that offset is durable in streamdb: the slot may be
// confirmed up to it.
func (s *Split) Committed(offset int64) {
	for {
		cur := s.committed.Load()
		if offset <= cur || s.committed.CompareAndSwap(cur, offset) {
			return
		}
	}
}
