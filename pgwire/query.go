package pgwire

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/types"
)

// simpleQuery runs a Query message: every statement of the string in turn,
// stopping at the first error, then ReadyForQuery.
func (c *conn) simpleQuery(query string) {
	// As in PostgreSQL, a simple query drops the unnamed statement and
	// portal.
	c.reg.closeStmt("")
	c.reg.closePortal("")
	stmts, err := c.prepare(query, nil)
	switch {
	case err != nil:
		c.sendError(err)
	case len(stmts) == 0:
		c.w.send(&pgproto3.EmptyQueryResponse{})
	}
	for i, st := range stmts {
		err := c.runSimple(st, i == len(stmts)-1)
		c.reportParams()
		if err != nil {
			c.sendError(err)
			break
		}
	}
	if !c.fatal {
		c.readyForQuery()
	}
}

// runSimple runs one statement of a simple query, with its results in
// text (binary for a BinaryResult), in a portal of its own; last marks the
// query's last statement.
func (c *conn) runSimple(st Statement, last bool) error {
	p := &portal{stmt: st, cols: st.Columns()}
	defer p.close()
	if b, ok := st.(BinaryResult); ok && b.BinaryResult() {
		p.formats, _ = resolveFormats([]int16{formatBinary}, len(p.cols))
	}
	if p.cols != nil {
		c.w.rowDescription(p.cols, p.formats)
	}
	_, err := c.runPortal(p, 0, last)
	return err
}

// prepare calls Session.Prepare under a context that a CancelRequest can
// cancel.
func (c *conn) prepare(query string, paramTypes []types.OID) ([]Statement, error) {
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	c.setRunning(cancel)
	began := time.Now()
	stmts, err := c.sess.Prepare(ctx, query, paramTypes)
	c.setRunning(nil)
	if err = callError(ctx, err); err != nil {
		// A statement that fails to parse or bind ends here.
		c.observe(query, began, "", err)
	}
	return stmts, err
}

// runPortal executes p: it opens the statement at the first call, then
// sends up to limit DataRows (0 for all) and either CommandComplete or, when
// the limit was reached, PortalSuspended. A later call resumes the rows.
// last marks a statement that ends its implicit transaction
// (LastBeforeSync).
func (c *conn) runPortal(p *portal, limit uint32, last bool) (suspended bool, err error) {
	ctx := context.WithValue(p.context(c.ctx), flushKey{}, c.w.flush)
	c.setRunning(p.cancel)
	defer c.setRunning(nil)
	defer c.watchPeer(p.cancel)()
	defer func() {
		if err = callError(ctx, err); err != nil {
			c.statementDone(p, "", err)
		}
	}()
	if p.rows == nil {
		p.began = time.Now()
		octx := ctx
		if last {
			octx = WithLastBeforeSync(ctx)
		}
		rows, err := p.stmt.Open(octx, p.params)
		if err != nil {
			return false, err
		}
		p.rows = rows
		if ci, ok := rows.(CopyIn); ok {
			if err := c.copyIn(octx, ci); err != nil {
				return false, err
			}
		}
		if co, ok := rows.(CopyOut); ok {
			if err := c.copyOut(octx, co); err != nil {
				return false, err
			}
		}
	}
	for n := uint32(0); limit == 0 || n < limit; n++ {
		row, err := p.rows.Next(ctx)
		if err != nil {
			return false, err
		}
		if row == nil {
			tag := p.rows.Tag()
			if n, ok := p.rows.(Noticer); ok {
				for _, e := range n.Notices() {
					c.w.send((*pgproto3.NoticeResponse)(errorResponse(e)))
				}
			}
			p.finish()
			c.w.send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
			c.statementDone(p, tag, nil)
			return false, nil
		}
		if err := c.w.dataRow(row, p.cols, p.formats); err != nil {
			return false, err
		}
		if c.w.err != nil {
			return false, c.w.err
		}
	}
	c.w.send(&pgproto3.PortalSuspended{})
	return true, nil
}

// reportParams sends ParameterStatus for every session parameter whose
// value the client does not have yet.
func (c *conn) reportParams() {
	params := c.sess.ParameterStatus()
	if !c.paramsChanged(params) {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		value := params[name]
		if sent, ok := c.sentParams[name]; ok && sent == value {
			continue
		}
		c.sentParams[name] = value
		c.w.send(&pgproto3.ParameterStatus{Name: name, Value: value})
		if name == "TimeZone" {
			// Values print and parameters read in the zone the client
			// was told of.
			c.w.zone = nil
			if loc, _, err := types.ParseZone(value); err == nil && loc != time.UTC {
				c.w.zone = loc
			}
		}
	}
}

func (c *conn) paramsChanged(params map[string]string) bool {
	for name, value := range params {
		if sent, ok := c.sentParams[name]; !ok || sent != value {
			return true
		}
	}
	return false
}
