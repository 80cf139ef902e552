package sql

import (
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// writeSet collects one statement's row changes before they are committed
// in one batch at one epoch.
type writeSet struct {
	e     *Engine
	t     *meta.Table
	epoch uint64
	// final holds the statement's last word on each key (nil row: deleted),
	// in first-touch order.
	final map[string][]types.Datum
	order []string
	key   []byte
}

func (e *Engine) newWriteSet(t *meta.Table) *writeSet {
	return &writeSet{e: e, t: t, epoch: e.committed.Load() + 1, final: map[string][]types.Datum{}}
}

func (w *writeSet) rowKey(row []types.Datum) string {
	w.key = exec.RowKey(w.key[:0], w.t.ID, w.t.PK, row)
	return string(w.key)
}

// exists reports whether key holds a row, counting this statement's changes.
func (w *writeSet) exists(key string) (bool, error) {
	if row, ok := w.final[key]; ok {
		return row != nil, nil
	}
	_, ok, err := w.e.Storage.Get([]byte(key), w.epoch-1)
	return ok, err
}

func (w *writeSet) set(key string, row []types.Datum) {
	if _, ok := w.final[key]; !ok {
		w.order = append(w.order, key)
	}
	w.final[key] = row
}

// check enforces NOT NULL (primary key columns included).
func (w *writeSet) check(row []types.Datum) error {
	for i, c := range w.t.Columns {
		if !row[i].IsNull() {
			continue
		}
		notNull := c.NotNull
		for _, p := range w.t.PK {
			notNull = notNull || p == i
		}
		if notNull {
			return pgerror.New(pgerror.CodeNotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, w.t.Name).
				WithDetail("Failing row contains %s.", formatRow(w.t, row))
		}
	}
	return nil
}

func (w *writeSet) duplicate(row []types.Datum) error {
	var names, vals []string
	for _, i := range w.t.PK {
		names = append(names, w.t.Columns[i].Name)
		vals = append(vals, row[i].String())
	}
	return pgerror.New(pgerror.CodeUniqueViolation, "duplicate key value violates unique constraint %q", w.t.Name+"_pkey").
		WithDetail("Key (%s)=(%s) already exists.", strings.Join(names, ", "), strings.Join(vals, ", "))
}

func formatRow(t *meta.Table, row []types.Datum) string {
	var parts []string
	for i, c := range t.Columns {
		if c.Hidden {
			continue
		}
		if row[i].IsNull() {
			parts = append(parts, "null")
		} else {
			parts = append(parts, string(types.FormatText(nil, c.Type, row[i])))
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// flush commits the write set at its epoch.
func (w *writeSet) flush() error {
	if len(w.order) == 0 {
		return nil
	}
	b := w.e.Storage.NewBatch()
	defer b.Close()
	var val []byte
	for _, k := range w.order {
		row := w.final[k]
		if row == nil {
			b.Delete([]byte(k), w.epoch)
			continue
		}
		val = types.AppendRow(val[:0], row)
		b.Put([]byte(k), w.epoch, val)
	}
	return w.e.commit(b, w.epoch)
}

// runDML executes a bound INSERT, UPDATE or DELETE and returns its row count.
func (e *Engine) runDML(c *expr.Ctx, plan any) (int64, error) {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	c.Context = exec.WithEnv(c.Context, &exec.Env{Engine: e.Storage, Epoch: e.committed.Load()})
	var n int64
	var w *writeSet
	var err error
	switch p := plan.(type) {
	case *planner.Insert:
		w = e.newWriteSet(p.Table)
		err = planner.Build(p.Source).Run(c, func(row []types.Datum) (bool, error) {
			full := append(make([]types.Datum, 0, len(p.Table.Columns)), row...)
			if p.Table.HiddenRowID {
				full = append(full, types.NewInt(e.nextRowID))
				e.nextRowID++
			}
			if err := w.check(full); err != nil {
				return false, err
			}
			key := w.rowKey(full)
			dup, err := w.exists(key)
			if err != nil {
				return false, err
			}
			if dup {
				return false, w.duplicate(full)
			}
			w.set(key, full)
			n++
			return true, nil
		})
	case *planner.Update:
		w = e.newWriteSet(p.Table)
		width := len(p.Table.Columns)
		var rows [][]types.Datum
		if rows, err = exec.Collect(c, planner.Build(p.Source)); err != nil {
			return 0, err
		}
		// Delete every old key first, so that rows may swap keys.
		newRows := make([][]types.Datum, len(rows))
		newKeys := make([]string, len(rows))
		for i, r := range rows {
			w.set(w.rowKey(r[:width]), nil)
			newRows[i] = r[width:]
		}
		for i, r := range newRows {
			if err := w.check(r); err != nil {
				return 0, err
			}
			newKeys[i] = w.rowKey(r)
			if dup, err := w.exists(newKeys[i]); err != nil {
				return 0, err
			} else if dup {
				return 0, w.duplicate(r)
			}
			w.set(newKeys[i], r)
		}
		n = int64(len(rows))
	case *planner.Delete:
		w = e.newWriteSet(p.Table)
		err = planner.Build(p.Source).Run(c, func(row []types.Datum) (bool, error) {
			w.set(w.rowKey(row), nil)
			n++
			return true, nil
		})
	default:
		return 0, fmt.Errorf("sql: unknown DML plan %T", plan)
	}
	if err != nil {
		return 0, err
	}
	return n, w.flush()
}
