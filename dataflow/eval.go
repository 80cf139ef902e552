package dataflow

import (
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// Evaluator evaluates expressions over the rows of a stream. An error in
// evaluating one row must not stop every job of the node, nor refuse the
// DML that brought the row, which other views may be fine with: as
// RisingWave does with data errors, the value becomes NULL and the error
// is counted and logged. Every error an expression raises is its row's
// data error: the planner has checked the types, so what is left depends
// on the values (class 22: division by zero, a failed cast, an overflow;
// 0A000: NaN or infinity cast to an integer, an unsupported unit; 54000: a
// string too long). Because expressions are deterministic, a retraction of
// the row fails the same way and retracts the same NULL. Only the end of
// the evaluation's context (the actor stops) is returned.
type Evaluator struct {
	Ctx *expr.Ctx
	// Errors counts the data errors; nil returns them instead.
	Errors *RowErrors
}

// Eval evaluates e over row.
func (ev *Evaluator) Eval(e expr.Expr, row []types.Datum) (types.Datum, error) {
	v, err := e.Eval(ev.Ctx, row)
	if err != nil && ev.tolerate(err) {
		return types.Null, nil
	}
	return v, err
}

// Holds reports whether the compiled condition t is true of row; a data
// error makes it not hold.
func (ev *Evaluator) Holds(t expr.Test, row []types.Datum) (bool, error) {
	v, err := t(ev.Ctx, row)
	if err != nil {
		if ev.tolerate(err) {
			return false, nil
		}
		return false, err
	}
	return v == expr.True, nil
}

// Accepts reports whether an aggregate's FILTER lets row in; a data error
// keeps the row out.
func (ev *Evaluator) Accepts(f *expr.AggFunc, row []types.Datum) (bool, error) {
	ok, err := f.Accepts(ev.Ctx, row)
	if err != nil && ev.tolerate(err) {
		return false, nil
	}
	return ok, err
}

// tolerate reports whether err, raised by evaluating an expression over a
// row, is the row's data error, counting it: any error unless the
// evaluation's context has ended.
func (ev *Evaluator) tolerate(err error) bool {
	if ev.Errors == nil || ev.Ctx.Context != nil && ev.Ctx.Context.Err() != nil {
		return false
	}
	ev.Errors.report(err)
	return true
}

// RowErrors counts a node's data errors in streaming rows and logs them, at
// most one line per logEvery.
type RowErrors struct {
	log     *slog.Logger
	count   atomic.Int64
	logged  atomic.Int64 // count when the last line was logged
	lastLog atomic.Int64 // unix nanoseconds
}

const logEvery = 10 * time.Second

// NewRowErrors returns a counter that logs to log.
func NewRowErrors(log *slog.Logger) *RowErrors { return &RowErrors{log: log} }

// Count returns how many row errors occurred.
func (r *RowErrors) Count() int64 { return r.count.Load() }

func (r *RowErrors) report(err error) {
	n := r.count.Add(1)
	now := time.Now().UnixNano()
	last := r.lastLog.Load()
	if now-last < int64(logEvery) || !r.lastLog.CompareAndSwap(last, now) {
		return
	}
	since := n - r.logged.Swap(n)
	r.log.Warn("expression error in a streaming row: the value is NULL", "err", err, "errors_since_last_report", since, "errors_total", n)
}
