package sql

import (
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/types"
)

// writeSet collects a transaction's row changes to one table against the
// current state of the table (committed, then what is sent but not
// committed); they enter the table's stream as one chunk.
type writeSet struct {
	// mu guards the changes against the scans of a query of the
	// transaction, whose rows stream from a goroutine of their own.
	mu    sync.RWMutex
	e     *Engine
	t     *meta.Table
	tw    *tableWriter
	epoch uint64 // the committed epoch the current statement reads
	// touched holds, per key in first-touch order, the committed row (nil:
	// absent) and the transaction's last word on it (nil: deleted).
	touched map[string]*change
	order   []string
	key     []byte
	// fresh are the current statement's inserted rows keyed by new
	// hidden row ids, which neither the committed state nor another row
	// of the transaction holds.
	fresh [][]types.Datum
	rows  types.RowArena
}

type change struct {
	old, new []types.Datum
}

func (e *Engine) newWriteSet(t *meta.Table, tw *tableWriter) *writeSet {
	return &writeSet{e: e, t: t, tw: tw, epoch: e.ReadEpoch(), touched: map[string]*change{}}
}

func (w *writeSet) rowKey(row []types.Datum) string {
	w.key = rowkey.Table(w.key[:0], w.t.ID, w.t.PK, row)
	return string(w.key)
}

// touch returns the change record of key, reading its current row on
// first use: the one sent last if not committed yet, else the committed
// one.
func (w *writeSet) touch(key string) (*change, error) {
	if c, ok := w.touched[key]; ok {
		return c, nil
	}
	c := &change{}
	if p, ok := w.tw.lookup(key); ok {
		c.old, c.new = p.row, p.row
		w.add(key, c)
		return c, nil
	}
	v, ok, err := w.e.reader.Get([]byte(key), w.epoch)
	if err != nil {
		return nil, err
	}
	if ok {
		ts := make([]types.T, len(w.t.Columns))
		for i, col := range w.t.Columns {
			ts[i] = col.Type
		}
		if c.old, err = types.DecodeRow(v, ts, nil); err != nil {
			return nil, err
		}
		c.new = c.old
	}
	w.add(key, c)
	return c, nil
}

func (w *writeSet) add(key string, c *change) {
	w.mu.Lock()
	w.touched[key] = c
	w.order = append(w.order, key)
	w.mu.Unlock()
}

// settle files the rows the last statement inserted with new hidden row
// ids under their keys, so that later statements of the transaction may
// change them.
func (w *writeSet) settle() {
	for _, row := range w.fresh {
		w.add(w.rowKey(row), &change{new: row})
	}
	w.mu.Lock()
	w.fresh = nil
	w.mu.Unlock()
}

// freeze returns the transaction's changes as of now, as its scans of
// the table see them.
func (w *writeSet) freeze() *exec.TableChanges {
	w.mu.RLock()
	defer w.mu.RUnlock()
	keys := make(map[string]struct{}, len(w.order))
	rows := make([][]types.Datum, 0, len(w.order)+len(w.fresh))
	for _, k := range w.order {
		keys[k] = struct{}{}
		if row := w.touched[k].new; row != nil {
			rows = append(rows, row)
		}
	}
	rows = append(rows, w.fresh...)
	id, pk := w.t.ID, w.t.PK
	return &exec.TableChanges{Rows: rows, Replaced: func(row []types.Datum) bool {
		var buf [64]byte
		_, ok := keys[string(rowkey.Table(buf[:0], id, pk, row))]
		return ok
	}}
}

// exists reports whether key holds a row, counting this statement's changes.
func (w *writeSet) exists(key string) (bool, error) {
	c, err := w.touch(key)
	if err != nil {
		return false, err
	}
	return c.new != nil, nil
}

func (w *writeSet) set(key string, row []types.Datum) error {
	c, err := w.touch(key)
	if err != nil {
		return err
	}
	w.mu.Lock()
	c.new = row
	w.mu.Unlock()
	return nil
}

// checkNotNull enforces NOT NULL (primary key columns included) on a row
// of table t, with or without its hidden row id.
func checkNotNull(t *meta.Table, row []types.Datum) error {
	for i, v := range row {
		if !v.IsNull() {
			continue
		}
		c := t.Columns[i]
		notNull := c.NotNull
		for _, p := range t.PK {
			notNull = notNull || p == i
		}
		if notNull {
			return pgerror.New(pgerror.CodeNotNullViolation, "null value in column %q of relation %q violates not-null constraint", c.Name, t.Name).
				WithDetail("Failing row contains %s.", formatRow(t, row))
		}
	}
	return nil
}

func (w *writeSet) duplicate(row []types.Datum) error {
	var names, vals []string
	for _, i := range w.t.PK {
		names = append(names, w.t.Columns[i].Name)
		vals = append(vals, formatValue(w.t.Columns[i].Type, row[i]))
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
		parts = append(parts, formatValue(c.Type, row[i]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// formatValue renders a value of type t as PostgreSQL's error details do.
func formatValue(t types.T, v types.Datum) string {
	if v.IsNull() {
		return "null"
	}
	return string(types.FormatText(nil, t, v))
}

// changes turns the write set into changelog ops against the committed
// rows.
func (w *writeSet) changes() *control.Changes {
	c := control.NewChanges(len(w.order) + len(w.fresh))
	for _, row := range w.fresh {
		c.Insert(row)
	}
	for _, k := range w.order {
		ch := w.touched[k]
		switch {
		case ch.old == nil && ch.new != nil:
			c.Insert(ch.new)
		case ch.old != nil && ch.new == nil:
			c.Delete(ch.old)
		case ch.old != nil && !sameRow(ch.old, ch.new):
			c.Update(ch.old, ch.new)
		}
	}
	return c
}

// sameRow reports whether an update leaves a row as it was, each value in
// the same representation (an update of 1.50 to 1.500 is a change).
func sameRow(a, b []types.Datum) bool {
	for i := range a {
		if !types.Identical(a[i], b[i]) {
			return false
		}
	}
	return true
}

// conflictUpdate returns the existing row with ON CONFLICT DO UPDATE's
// assignments applied, evaluated over the existing row followed by the
// proposed one.
func conflictUpdate(c *expr.Ctx, sets []planner.Assignment, existing, proposed []types.Datum) ([]types.Datum, error) {
	both := append(slices.Clip(existing), proposed...)
	row := slices.Clone(existing)
	for _, s := range sets {
		v, err := s.Expr.Eval(c, both)
		if err != nil {
			return nil, err
		}
		row[s.Col] = v
	}
	return row, nil
}

// writerNode returns the node that runs the writer of a new table named
// name: the cluster's nodes share the tables by name.
func (e *Engine) writerNode(name string) string {
	nodes := control.ActiveNodes(e.Meta.Catalog())
	if len(nodes) == 0 {
		return e.Meta.NodeID()
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return nodes[h.Sum32()%uint32(len(nodes))].ID
}

// runDML executes a bound INSERT, UPDATE, DELETE or COPY as a
// transaction of its own, on the node that runs its table's writer, and
// returns its row count and the epoch that committed it; out collects the
// rows of its RETURNING list.
func (e *Engine) runDML(c *expr.Ctx, plan any, out *returned) (int64, uint64, error) {
	out.reset()
	tx := e.newTxn(0)
	n, err := tx.write(c, plan, out)
	if err != nil {
		tx.discard()
		return 0, 0, err
	}
	epoch, err := tx.commit(c.Context)
	return n, epoch, err
}

// update adds an UPDATE's changes to the write set and returns their
// count; out collects the RETURNING rows of the new rows.
func (w *writeSet) update(c *expr.Ctx, p *planner.Update, env *exec.Env, out *returned) (int64, error) {
	width := len(p.Table.Columns)
	rows, err := exec.Collect(c, planner.Build(p.Source, env))
	if err != nil {
		return 0, err
	}
	// Delete every old key first, so that rows may swap keys.
	newRows := make([][]types.Datum, len(rows))
	for i, r := range rows {
		if err := w.set(w.rowKey(r[:width]), nil); err != nil {
			return 0, err
		}
		newRows[i] = r[width:]
	}
	for _, r := range newRows {
		if err := checkNotNull(w.t, r); err != nil {
			return 0, err
		}
		key := w.rowKey(r)
		if dup, err := w.exists(key); err != nil {
			return 0, err
		} else if dup {
			return 0, w.duplicate(r)
		}
		if err := w.set(key, r); err != nil {
			return 0, err
		}
		if err := out.add(c, r); err != nil {
			return 0, err
		}
	}
	return int64(len(rows)), nil
}

// insert adds the rows src makes for p (its Source, built) to the write
// set and returns their count; out collects the RETURNING rows of the
// rows inserted or updated. Rows of a table with a hidden row id get new
// ids, so they need no key checks.
func (w *writeSet) insert(c *expr.Ctx, p *planner.Insert, src exec.Op, out *returned) (int64, error) {
	var n int64
	if w.t.HiddenRowID {
		err := src.Run(c, func(row []types.Datum) (bool, error) {
			full := w.e.stream.FullRow(w.t, &w.rows, row)
			if err := checkNotNull(w.t, full); err != nil {
				return false, err
			}
			if err := out.add(c, full); err != nil {
				return false, err
			}
			w.mu.Lock()
			w.fresh = append(w.fresh, full)
			w.mu.Unlock()
			n++
			return true, nil
		})
		return n, err
	}
	affected := map[string]bool{}
	err := src.Run(c, func(row []types.Datum) (bool, error) {
		full := w.e.stream.FullRow(w.t, &w.rows, row)
		if err := checkNotNull(w.t, full); err != nil {
			return false, err
		}
		key := w.rowKey(full)
		dup, err := w.exists(key)
		if err != nil {
			return false, err
		}
		switch {
		case dup && p.SkipConflicts:
			return true, nil
		case dup && p.OnConflict != nil:
			if affected[key] {
				return false, pgerror.New(pgerror.CodeCardinalityViolation, "ON CONFLICT DO UPDATE command cannot affect row a second time").
					WithHint("Ensure that no rows proposed for insertion within the same command have duplicate constrained values.")
			}
			ch, err := w.touch(key)
			if err != nil {
				return false, err
			}
			if full, err = conflictUpdate(c, p.OnConflict, ch.new, full); err != nil {
				return false, err
			}
			if err := checkNotNull(w.t, full); err != nil {
				return false, err
			}
		case dup:
			return false, w.duplicate(full)
		}
		if err := w.set(key, full); err != nil {
			return false, err
		}
		if err := out.add(c, full); err != nil {
			return false, err
		}
		affected[key] = true
		n++
		return true, nil
	})
	return n, err
}
