// Package pgsink delivers a sink's changes into a PostgreSQL table over
// pgx, exactly once: each delivery is one transaction that also records,
// per vnode, the last epoch the table holds (in the table
// streamdb_sink_progress of the target database), so a delivery replayed
// after a recovery or a rescale skips what is already there. An upsert
// sink applies each key's last change of a delivery (INSERT ... ON
// CONFLICT DO UPDATE, DELETE); an append-only one inserts.
package pgsink

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// ProgressTable is the table of the target database where each sink
// records, per vnode, the last epoch delivered.
const ProgressTable = "streamdb_sink_progress"

// Config is a validated PostgreSQL sink.
type Config struct {
	connString string
	table      pgx.Identifier
	cols       []changes.Column
	// key indexes cols: the target's key for an upsert sink, nil for an
	// append-only one.
	key []int
	// forceAppend drops deletes of a stream that has them.
	forceAppend bool
	// batchRows bounds the rows of one statement.
	batchRows int
}

// The options of the sink; the url's pieces may be given one by one
// (RisingWave's spelling).
var knownOptions = []string{"connector", "url", "jdbc.url", "table", "table.name", "schema", "schema.name", "type", "primary_key",
	"force_append_only", "host", "hostname", "port", "user", "username", "password", "database", "database.name", "batch.rows"}

// Parse validates a sink's options for rows cols; appendOnly tells
// whether the sink's stream only inserts.
func Parse(opts map[string]string, cols []changes.Column, appendOnly bool) (*Config, error) {
	if err := changes.CheckOptions("postgres", opts, knownOptions); err != nil {
		return nil, err
	}
	c := &Config{cols: cols, batchRows: 500}
	var err error
	if c.connString, err = connString(opts); err != nil {
		return nil, err
	}
	table := first(opts, "table", "table.name")
	if table == "" {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "the postgres sink needs the option table").
			WithHint("Add table = 'name' (or 'schema.name') of the target table.")
	}
	c.table = pgx.Identifier(strings.Split(table, "."))
	if s := first(opts, "schema", "schema.name"); s != "" && len(c.table) == 1 {
		c.table = pgx.Identifier{s, table}
	}
	if v, ok := opts["batch.rows"]; ok {
		if c.batchRows, err = strconv.Atoi(v); err != nil || c.batchRows < 1 || c.batchRows*len(cols) > 65535 {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "batch.rows must be a positive integer of at most %d for %d columns", 65535/max(len(cols), 1), len(cols))
		}
	}
	c.forceAppend = strings.EqualFold(opts["force_append_only"], "true")
	kind := strings.ToLower(opts["type"])
	switch {
	case kind == "" && opts["primary_key"] != "", kind == "upsert":
		if opts["primary_key"] == "" {
			return nil, pgerror.New(pgerror.CodeSyntaxError, "an upsert sink needs the option primary_key").
				WithHint("Add primary_key = 'col1,col2': the columns of the target table's primary key.")
		}
		if c.key, err = changes.KeyColumns(cols, opts["primary_key"]); err != nil {
			return nil, err
		}
	case kind == "" || kind == "append-only":
		if !appendOnly && !c.forceAppend {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "the sink's query updates and deletes rows, which an append-only sink cannot deliver").
				WithHint("Use type = 'upsert' with primary_key = '...', or force_append_only = 'true' to drop the deletes.")
		}
	default:
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "option type must be 'upsert' or 'append-only', not %q", opts["type"])
	}
	return c, nil
}

// first returns the first of keys set in opts.
func first(opts map[string]string, keys ...string) string {
	for _, k := range keys {
		if v := opts[k]; v != "" {
			return v
		}
	}
	return ""
}

// connString builds the target's connection string from url (or
// jdbc.url) or host, port, user, password and database.
func connString(opts map[string]string) (string, error) {
	if u := first(opts, "url", "jdbc.url"); u != "" {
		u = strings.TrimPrefix(u, "jdbc:")
		if strings.HasPrefix(u, "postgresql://") || strings.HasPrefix(u, "postgres://") {
			if _, err := pgconn.ParseConfig(u); err != nil {
				return "", pgerror.New(pgerror.CodeInvalidParameterValue, "option url: %v", err)
			}
			return u, nil
		}
		return "", pgerror.New(pgerror.CodeInvalidParameterValue, "option url must be a postgres:// URL, not %q", u)
	}
	host := first(opts, "host", "hostname")
	if host == "" {
		return "", pgerror.New(pgerror.CodeSyntaxError, "the postgres sink needs the option url").
			WithHint("Add url = 'postgres://user:password@host:5432/database'.")
	}
	u := url.URL{Scheme: "postgres", Host: host, Path: "/" + first(opts, "database", "database.name")}
	if p := opts["port"]; p != "" {
		u.Host += ":" + p
	}
	if user := first(opts, "user", "username"); user != "" {
		u.User = url.UserPassword(user, opts["password"])
	}
	return u.String(), nil
}

// Check connects to the target and checks that its table has the sink's
// columns, and creates the progress table if it does not exist.
func (c *Config) Check(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.connString)
	if err != nil {
		return pgerror.New(pgerror.CodeConnectionFailure, "postgres sink: cannot connect to the target: %v", err).
			WithHint("Check the url option and that the database accepts connections from streamdb's nodes.")
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var schema, name string
	if len(c.table) == 2 {
		schema, name = c.table[0], c.table[1]
	} else {
		name = c.table[0]
	}
	rows, err := conn.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_name = $1 AND ($2 = '' AND table_schema = ANY(current_schemas(false)) OR table_schema = $2)`, name, schema)
	if err != nil {
		return err
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	if len(have) == 0 {
		return pgerror.New(pgerror.CodeUndefinedTable, "postgres sink: the target table %s does not exist", c.table.Sanitize()).
			WithHint("Create it in the target database first, with the sink's columns.")
	}
	for _, col := range c.cols {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, col.Name) }) {
			return pgerror.New(pgerror.CodeUndefinedColumn, "postgres sink: the target table %s has no column %q", c.table.Sanitize(), col.Name)
		}
	}
	_, err = conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+ProgressTable+` (sink text, vnode int, epoch bigint NOT NULL, PRIMARY KEY (sink, vnode))`)
	return err
}

// NewWriter returns a writer for the sink known as ident in the progress
// table; it connects at its first write.
func (c *Config) NewWriter(ident string) *Writer { return &Writer{c: c, ident: ident} }

// Writer delivers changes to the target (connector.SinkWriter).
type Writer struct {
	c     *Config
	ident string
	conn  *pgx.Conn
	// text and args are reused between statements.
	text []byte
	args []any
}

// Write implements connector.SinkWriter.
func (w *Writer) Write(ctx context.Context, vnodes []uint16, upto uint64, cs []changes.Change) error {
	if w.conn == nil || w.conn.IsClosed() {
		conn, err := pgx.Connect(ctx, w.c.connString)
		if err != nil {
			return fmt.Errorf("postgres sink: connecting: %w", err)
		}
		w.conn = conn
	}
	err := pgx.BeginFunc(ctx, w.conn, func(tx pgx.Tx) error { return w.write(ctx, tx, vnodes, upto, cs) })
	if err != nil && !errors.Is(err, context.Canceled) {
		// A broken connection is opened again at the next write.
		if pgconn.SafeToRetry(err) || w.conn.IsClosed() {
			w.conn.Close(context.WithoutCancel(ctx))
		}
	}
	return err
}

// write runs one delivery in tx.
func (w *Writer) write(ctx context.Context, tx pgx.Tx, vnodes []uint16, upto uint64, cs []changes.Change) error {
	vs := make([]int32, len(vnodes))
	for i, v := range vnodes {
		vs[i] = int32(v)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+ProgressTable+` (sink, vnode, epoch) SELECT $1, v, 0 FROM unnest($2::int[]) v ON CONFLICT DO NOTHING`, w.ident, vs); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT vnode, epoch FROM `+ProgressTable+` WHERE sink = $1 AND vnode = ANY($2) FOR UPDATE`, w.ident, vs)
	if err != nil {
		return err
	}
	done := map[uint16]uint64{}
	var vnode int32
	var epoch int64
	_, err = pgx.ForEachRow(rows, []any{&vnode, &epoch}, func() error {
		done[uint16(vnode)] = uint64(epoch)
		return nil
	})
	if err != nil {
		return err
	}
	fresh := cs[:0:0]
	for _, c := range cs {
		if c.Epoch > done[c.VNode] {
			fresh = append(fresh, c)
		}
	}
	if w.c.key != nil {
		err = w.upsert(ctx, tx, fresh)
	} else {
		err = w.insert(ctx, tx, fresh)
	}
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE `+ProgressTable+` SET epoch = $3 WHERE sink = $1 AND vnode = ANY($2) AND epoch < $3`, w.ident, vs, int64(upto))
	return err
}

// insert inserts the rows the changes add; deletes are dropped (an
// append-only sink of a stream that has them was forced to be).
func (w *Writer) insert(ctx context.Context, tx pgx.Tx, cs []changes.Change) error {
	var rows [][]types.Datum
	for _, c := range cs {
		if c.Insert {
			rows = append(rows, c.Row)
		}
	}
	return w.insertRows(ctx, tx, rows, "")
}

// upsert applies each key's last change: rows still there are inserted
// or updated, the others deleted.
func (w *Writer) upsert(ctx context.Context, tx pgx.Tx, cs []changes.Change) error {
	last := map[string]int{}
	var order []string
	var key []byte
	for i, c := range cs {
		key = key[:0]
		for _, k := range w.c.key {
			key = types.AppendKey(key, c.Row[k], false)
		}
		if _, ok := last[string(key)]; !ok {
			order = append(order, string(key))
		}
		last[string(key)] = i
	}
	var puts, dels [][]types.Datum
	for _, k := range order {
		c := cs[last[k]]
		if c.Insert {
			puts = append(puts, c.Row)
		} else {
			dels = append(dels, c.Row)
		}
	}
	if err := w.deleteRows(ctx, tx, dels); err != nil {
		return err
	}
	var set []string
	for i, col := range w.c.cols {
		if !slices.Contains(w.c.key, i) {
			n := pgx.Identifier{col.Name}.Sanitize()
			set = append(set, n+" = EXCLUDED."+n)
		}
	}
	conflict := " ON CONFLICT (" + w.names(w.c.key) + ") DO "
	if len(set) == 0 {
		conflict += "NOTHING"
	} else {
		conflict += "UPDATE SET " + strings.Join(set, ", ")
	}
	return w.insertRows(ctx, tx, puts, conflict)
}

// names renders the columns cols (indexes; nil: all) as an SQL list.
func (w *Writer) names(cols []int) string {
	var out []string
	for i, c := range w.c.cols {
		if cols == nil || slices.Contains(cols, i) {
			out = append(out, pgx.Identifier{c.Name}.Sanitize())
		}
	}
	return strings.Join(out, ", ")
}

// insertRows inserts rows, batchRows per statement, each statement ended
// by suffix.
func (w *Writer) insertRows(ctx context.Context, tx pgx.Tx, rows [][]types.Datum, suffix string) error {
	all := make([]int, len(w.c.cols))
	for i := range all {
		all[i] = i
	}
	head := "INSERT INTO " + w.c.table.Sanitize() + " (" + w.names(nil) + ") VALUES "
	return w.execRows(ctx, tx, rows, all, head, suffix)
}

// deleteRows deletes the rows with the keys of rows, batchRows per
// statement.
func (w *Writer) deleteRows(ctx context.Context, tx pgx.Tx, rows [][]types.Datum) error {
	head := "DELETE FROM " + w.c.table.Sanitize() + " WHERE (" + w.names(w.c.key) + ") IN ("
	return w.execRows(ctx, tx, rows, w.c.key, head, ")")
}

// execRows runs the statements head (row), (row) ... tail over rows,
// batchRows at a time, each row's tuple made of its columns cols.
func (w *Writer) execRows(ctx context.Context, tx pgx.Tx, rows [][]types.Datum, cols []int, head, tail string) error {
	for len(rows) > 0 {
		n := min(len(rows), w.c.batchRows)
		w.text = append(w.text[:0], head...)
		w.args = w.args[:0]
		for i, row := range rows[:n] {
			if i > 0 {
				w.text = append(w.text, ", "...)
			}
			w.text = append(w.text, '(')
			for j, c := range cols {
				if j > 0 {
					w.text = append(w.text, ", "...)
				}
				w.text = w.param(w.text, row[c], c)
			}
			w.text = append(w.text, ')')
		}
		w.text = append(w.text, tail...)
		if _, err := tx.Exec(ctx, string(w.text), w.args...); err != nil {
			return fmt.Errorf("postgres sink: writing %s: %w", w.c.table.Sanitize(), err)
		}
		rows = rows[n:]
	}
	return nil
}

// param appends a placeholder for d, of column col, to text and d to the
// statement's arguments, in PostgreSQL's text format (NULL: nil), cast to
// the column's type so the target converts it.
func (w *Writer) param(text []byte, d types.Datum, col int) []byte {
	if d.IsNull() {
		w.args = append(w.args, nil)
	} else {
		w.args = append(w.args, string(types.FormatText(nil, w.c.cols[col].Type, d)))
	}
	text = append(text, '$')
	text = strconv.AppendInt(text, int64(len(w.args)), 10)
	text = append(text, "::"...)
	return append(text, w.c.cols[col].Type.String()...)
}

// Close implements connector.SinkWriter.
func (w *Writer) Close() {
	if w.conn != nil {
		w.conn.Close(context.Background())
	}
}
