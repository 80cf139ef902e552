// Package exec runs batch (ad-hoc) query plans: a push-based tree of
// operators that stream rows into a callback, reading tables from storage
// at one epoch. The planner builds operator trees; the SQL layer runs them.
package exec

import (
	"context"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// Emit receives one output row. The slice is only valid during the call
// (operators reuse it); Emit returns false to stop the producer early.
type Emit func(row []types.Datum) (bool, error)

// Op is a batch operator.
type Op interface {
	// Run produces all rows into emit, or stops when emit returns false.
	Run(c *expr.Ctx, emit Emit) error
}

// Env is what operators read from storage: the engine and the epoch every
// table of the statement is read at (one consistent snapshot).
type Env struct {
	Engine storage.Reader
	Epoch  uint64
	// NoPushdown keeps table scans from handing their filters and
	// column lists to the nodes that hold the rows (RowReader).
	NoPushdown bool
	// Overlay, if set, holds the uncommitted writes of the statement's
	// transaction, which its table scans see over the committed rows.
	Overlay Overlay
}

// Overlay returns a transaction's uncommitted changes to a table, nil if
// it has none.
type Overlay func(tableID uint32) *TableChanges

// TableChanges are a transaction's uncommitted changes to one table, as
// of its statement's start.
type TableChanges struct {
	// Replaced reports whether the transaction wrote or deleted the row
	// with row's key: the committed row is not seen.
	Replaced func(row []types.Datum) bool
	// Rows are the rows the transaction wrote and has not deleted since.
	Rows [][]types.Datum
}

type envKey struct{}

// WithEnv returns a context carrying env for the operators run under it.
func WithEnv(ctx context.Context, env *Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// EnvFrom returns the Env carried by ctx.
func EnvFrom(ctx context.Context) *Env {
	env, _ := ctx.Value(envKey{}).(*Env)
	return env
}

// Collect runs op and returns copies of all its rows.
func Collect(c *expr.Ctx, op Op) ([][]types.Datum, error) {
	var rows [][]types.Datum
	err := op.Run(c, func(row []types.Datum) (bool, error) {
		rows = append(rows, append([]types.Datum(nil), row...))
		return true, nil
	})
	return rows, err
}

// checkCancel returns the context's error every 1024 rows.
type canceler struct{ n int }

func (k *canceler) check(c *expr.Ctx) error {
	k.n++
	if k.n&1023 == 0 && c.Context != nil {
		return c.Context.Err()
	}
	return nil
}
