package sql

import (
	"context"
	"errors"
	"fmt"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// declareSubscription opens cursor c over the subscription of DECLARE d:
// DECLARE c CURSOR FOR SUBSCRIBE ..., or a subscription cursor. It only
// moves forward, a FETCH returning the changes as they come.
func (s *Session) declareSubscription(ctx context.Context, c *cursor, d *parser.Declare) (pgwire.Rows, error) {
	if d.Scroll {
		delete(s.cursors, d.Name)
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "a cursor over SUBSCRIBE cannot be SCROLL").
			WithHint("Declare it without SCROLL: its changes are read once, forward.")
	}
	sub, err := s.subscribe(context.WithoutCancel(ctx), d.Subscribe, nil)
	if err != nil {
		delete(s.cursors, d.Name)
		return nil, err
	}
	c.src, c.sub = sub, sub
	if d.Subscribe.Cursor {
		// Declared outside a transaction, it outlives any.
		c.held = true
	}
	return done("DECLARE CURSOR"), nil
}

// fetchChanges runs FETCH [n | NEXT | ALL] c [WITH (timeout = ...)] on a
// cursor over a subscription: up to n changes, waiting for the first at
// most the timeout (none: until one comes; 0: not at all), never for more
// once it has one.
func (s *Session) fetchChanges(ctx context.Context, c *cursor, f *parser.Fetch) (pgwire.Rows, error) {
	if f.Move || f.Kind != parser.FetchForward || f.Count < 0 {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "a cursor over SUBSCRIBE can only FETCH forward").
			WithHint("Use FETCH n, FETCH NEXT or FETCH ALL.")
	}
	wait := ctx
	if f.Timeout != "" {
		d, err := parseInterval("timeout", f.Timeout)
		if err != nil {
			return nil, err
		}
		if d == 0 {
			wait = nil
		} else {
			var cancel context.CancelFunc
			wait, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
	}
	var rows [][]types.Datum
	for int64(len(rows)) < f.Count {
		row, err := c.sub.poll(ctx, wait)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			break // the timeout passed with no change
		}
		if err != nil {
			return nil, err
		}
		if row == nil {
			break
		}
		rows = append(rows, row)
		wait = nil
	}
	return &memRows{rows: rows, tag: fmt.Sprintf("FETCH %d", len(rows))}, nil
}
