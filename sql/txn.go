package sql

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// txn is a transaction's writes on this node: one write set per table it
// wrote. A transaction block (several statements: BEGIN ... COMMIT, or
// the implicit transaction of a pipeline) owns the writers of its tables
// until it ends, so that transactions writing one table run one after
// another (the second waits for the first's COMMIT or ROLLBACK); a lone
// statement holds its table's writer from its first read to its send.
// COMMIT sends every table's changes in one epoch: each view sees all of
// them or none. Reads inside the transaction see its writes over the
// committed rows (exec.Overlay).
type txn struct {
	e *Engine
	// pid is the process ID of the session, for deadlock reports.
	pid  int32
	sets []*writeSet
	// block marks a transaction block; done is closed when it ends,
	// which the writers waiting for its tables wait for.
	block bool
	done  chan struct{}
	// held are the writers whose mu the transaction holds now.
	held []*tableWriter
	// resets is the streaming's recovery count when the transaction took
	// its first writer: a recovery since may have rolled back rows it
	// read as sent.
	resets uint64
	// waiting is the writer the transaction waits for (under
	// Engine.lockMu).
	waiting *tableWriter
}

// newTxn returns a lone statement's transaction.
func (e *Engine) newTxn(pid int32) *txn { return &txn{e: e, pid: pid} }

// newBlock returns a transaction block of the session with process ID
// pid.
func (e *Engine) newBlock(pid int32) *txn {
	return &txn{e: e, pid: pid, block: true, done: make(chan struct{})}
}

// empty reports whether the transaction wrote nothing yet.
func (tx *txn) empty() bool { return tx == nil || len(tx.sets) == 0 }

// lock takes tw for the transaction (Engine.lock) and notes it held.
func (tx *txn) lock(ctx context.Context, name string, tw *tableWriter) error {
	if err := tx.e.lock(ctx, name, tw, tx); err != nil {
		return err
	}
	tx.held = append(tx.held, tw)
	return nil
}

// unlockAll lets go of the writers' mu the transaction holds (a block
// keeps owning them).
func (tx *txn) unlockAll() {
	for _, tw := range tx.held {
		tw.mu.Unlock()
	}
	tx.held = tx.held[:0]
}

// writeSet returns the transaction's write set of table t, holding its
// writer.
func (tx *txn) writeSet(ctx context.Context, t *meta.Table) (*writeSet, error) {
	for _, w := range tx.sets {
		if w.t.ID == t.ID {
			if err := tx.lock(ctx, t.Name, w.tw); err != nil {
				return nil, err
			}
			w.t = t
			w.settle()
			return w, nil
		}
	}
	tw := tx.e.tableWriter(t.ID)
	if err := tx.lock(ctx, t.Name, tw); err != nil {
		return nil, err
	}
	resets := tx.e.stream.Resets()
	if len(tx.sets) == 0 {
		tx.resets = resets
	}
	tw.refresh(tx.e.stream.Committed(), resets)
	w := tx.e.newWriteSet(t, tw)
	tx.sets = append(tx.sets, w)
	return w, nil
}

// write runs a bound INSERT, UPDATE, DELETE or COPY (on the node that
// runs its table's writer) and adds its changes to the transaction;
// it returns the statement's row count, and out collects the rows of its
// RETURNING list.
func (tx *txn) write(c *expr.Ctx, plan any, out *returned) (int64, error) {
	e, stmtCtx, t := tx.e, c.Context, dmlTable(plan)
	if tx.block {
		// A block keeps owning the writer between its statements.
		defer tx.unlockAll()
	}
	// After a (re)start or a recovery, the table's job runs again once the
	// controller has restarted it.
	select {
	case <-e.stream.Ready():
	case <-stmtCtx.Done():
		return 0, stmtCtx.Err()
	}
	w, err := tx.writeSet(stmtCtx, t)
	if err != nil {
		return 0, err
	}
	switch plan.(type) {
	case *planner.Update, *planner.Delete:
		// They choose their rows from the committed state: first every
		// write sent to the table must be committed (no lost update).
		if err := e.drain(stmtCtx, w.tw); err != nil {
			return 0, err
		}
	}
	w.epoch = e.ReadEpoch()
	defer e.reader.Hold(w.epoch)()
	env := &exec.Env{Engine: e.reader, Epoch: w.epoch, Overlay: tx.overlay()}
	if out != nil && env.Overlay != nil {
		// RETURNING's subqueries see the table as the statement found it:
		// its scans take the transaction's changes as of now.
		env.Overlay(t.ID)
	}
	c.Context = exec.WithEnv(c.Context, env)
	defer func() { c.Context = stmtCtx }()
	switch p := plan.(type) {
	case *planner.Insert:
		return w.insert(c, p, planner.Build(p.Source, env), out)
	case *copyPlan:
		return w.insert(c, p.ins, p.source(), nil)
	case *planner.Update:
		return w.update(c, p, env, out)
	case *planner.Delete:
		var n int64
		err := planner.Build(p.Source, env).Run(c, func(row []types.Datum) (bool, error) {
			n++
			if err := out.add(c, row); err != nil {
				return false, err
			}
			return true, w.set(w.rowKey(row), nil)
		})
		return n, err
	}
	return 0, fmt.Errorf("sql: unknown DML plan %T", plan)
}

// drain waits, holding tw, until every write sent to its table is
// committed.
func (e *Engine) drain(ctx context.Context, tw *tableWriter) error {
	for !tw.idle() {
		var last uint64
		for _, p := range tw.pending {
			last = max(last, p.epoch)
		}
		since := e.stream.Resets()
		err := e.stream.WaitWritten(ctx, last, since)
		if err != nil && !errors.Is(err, control.ErrRecovered) {
			return err
		}
		tw.refresh(e.stream.Committed(), e.stream.Resets())
	}
	return nil
}

// commit sends the transaction's changes into their tables' streams in
// one epoch, gives the writers back and returns that epoch once it is
// committed (the committed epoch if there was nothing to send). A
// recovery that rolled back what the transaction read or sent fails it
// with errRolledBack: nothing of it was applied.
func (tx *txn) commit(ctx context.Context) (uint64, error) {
	defer tx.discard()
	e := tx.e
	if tx.block {
		for _, w := range tx.sets {
			// The block owns them: this only waits for a statement of
			// another session that checks the ownership.
			if err := tx.lock(ctx, w.t.Name, w.tw); err != nil {
				return 0, err
			}
		}
	}
	var writes []control.TableChanges
	for _, w := range tx.sets {
		if c := w.changes(); c.Len() > 0 {
			writes = append(writes, control.TableChanges{Table: w.t, Changes: c})
		}
	}
	if len(writes) == 0 {
		return e.ReadEpoch(), nil
	}
	since := e.stream.Resets()
	if since != tx.resets {
		return 0, errRolledBack{}
	}
	epoch, err := e.stream.Write(ctx, writes)
	if errors.Is(err, control.ErrRecovered) {
		return 0, errRolledBack{}
	}
	if err != nil {
		return 0, err
	}
	for _, w := range tx.sets {
		w.tw.sent(w, epoch)
	}
	tx.discard()
	return epoch, e.waitWritten(ctx, epoch, since)
}

// discard gives the writers back; the changes not sent are dropped.
func (tx *txn) discard() {
	tx.unlockAll()
	if tx.block && tx.sets != nil {
		tx.e.lockMu.Lock()
		for _, w := range tx.sets {
			w.tw.disown(tx)
		}
		tx.e.lockMu.Unlock()
		close(tx.done)
	}
	tx.sets = nil
}

// overlay returns the transaction's changes as a statement's scans see
// them: each table's as they are when a scan of the statement first reads
// the table.
func (tx *txn) overlay() exec.Overlay {
	if tx.empty() {
		return nil
	}
	sets := slices.Clone(tx.sets)
	var mu sync.Mutex
	frozen := map[uint32]*exec.TableChanges{}
	return func(id uint32) *exec.TableChanges {
		mu.Lock()
		defer mu.Unlock()
		if tc, ok := frozen[id]; ok {
			return tc
		}
		var tc *exec.TableChanges
		for _, w := range sets {
			if w.t.ID == id {
				tc = w.freeze()
			}
		}
		frozen[id] = tc
		return tc
	}
}
