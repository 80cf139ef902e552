package sql

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// memRows serves result rows computed beforehand (utility statements, DML
// tags).
type memRows struct {
	rows [][]types.Datum
	next int
	tag  string
	// notices are sent to the client before the tag.
	notices []*pgerror.Error
}

// Notices implements pgwire.Noticer.
func (r *memRows) Notices() []*pgerror.Error { return r.notices }

// Next implements pgwire.Rows.
func (r *memRows) Next(context.Context) ([]types.Datum, error) {
	if r.next >= len(r.rows) {
		return nil, nil
	}
	r.next++
	return r.rows[r.next-1], nil
}

// Tag implements pgwire.Rows.
func (r *memRows) Tag() string { return r.tag }

// Close implements pgwire.Rows.
func (r *memRows) Close() {}

// streamBatch is how many rows a query hands to its client at once.
const streamBatch = 256

// streamedRows serves a query's rows while its plan runs on a goroutine of
// its own, handed over in batches: the client gets the first rows before
// the last are computed (or read from other nodes), and memory holds a
// batch or two rather than the whole result. An error after some rows
// reaches the client after them, as in PostgreSQL.
type streamedRows struct {
	s *Session
	// ctx is the statement's, which cancel ends: at Close, so that
	// statement_timeout covers sending the rows as well.
	ctx    context.Context
	cancel context.CancelFunc
	// batches carries the plan's rows; it is closed once the plan ended,
	// err saying how.
	batches chan [][]types.Datum
	err     error
	cur     [][]types.Datum
	next    int
	count   int64
}

// stream starts running op under c, whose context cancel ends.
func (s *Session) stream(c *expr.Ctx, cancel context.CancelFunc, op exec.Op) *streamedRows {
	r := &streamedRows{s: s, ctx: c.Context, cancel: cancel, batches: make(chan [][]types.Datum, 1)}
	release := func() {}
	if env := exec.EnvFrom(c.Context); env != nil {
		release = s.e.reader.Hold(env.Epoch)
	}
	go r.produce(c, op, release)
	return r
}

// produce runs op, sending its rows in batches of up to streamBatch, then
// calls release.
func (r *streamedRows) produce(c *expr.Ctx, op exec.Op, release func()) {
	defer release()
	defer close(r.batches)
	var arena types.RowArena
	batch := make([][]types.Datum, 0, streamBatch)
	send := func() bool {
		select {
		case r.batches <- batch:
			batch, arena = make([][]types.Datum, 0, streamBatch), types.RowArena{}
			return true
		case <-r.ctx.Done():
			return false
		}
	}
	err := func() (err error) {
		defer r.s.recoverInternal(&err)
		return op.Run(c, func(row []types.Datum) (bool, error) {
			batch = append(batch, append(arena.Row(len(row))[:0], row...))
			if len(batch) < streamBatch {
				return true, nil
			}
			if !send() {
				return false, r.ctx.Err()
			}
			return true, nil
		})
	}()
	// The rows before an error reach the client too, as in PostgreSQL. A
	// statement canceled before its last rows left fails (57014), rather
	// than end as if it had no more.
	if len(batch) > 0 && r.ctx.Err() == nil {
		send()
	}
	if err == nil {
		err = r.ctx.Err()
	}
	r.err = err
}

// Next implements pgwire.Rows and rowSource: it waits for the plan's next
// rows no longer than ctx allows.
func (r *streamedRows) Next(ctx context.Context) ([]types.Datum, error) {
	for r.next == len(r.cur) {
		var b [][]types.Datum
		var ok bool
		select {
		case b, ok = <-r.batches:
		case <-ctx.Done():
			return nil, r.s.fail(statementTimedOut(ctx, ctx.Err(), false))
		}
		if !ok {
			if r.err != nil {
				return nil, r.s.fail(statementTimedOut(r.ctx, r.err, false))
			}
			return nil, nil
		}
		r.cur, r.next = b, 0
	}
	r.next++
	r.count++
	return r.cur[r.next-1], nil
}

// streams marks rows that run past Open, until Close.
func (r *streamedRows) streams() {}

// rowCount implements copySource.
func (r *streamedRows) rowCount() int64 { return r.count }

// Tag implements pgwire.Rows.
func (r *streamedRows) Tag() string { return fmt.Sprintf("SELECT %d", r.count) }

// Close implements pgwire.Rows: it ends the statement, stopping its plan
// if the client did not take every row, and waits for it to stop.
func (r *streamedRows) Close() {
	r.cancel()
	for range r.batches {
	}
}
