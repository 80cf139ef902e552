package sqllogic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Options configure Run.
type Options struct {
	// Engine is the name skipif and onlyif records are matched against;
	// default "postgresql".
	Engine string
	// Out receives one line per file and failure reports; default discard.
	Out io.Writer
	// Verbose prints every failing record with expected and actual results;
	// otherwise only the first few failures of each file are printed, then
	// a count.
	Verbose bool
	// Timeout bounds each attempt of each record, so that a hung server
	// fails the record instead of the run; default 60 s.
	Timeout time.Duration
	// MatchErrors makes "statement error <regex>" and "query error <regex>"
	// require the server's message to match the regex. Leave it off for
	// corpora whose expected messages are another engine's.
	MatchErrors bool
	// Known, if set, lists records expected to fail: their failures are
	// counted but not printed (Known.Check judges the run).
	Known *KnownFailures
}

// Run runs the test files at paths against the server at connString (a
// libpq-style URL or keyword/value string) and returns the counts. A path may
// be a file or a directory, which is searched for *.test and *.slt files, run
// in sorted order. Each file gets fresh connections; objects it created are
// dropped after it. Run prints "path: P passed, F failed, S skipped" for each
// file to opts.Out; the error is for bad arguments or a cancelled ctx.
func Run(ctx context.Context, connString string, paths []string, opts Options) (Result, error) {
	if opts.Engine == "" {
		opts.Engine = "postgresql"
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return Result{}, fmt.Errorf("sqllogic: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	files, err := collect(paths)
	if err != nil {
		return Result{}, fmt.Errorf("sqllogic: %w", err)
	}
	var res Result
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		fr := runFile(ctx, cfg, path, opts)
		fmt.Fprintln(opts.Out, fr)
		res.add(fr)
	}
	return res, ctx.Err()
}

// collect expands directories in paths to their *.test and *.slt files.
func collect(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".test") || strings.HasSuffix(path, ".slt")) {
				found = append(found, path)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// fileRun is the state of running one file.
type fileRun struct {
	cfg     *pgx.ConnConfig
	opts    Options
	sqlite  bool // SQLite dialect: results formatted by type letter
	conns   map[string]*pgx.Conn
	subst   substituter
	substOn bool
	labels  labels
	created objects
	rep     reporter
	res     FileResult
}

func runFile(ctx context.Context, cfg *pgx.ConnConfig, path string, opts Options) FileResult {
	f := &fileRun{
		cfg:    cfg,
		opts:   opts,
		sqlite: strings.HasSuffix(path, ".test"),
		conns:  map[string]*pgx.Conn{},
		subst:  substituter{database: cfg.Database},
		labels: labels{},
		rep:    reporter{w: opts.Out, verbose: opts.Verbose},
		res:    FileResult{Path: path, Outcomes: map[string]bool{}},
	}
	recs, err := load(path)
	if err == nil {
		_, err = f.conn(ctx, "")
		if err != nil {
			err = fmt.Errorf("cannot connect: %w", err)
		}
	}
	if err != nil {
		f.res.Err = err
		f.res.Failed++
	} else {
		f.run(ctx, recs)
	}
	f.close(ctx, path)
	f.rep.finish(path)
	return f.res
}

// run executes recs in order until the end, a halt or a cancelled ctx.
func (f *fileRun) run(ctx context.Context, recs []record) {
	for i := range recs {
		r := &recs[i]
		if ctx.Err() != nil {
			return
		}
		if skip(r.conds, f.opts.Engine) {
			switch r.kind {
			case kindStatement, kindQuery, kindLet, kindSystem:
				f.res.Skipped++
			}
			continue
		}
		switch r.kind {
		case kindHalt:
			return
		case kindSubstitution:
			f.substOn = r.on
		case kindSleep:
			sleep(ctx, r.dur)
		case kindSystem:
			f.res.Skipped++
		case kindStatement, kindQuery, kindLet:
			f.check(ctx, r)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// check runs r, retrying as it asks, and counts and reports the outcome.
func (f *fileRun) check(ctx context.Context, r *record) {
	where := fmt.Sprintf("%s:%d", r.file, r.line)
	var fail *failure
	for i := range max(r.retry.attempts, 1) {
		if i > 0 {
			sleep(ctx, r.retry.backoff)
		}
		if fail = f.attempt(ctx, r); fail == nil {
			break
		}
		if fail.final {
			break
		}
	}
	passed, seen := f.res.Outcomes[where]
	f.res.Outcomes[where] = fail == nil && (passed || !seen)
	if fail == nil {
		f.res.Passed++
		return
	}
	f.res.Failed++
	if f.opts.Known != nil {
		if _, listed := f.opts.Known.lookup(where); listed {
			return
		}
	}
	f.rep.report(where, r.sql, fail)
}

// attempt runs r once and returns why it failed, or nil.
func (f *fileRun) attempt(ctx context.Context, r *record) *failure {
	sql := r.sql
	if f.substOn {
		var err error
		if sql, err = f.subst.expand(sql); err != nil {
			return &failure{msg: err.Error(), final: true}
		}
	}
	conn, err := f.conn(ctx, r.conn)
	if err != nil {
		return &failure{msg: "cannot connect: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	var (
		rs  *resultSet
		tag pgconn.CommandTag
	)
	if r.kind == kindStatement {
		tag, err = conn.Exec(ctx, sql)
	} else {
		rs, err = f.query(ctx, conn, r, sql)
	}
	switch {
	case err != nil && r.expectErr:
		return f.matchError(r, err)
	case err != nil:
		return &failure{msg: f.describe(err)}
	}
	for _, o := range createdObjects(sql) {
		f.created.add(o)
	}
	switch {
	case r.expectErr:
		msg := "succeeded, but an error was expected"
		if r.errPattern != "" {
			msg += " (" + r.errPattern + ")"
		}
		return &failure{msg: msg}
	case r.count >= 0 && tag.RowsAffected() != r.count:
		return &failure{msg: fmt.Sprintf("statement affected %d rows, expected %d", tag.RowsAffected(), r.count)}
	case r.kind == kindLet:
		return f.let(r, rs)
	case r.kind == kindQuery:
		return f.compare(r, rs)
	}
	return nil
}

// matchError checks an expected error. Unless Options.MatchErrors is set,
// expected messages are taken to be the original engine's and any error
// passes.
func (f *fileRun) matchError(r *record, err error) *failure {
	if !f.opts.MatchErrors || r.errPattern == "" {
		return nil
	}
	re, cerr := regexp.Compile(r.errPattern)
	if cerr != nil {
		return &failure{msg: fmt.Sprintf("bad expected-error regex %q: %v", r.errPattern, cerr), final: true}
	}
	msg := err.Error()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg = pe.Message
	}
	if !re.MatchString(msg) {
		return &failure{msg: fmt.Sprintf("error %q does not match %q", msg, r.errPattern)}
	}
	return nil
}

// describe explains a server or connection error.
func (f *fileRun) describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %v (the record timeout): %v", f.opts.Timeout, err)
	}
	return err.Error() // a *pgconn.PgError reads "ERROR: message (SQLSTATE code)"
}

// query runs sql and renders its rows: by r's type letters in the SQLite
// dialect, as plain text otherwise.
func (f *fileRun) query(ctx context.Context, conn *pgx.Conn, r *record, sql string) (*resultSet, error) {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	rs := &resultSet{ncols: len(fields)}
	typed := f.sqlite && r.kind == kindQuery
	for rows.Next() {
		for i, v := range rows.RawValues() {
			if !typed {
				rs.values = append(rs.values, formatPlain(v))
				continue
			}
			letter := byte('T')
			if i < len(r.types) {
				letter = r.types[i]
			}
			rs.values = append(rs.values, formatSQLite(v, fields[i].DataTypeOID, letter))
		}
	}
	return rs, rows.Err()
}

// compare checks a query's results against the file.
func (f *fileRun) compare(r *record, rs *resultSet) *failure {
	if f.sqlite && rs.ncols != len(r.types) {
		return &failure{msg: fmt.Sprintf("query returned %d columns, its type string %q declares %d", rs.ncols, r.types, len(r.types))}
	}
	sortValues(rs.values, rs.ncols, r.sort)
	if !rs.matches(r.expected, r.sort) {
		return &failure{
			msg:      "query result mismatch",
			expected: r.expected,
			actual:   rs.render(r.expected, f.sqlite),
		}
	}
	if err := f.labels.check(r.label, rs.hash(), fmt.Sprintf("%s:%d", r.file, r.line)); err != nil {
		return &failure{msg: err.Error()}
	}
	return nil
}

// let sets r's variables from the first row of rs.
func (f *fileRun) let(r *record, rs *resultSet) *failure {
	switch {
	case len(rs.values) == 0:
		return &failure{msg: "let: the query returned no rows"}
	case rs.ncols != len(r.vars):
		return &failure{msg: fmt.Sprintf("let: the query returned %d columns for %d variables", rs.ncols, len(r.vars))}
	}
	for i, v := range r.vars {
		f.subst.set(v, rs.values[i])
	}
	return nil
}

// conn returns the named connection ("" or "default" for the file's main
// one), opening it if it is not open (again, after a timeout closed it).
func (f *fileRun) conn(ctx context.Context, name string) (*pgx.Conn, error) {
	if name == "default" {
		name = ""
	}
	if c := f.conns[name]; c != nil && !c.IsClosed() {
		return c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, f.cfg)
	if err != nil {
		return nil, err
	}
	f.conns[name] = c
	return c, nil
}

// close closes the file's connections, then drops the objects it created
// that still exist, newest first, on a fresh connection (so that nothing the
// file left open, such as a transaction, gets in the way). Drop errors are
// ignored.
func (f *fileRun) close(ctx context.Context, path string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.opts.Timeout)
	defer cancel()
	for _, c := range f.conns {
		c.Close(ctx)
	}
	f.subst.close()
	if len(f.created) == 0 {
		return
	}
	c, err := pgx.ConnectConfig(ctx, f.cfg)
	if err != nil {
		fmt.Fprintf(f.opts.Out, "%s: cannot connect to drop the objects it created: %v\n", path, err)
		return
	}
	defer c.Close(ctx)
	for _, stmt := range f.created.drops() {
		c.Exec(ctx, stmt)
	}
}
