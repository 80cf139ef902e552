package sql

import (
	"context"
	"fmt"
	"io"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// copyIn is a COPY ... FROM STDIN under way: pgwire hands it the client's
// data (pgwire.CopyIn). Its rows are written as one statement, as an
// INSERT of them would be (column defaults, NOT NULL and primary keys
// checked), once all have arrived; they are held in memory until then.
type copyIn struct {
	s *Session
	// sql is the statement's text, which a node forwards with the rows
	// to the node that writes the table.
	sql  string
	opts *parser.Copy
	ins  *planner.Insert
	// cols are the columns the data holds, in order.
	cols []planner.Column
	n    int64
}

var _ pgwire.CopyIn = (*copyIn)(nil)

// copyFrom binds COPY ... FROM STDIN.
func (s *Session) copyFrom(sql string, x *parser.Copy) (*copyIn, error) {
	ins, err := s.binder(s.e.Meta.Catalog(), nil).BindCopy(x.Table.Schema, x.Table.Name, x.Columns)
	if err != nil {
		return nil, err
	}
	return &copyIn{s: s, sql: sql, opts: x, ins: ins, cols: ins.Source.(*planner.Project).Input.Columns()}, nil
}

// CopyFormat implements pgwire.CopyIn.
func (ci *copyIn) CopyFormat() (bool, int) { return ci.opts.Format == "binary", len(ci.cols) }

// CopyFrom implements pgwire.CopyIn.
func (ci *copyIn) CopyFrom(ctx context.Context, r io.Reader) error {
	n, err := ci.copy(ctx, r)
	ci.n = n
	return ci.s.fail(err)
}

func (ci *copyIn) copy(ctx context.Context, r io.Reader) (_ int64, err error) {
	defer ci.s.recoverInternal(&err)
	names := make([]string, len(ci.cols))
	ts := make([]types.T, len(ci.cols))
	for i, c := range ci.cols {
		names[i], ts[i] = c.Name, c.T
	}
	d := newCopyDecoder(ci.opts, ci.ins.Table.Name, names, ts, r, ci.s.vars.zone())
	var rows [][]types.Datum
	for {
		row, err := d.next()
		if err == copyEnd {
			break
		}
		if err != nil {
			return 0, err
		}
		rows = append(rows, row)
	}
	// The client may send data after the end marker: read it all, as the
	// protocol ends with CopyDone.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return ci.write(ctx, rows)
}

// write inserts rows as one statement (Session.write).
func (ci *copyIn) write(ctx context.Context, rows [][]types.Datum) (int64, error) {
	return ci.s.write(ci.s.newCtx(ctx, nil), &copyPlan{ins: ci.ins, rows: rows}, nil, func() *dmlRequest {
		var block []byte
		for _, row := range rows {
			block = types.AppendRow(block, row)
		}
		return &dmlRequest{SQL: ci.sql, Rows: block}
	})
}

// Next implements pgwire.Rows: COPY returns no rows.
func (ci *copyIn) Next(context.Context) ([]types.Datum, error) { return nil, nil }

// Tag implements pgwire.Rows.
func (ci *copyIn) Tag() string { return fmt.Sprintf("COPY %d", ci.n) }

// Close implements pgwire.Rows.
func (ci *copyIn) Close() {}

// copyPlan is a bound COPY with the rows it read, which runDML inserts.
type copyPlan struct {
	ins  *planner.Insert
	rows [][]types.Datum
}

// source returns the rows run through the projection the COPY was bound
// to (see planner.BindCopy).
func (p *copyPlan) source() exec.Op {
	return &exec.Project{Input: exec.Rows(p.rows), Exprs: p.ins.Source.(*planner.Project).Exprs}
}
