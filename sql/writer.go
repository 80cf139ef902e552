package sql

import (
	"context"
	"sync"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// tableWriter orders the writes into one table on its writer node. A
// statement holds mu while it reads the rows it changes and while its
// transaction's changes are sent into the table's stream, not while it
// waits for the commit: concurrent writers share commits (group commit).
// mu is only ever held that briefly, so waiting for it needs no
// cancellation and lets a newly arrived writer in first, which groups
// more writes per epoch. A transaction block owns the writers of the
// tables it wrote until it ends (owner): other writers of those tables
// wait for it, cancellably, and a wait that would close a cycle of blocks
// fails with 40P01. Rows changed by transactions sent but not yet
// committed stay in pending, which later writers read before the
// committed state, so that their changelog's old rows are the stream's
// current ones and key checks see every earlier write.
type tableWriter struct {
	mu sync.Mutex
	// owner is the transaction block that owns the writer (nil: none)
	// (under Engine.lockMu).
	owner *txn
	// pending maps a row key to the newest row sent for it (nil:
	// deleted) and the epoch that carries it (under mu).
	pending map[string]pendingRow
	// resets is the streaming's recovery count pending belongs to:
	// a recovery rolls back every epoch it holds.
	resets uint64
}

type pendingRow struct {
	row   []types.Datum
	epoch uint64
}

// tableWriter returns table id's writer.
func (e *Engine) tableWriter(id uint32) *tableWriter {
	v, _ := e.writers.LoadOrStore(id, &tableWriter{pending: map[string]pendingRow{}})
	return v.(*tableWriter)
}

// lock takes tw's mu for a statement of tx, the writer of table name,
// first waiting while another transaction block owns the writer; a
// block takes ownership. It fails with ctx's error, or with 40P01 for a
// wait that would close a cycle of blocks waiting for each other.
func (e *Engine) lock(ctx context.Context, name string, tw *tableWriter, tx *txn) error {
	for {
		tw.mu.Lock()
		e.lockMu.Lock()
		owner := tw.owner
		if owner == nil || owner == tx {
			if tx.block {
				tw.owner = tx
			}
			e.lockMu.Unlock()
			return nil
		}
		tw.mu.Unlock()
		// Each wait checks for the cycle it would close, and owners are
		// recorded before they can wait themselves: of the blocks closing
		// a cycle, the last to wait finds it.
		for h, n := owner, 0; h != nil && n <= maxWaitChain; n++ {
			if h == tx {
				e.lockMu.Unlock()
				return pgerror.New(pgerror.CodeDeadlockDetected, "deadlock detected").
					WithDetail("Process %d waits to write table %q, which the transaction of process %d writes, and that transaction waits, directly or not, for this one.", tx.pid, name, owner.pid).
					WithHint("Write the tables in the same order in every transaction.")
			}
			if h.waiting == nil {
				break
			}
			h = h.waiting.owner
		}
		tx.waiting = tw
		e.lockMu.Unlock()
		var err error
		select {
		case <-owner.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		e.lockMu.Lock()
		tx.waiting = nil
		e.lockMu.Unlock()
		if err != nil {
			return err
		}
	}
}

// maxWaitChain bounds the walk along transactions waiting for each other.
const maxWaitChain = 1 << 16

// disown ends tx's ownership of tw (under lockMu).
func (tw *tableWriter) disown(tx *txn) {
	if tw.owner == tx {
		tw.owner = nil
	}
}

// refresh forgets, under mu, what is committed since, or all of pending after
// a recovery (whose epochs it rolled back).
func (tw *tableWriter) refresh(committed, resets uint64) {
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

// lookup returns the row sent but not committed for key, if any.
func (tw *tableWriter) lookup(key string) (pendingRow, bool) {
	p, ok := tw.pending[key]
	return p, ok
}

// sent records a write set's changes as sent with epoch.
func (tw *tableWriter) sent(w *writeSet, epoch uint64) {
	for _, k := range w.order {
		tw.pending[k] = pendingRow{row: w.touched[k].new, epoch: epoch}
	}
}

// idle reports whether every write sent is committed.
func (tw *tableWriter) idle() bool { return len(tw.pending) == 0 }
