package sql

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// rowSource is where a cursor's rows come from: a query's rows as its plan
// produces them, or a subscription's changes (subscriber). Next returns
// the next row, or nil at the end, waiting no longer than ctx allows;
// Close stops the source.
type rowSource interface {
	Next(ctx context.Context) ([]types.Datum, error)
	Close()
}

// position is where a cursor stands, kept as PostgreSQL's portal keeps it:
// pos counts the rows up to the current one; atStart marks a cursor
// before its first row, atEnd one past its last (pos then counts them
// all).
type position struct {
	pos            int64
	atStart, atEnd bool
}

// cursor is an SQL cursor of a session (DECLARE). It reads its rows from
// src lazily; a scrollable cursor keeps the rows it read, to go back to
// them. A WITH HOLD cursor reads the rest at COMMIT and outlives its
// transaction (held marks it then).
type cursor struct {
	name, sql                  string
	hold, binary, scroll, held bool
	created                    time.Time
	cols                       []pgwire.Column
	src                        rowSource // nil once it ended
	// sub is the source of a cursor over a subscription, which FETCH
	// reads as its changes come (fetchChanges).
	sub  *subscriber
	buf  [][]types.Datum
	base int64 // buf[0] is row base+1
	p    position
}

// newCursor returns the cursor DECLARE d (in text sql) opens, before its
// query starts.
func newCursor(d *parser.Declare, sql string) *cursor {
	return &cursor{name: d.Name, sql: sql, hold: d.Hold, binary: d.Binary, created: time.Now(), p: position{atStart: true}}
}

// row returns row k (from 1), reading the source up to it; nil past the
// last row.
func (c *cursor) row(ctx context.Context, k int64) ([]types.Datum, error) {
	for c.base+int64(len(c.buf)) < k {
		if c.src == nil {
			return nil, nil
		}
		r, err := c.src.Next(ctx)
		if err != nil {
			return nil, err
		}
		if r == nil {
			c.closeSource()
			return nil, nil
		}
		if !c.scroll {
			// A forward-only cursor never reads a row again.
			c.base += int64(len(c.buf))
			c.buf = c.buf[:0]
		}
		c.buf = append(c.buf, r)
	}
	return c.buf[k-c.base-1], nil
}

// materialize reads the rest of the source, as a WITH HOLD cursor does at
// COMMIT: the cursor then no longer needs its transaction's snapshot.
func (c *cursor) materialize(ctx context.Context) error {
	for c.src != nil {
		r, err := c.src.Next(ctx)
		if err != nil {
			return err
		}
		if r == nil {
			c.closeSource()
			break
		}
		c.buf = append(c.buf, r)
	}
	c.held = true
	return nil
}

func (c *cursor) closeSource() {
	if c.src != nil {
		c.src.Close()
		c.src = nil
	}
}

func errNoScroll() error {
	return pgerror.New(pgerror.CodeObjectNotInState, "cursor can only scan forward").
		WithHint("Declare it with SCROLL option to enable backward scan.")
}

// rewind puts the cursor before its first row; only a scrollable cursor
// goes back.
func (c *cursor) rewind() error {
	if c.p.atStart && !c.p.atEnd {
		return nil
	}
	if !c.scroll {
		return errNoScroll()
	}
	c.p = position{atStart: true}
	return nil
}

// scan moves a cursor count rows (parser.FetchAll: to the end) forward or
// backward, yielding each row it passes, as PostgreSQL's PortalRunSelect.
type scan struct {
	c       *cursor
	forward bool
	count   int64
	n       int64
	done    bool
}

// newScan starts a scan; one going backward needs a scrollable cursor.
func (c *cursor) newScan(forward bool, count int64) (*scan, error) {
	if !forward && !c.scroll {
		return nil, errNoScroll()
	}
	s := &scan{c: c, forward: forward, count: count}
	if count <= 0 || forward && c.p.atEnd || !forward && c.p.atStart {
		s.done = true // no movement
	}
	return s, nil
}

// next returns the next row of the scan, or nil once it ended (the
// cursor then stands where the scan left it).
func (s *scan) next(ctx context.Context) ([]types.Datum, error) {
	if s.done {
		return nil, nil
	}
	if s.n == s.count {
		s.finish(false)
		return nil, nil
	}
	p := s.c.p
	k := p.pos + s.n + 1
	if !s.forward {
		k = p.pos - s.n - 1
		if p.atEnd {
			k++
		}
	}
	var row []types.Datum
	if k >= 1 {
		var err error
		if row, err = s.c.row(ctx, k); err != nil {
			return nil, err
		}
	}
	if row == nil {
		s.finish(true)
		return nil, nil
	}
	s.n++
	return row, nil
}

// finish moves the cursor past the rows the scan yielded; ranOut marks a
// scan that met the end (or the start) before count rows.
func (s *scan) finish(ranOut bool) {
	if s.done {
		return
	}
	s.done = true
	p := &s.c.p
	if s.forward {
		if s.n > 0 {
			p.atStart = false
		}
		if ranOut {
			p.atEnd = true
		}
		p.pos += s.n
		return
	}
	if s.n > 0 && p.atEnd {
		p.atEnd = false
		p.pos++
	}
	if ranOut {
		p.atStart, p.pos = true, 0
	} else {
		p.pos -= s.n
	}
}

// skip runs the scan to its end, yielding nothing.
func (s *scan) skip(ctx context.Context) (int64, error) {
	for {
		row, err := s.next(ctx)
		if err != nil || row == nil {
			return s.n, err
		}
	}
}
