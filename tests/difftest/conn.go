package difftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Value is one value as the server sent it in text form.
type Value struct {
	S    string
	Null bool
}

// Outcome is what one statement gave: rows (with their type OIDs and the
// command tag), an error, or no answer (a dropped connection or a
// timeout).
type Outcome struct {
	Names []string
	OIDs  []uint32
	Rows  [][]Value
	Tag   string
	Err   *pgconn.PgError
	// Lost describes a dropped connection or a timeout; Timeout tells
	// which.
	Lost    string
	Timeout bool
}

// code is the outcome in one word: "rows", the SQLSTATE, or "lost".
func (o *Outcome) code() string {
	switch {
	case o.Lost != "" && o.Timeout:
		return "timeout"
	case o.Lost != "":
		return "lost"
	case o.Err != nil:
		return o.Err.Code
	}
	return "rows"
}

// String summarizes the outcome for a report.
func (o *Outcome) String() string {
	switch {
	case o.Lost != "":
		return "no answer: " + o.Lost
	case o.Err != nil:
		return fmt.Sprintf("ERROR %s: %s", o.Err.Code, o.Err.Message)
	}
	return formatRows(o.Rows, 12)
}

// formatRows renders up to max rows, one per line.
func formatRows(rows [][]Value, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d row(s)", len(rows))
	for i, row := range rows {
		if i == max {
			fmt.Fprintf(&b, "\n  ... %d more", len(rows)-max)
			break
		}
		b.WriteString("\n  ")
		for j, v := range row {
			if j > 0 {
				b.WriteString(" | ")
			}
			if v.Null {
				b.WriteString("NULL")
			} else {
				b.WriteString(quote(v.S))
			}
		}
	}
	return b.String()
}

// conn is a connection to one of the servers compared, reopened after
// it drops.
type conn struct {
	name    string
	dsn     string
	init    []string // statements run on each new connection
	timeout time.Duration
	pc      *pgconn.PgConn
}

// open (re)connects.
func (c *conn) open(ctx context.Context) error {
	if c.pc != nil {
		c.pc.Close(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	pc, err := pgconn.Connect(ctx, c.dsn)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", c.name, err)
	}
	c.pc = pc
	for _, s := range c.init {
		if _, err := pc.Exec(ctx, s).ReadAll(); err != nil {
			return fmt.Errorf("%s: %s: %w", c.name, s, err)
		}
	}
	return nil
}

// exec runs one statement (simple protocol: every value in text form).
func (c *conn) exec(ctx context.Context, sql string) Outcome {
	if c.pc == nil || c.pc.IsClosed() {
		if err := c.open(ctx); err != nil {
			return Outcome{Lost: err.Error()}
		}
	}
	qctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	mrr := c.pc.Exec(qctx, sql)
	var out Outcome
	var err error
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		out = Outcome{}
		for _, fd := range rr.FieldDescriptions() {
			out.Names = append(out.Names, fd.Name)
			out.OIDs = append(out.OIDs, fd.DataTypeOID)
		}
		for rr.NextRow() {
			vals := make([]Value, len(rr.Values()))
			for j, v := range rr.Values() {
				vals[j] = Value{S: string(v), Null: v == nil}
			}
			out.Rows = append(out.Rows, vals)
		}
		tag, rerr := rr.Close()
		out.Tag = tag.String()
		if rerr != nil && err == nil {
			err = rerr
		}
	}
	if cerr := mrr.Close(); cerr != nil && err == nil {
		err = cerr
	}
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
	case errors.As(err, &pgErr) && pgErr.Severity != "FATAL" && pgErr.Severity != "PANIC":
		out = Outcome{Err: pgErr}
	default:
		out = Outcome{Lost: err.Error(), Timeout: qctx.Err() != nil && ctx.Err() == nil}
		c.pc.Close(ctx)
	}
	return out
}

// close closes the connection.
func (c *conn) close() {
	if c.pc != nil {
		c.pc.Close(context.Background())
	}
}
