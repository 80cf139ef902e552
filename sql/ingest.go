package sql

import (
	"context"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Ingest is the bulk-load path for loaders and benchmarks: it sends rows
// into the stream of table (in the default schema) as inserts, in chunks
// (control.Streaming.Ingest), and returns the epoch that carries the last
// row (0 for no rows), without waiting for it to be committed and without
// asking for a barrier: the barrier interval decides when the rows are
// checkpointed (WaitCommitted makes them durable at once).
//
// Each row holds the table's visible columns in order, with values of the
// columns' types; a hidden row id is assigned as for INSERT. Every row is
// checked for width and NOT NULL before any is sent, but primary keys are
// not checked: callers guarantee that keys are new and unique, or the
// table and its views diverge. Rows are kept, not copied: callers must not
// modify them afterwards. If sending fails (ctx ends, streaming stopped),
// the chunks sent before stay sent.
func (e *Engine) Ingest(ctx context.Context, table string, rows [][]types.Datum) (epoch uint64, err error) {
	t, ok := e.Meta.Catalog().Table(meta.DefaultSchema, table)
	if !ok {
		return 0, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", table)
	}
	if t.Kind != meta.KindTable {
		return 0, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a table", table).
			WithHint("Rows can only be loaded into tables; views follow their tables.")
	}
	if c := t.Connector(); c != "" {
		return 0, pgerror.New(pgerror.CodeFeatureNotSupported, "cannot load rows into table %q: its rows come from connector %s", table, c)
	}
	width := t.Width()
	for _, row := range rows {
		if len(row) != width {
			return 0, pgerror.New(pgerror.CodeSyntaxError, "a row for %q has %d values, the table has %d columns", table, len(row), width)
		}
		if err := checkNotNull(t, row); err != nil {
			return 0, err
		}
	}
	tw := e.tableWriter(t.ID)
	if err := e.lock(ctx, t.Name, tw, e.newTxn(0)); err != nil {
		return 0, err
	}
	defer tw.mu.Unlock()
	return e.stream.Ingest(ctx, t, rows)
}
