package sql

import (
	"context"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// tableWriter orders the writes into one table on its writer node. A
// transaction (a lone statement is one too) holds it from its first write
// into the table until its changes are sent into the table's stream, not
// while it waits for the commit: concurrent writers share commits (group
// commit). Rows changed by transactions sent but not yet committed stay
// in pending, which later writers read before the committed state, so
// that their changelog's old rows are the stream's current ones and key
// checks see every earlier write.
type tableWriter struct {
	// sem holds one token while a transaction holds the writer.
	sem chan struct{}
	// holder is the transaction that holds it (under Engine.lockMu).
	holder *txn
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

// tableWriter returns table id's writer.
func (e *Engine) tableWriter(id uint32) *tableWriter {
	v, _ := e.writers.LoadOrStore(id, &tableWriter{sem: make(chan struct{}, 1), pending: map[string]pendingRow{}})
	return v.(*tableWriter)
}

// acquire takes tw, the writer of table name, for tx, waiting while
// another transaction holds it. A wait that would close a cycle of
// transactions waiting for each other fails at once with 40P01, as
// PostgreSQL's deadlock detection does.
func (e *Engine) acquire(ctx context.Context, name string, tw *tableWriter, tx *txn) error {
	select {
	case tw.sem <- struct{}{}:
	default:
		if err := e.await(ctx, name, tw, tx); err != nil {
			return err
		}
	}
	e.lockMu.Lock()
	tw.holder = tx
	e.lockMu.Unlock()
	return nil
}

// await waits until tx has taken tw's token.
func (e *Engine) await(ctx context.Context, name string, tw *tableWriter, tx *txn) error {
	e.lockMu.Lock()
	// Each wait checks for the cycle it would close, and holders are
	// recorded before they can wait themselves: of the transactions
	// closing a cycle, the last to wait finds it.
	for h, n := tw.holder, 0; h != nil && n <= maxWaitChain; n++ {
		if h == tx {
			e.lockMu.Unlock()
			return pgerror.New(pgerror.CodeDeadlockDetected, "deadlock detected").
				WithDetail("Process %d waits to write table %q, which process %d holds, and that transaction waits, directly or not, for this one.", tx.pid, name, tw.holder.pid).
				WithHint("Write the tables in the same order in every transaction.")
		}
		if h.waiting == nil {
			break
		}
		h = h.waiting.holder
	}
	tx.waiting = tw
	e.lockMu.Unlock()
	var err error
	select {
	case tw.sem <- struct{}{}:
	case <-ctx.Done():
		err = ctx.Err()
	}
	e.lockMu.Lock()
	tx.waiting = nil
	e.lockMu.Unlock()
	return err
}

// maxWaitChain bounds the walk along transactions waiting for each other.
const maxWaitChain = 1 << 16

// release gives tw back.
func (e *Engine) release(tw *tableWriter) {
	e.lockMu.Lock()
	tw.holder = nil
	e.lockMu.Unlock()
	<-tw.sem
}

// refresh forgets, held, what is committed since, or all of pending after
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
