package sql

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// canDeclare checks DECLARE d before its query starts: outside a
// transaction block — explicit, or the implicit one of a simple query of
// several statements (inBlock), whose end closes the cursor — only a WITH
// HOLD cursor outlives the statement, and each cursor of the session has
// its own name.
func (s *Session) canDeclare(d *parser.Declare, inBlock bool) error {
	if s.tx == 'I' && !d.Hold && !inBlock {
		return pgerror.New(pgerror.CodeNoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[d.Name]; ok {
		return pgerror.New(pgerror.CodeDuplicateCursor, "cursor %q already exists", d.Name)
	}
	return nil
}

// declare runs st, a DECLARE: its cursor reads the rows of its query in
// the FETCHes after it, until CLOSE or the end of its transaction.
func (s *Session) declare(ctx context.Context, st *statement, params []types.Datum) (pgwire.Rows, error) {
	d := st.declare
	if err := s.canDeclare(d, st.inQueryBlock); err != nil {
		return nil, err
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	c := newCursor(d, st.parsed.Input())
	s.cursors[d.Name] = c
	if st.live {
		// A query of pg_cursors lists the cursor itself, as in PostgreSQL.
		if err := st.bind(); err != nil {
			delete(s.cursors, d.Name)
			return nil, err
		}
	}
	c.cols = st.declareCols
	if d.Subscribe != nil {
		return s.declareSubscription(ctx, c, d)
	}
	c.scroll = d.Scroll || !d.NoScroll && planner.Scrollable(st.query)
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.src = st.stream(ctx, cancel, params)
	return done("DECLARE CURSOR"), nil
}

func (s *Session) cursor(name string) (*cursor, error) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgerror.New(pgerror.CodeInvalidCursorName, "cursor %q does not exist", name)
	}
	return c, nil
}

// cursorColumns returns the result columns of FETCH f: its cursor's, none
// for MOVE or a cursor that does not exist (yet).
func (s *Session) cursorColumns(f *parser.Fetch) []pgwire.Column {
	if c, ok := s.cursors[f.Cursor]; ok && !f.Move {
		return c.cols
	}
	return nil
}

// BinaryResult implements pgwire.BinaryResult: a FETCH from a BINARY
// cursor returns binary rows.
func (st *statement) BinaryResult() bool {
	f, ok := st.parsed.Utility.(*parser.Fetch)
	if !ok || f.Move {
		return false
	}
	c := st.s.cursors[f.Cursor]
	return c != nil && c.binary
}

// fetch runs FETCH or MOVE.
func (s *Session) fetch(ctx context.Context, f *parser.Fetch) (pgwire.Rows, error) {
	c, err := s.cursor(f.Cursor)
	if err != nil {
		return nil, err
	}
	if c.sub != nil {
		return s.fetchChanges(ctx, c, f)
	}
	if f.Timeout != "" {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "FETCH ... WITH (timeout) applies to cursors over SUBSCRIBE").
			WithHint("Cursor %q reads a query, whose rows are all there: FETCH without a timeout.", c.name)
	}
	sc, n, err := c.fetch(ctx, f)
	if err != nil {
		return nil, err
	}
	if f.Move {
		return done(fmt.Sprintf("MOVE %d", n)), nil
	}
	return &fetchRows{s: s, sc: sc}, nil
}

// closeCursor runs CLOSE name and CLOSE ALL.
func (s *Session) closeCursor(x *parser.CloseCursor) (pgwire.Rows, error) {
	if x.Cursor == "" {
		s.closeCursors(anyCursor)
		return done("CLOSE CURSOR ALL"), nil
	}
	c, err := s.cursor(x.Cursor)
	if err != nil {
		return nil, err
	}
	c.closeSource()
	delete(s.cursors, x.Cursor)
	return done("CLOSE CURSOR"), nil
}

// commitCursors ends the transaction for the session's cursors: WITH HOLD
// cursors read their remaining rows and stay open, the others close.
func (s *Session) commitCursors(ctx context.Context) error {
	for name, c := range s.cursors {
		if c.hold && c.sub != nil {
			// A subscription never ends: the cursor keeps reading it.
			c.held = true
			continue
		}
		if c.hold {
			if err := c.materialize(ctx); err != nil {
				return err
			}
			continue
		}
		c.closeSource()
		delete(s.cursors, name)
	}
	return nil
}

// closeCursors closes the session's cursors that drop selects.
func (s *Session) closeCursors(drop func(*cursor) bool) {
	for name, c := range s.cursors {
		if drop(c) {
			c.closeSource()
			delete(s.cursors, name)
		}
	}
}

func anyCursor(*cursor) bool { return true }

// notHeld selects the cursors a rollback closes: all but those an
// earlier transaction's COMMIT kept.
func notHeld(c *cursor) bool { return !c.held }

// Cursors implements planner.Status: the session's cursors.
func (st sessionStatus) Cursors() []planner.Cursor {
	out := make([]planner.Cursor, 0, len(st.s.cursors))
	for _, c := range st.s.cursors {
		out = append(out, planner.Cursor{Name: c.name, Statement: c.sql, Holdable: c.hold, Binary: c.binary,
			Scrollable: c.scroll, Created: c.created})
	}
	slices.SortFunc(out, func(a, b planner.Cursor) int { return strings.Compare(a.Name, b.Name) })
	return out
}
