package sql

import (
	"sync"

	"github.com/streamdb/streamdb/types"
)

// tableWriter orders the writes into one table on its writer node. A
// statement holds it while it reads the rows it changes and sends its
// changes into the table's stream, not while it waits for the commit:
// concurrent writers share commits (group commit). Rows changed by
// statements sent but not yet committed stay in pending, which later
// statements read before the committed state, so that their changelog's
// old rows are the stream's current ones and key checks see every
// earlier write.
type tableWriter struct {
	mu sync.Mutex
	// pending maps a row key to the newest row sent for it (nil:
	// deleted) and the epoch that carries it.
	pending map[string]pendingRow
	// resets is the streaming's recovery count pending belongs to:
	// a recovery rolls back every epoch it holds.
	resets uint64
}

type pendingRow struct {
	row   []types.Datum
	epoch uint64
}

// writer returns table id's writer.
func (e *Engine) tableWriter(id uint32) *tableWriter {
	v, _ := e.writers.LoadOrStore(id, &tableWriter{pending: map[string]pendingRow{}})
	return v.(*tableWriter)
}

// lock takes the writer and forgets what is committed since, or all of
// it after a recovery (whose epochs it rolled back).
func (tw *tableWriter) lock(committed, resets uint64) {
	tw.mu.Lock()
	if resets != tw.resets {
		tw.pending, tw.resets = map[string]pendingRow{}, resets
		return
	}
	for k, p := range tw.pending {
		if p.epoch <= committed {
			delete(tw.pending, k)
		}
	}
}

func (tw *tableWriter) unlock() { tw.mu.Unlock() }

// pendingRow returns the row sent but not committed for key, if any.
func (tw *tableWriter) lookup(key string) (pendingRow, bool) {
	p, ok := tw.pending[key]
	return p, ok
}

// sent records a statement's changes as sent with epoch.
func (tw *tableWriter) sent(w *writeSet, epoch uint64) {
	for _, k := range w.order {
		tw.pending[k] = pendingRow{row: w.touched[k].new, epoch: epoch}
	}
}

// idle reports whether every write sent is committed.
func (tw *tableWriter) idle() bool { return len(tw.pending) == 0 }
