package sql

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// returned collects the rows of a DML statement's RETURNING list, one per
// row the statement wrote. A nil *returned (no list) ignores the rows.
type returned struct {
	list *planner.Project
	rows [][]types.Datum
}

// newReturned returns the collector of a bound DML plan's RETURNING list,
// nil if it has none.
func newReturned(plan any) *returned {
	var list *planner.Project
	switch p := plan.(type) {
	case *planner.Insert:
		list = p.Returning
	case *planner.Update:
		list = p.Returning
	case *planner.Delete:
		list = p.Returning
	}
	if list == nil {
		return nil
	}
	return &returned{list: list}
}

// add evaluates the list over row, a full row of the table the statement
// wrote.
func (r *returned) add(c *expr.Ctx, row []types.Datum) error {
	if r == nil {
		return nil
	}
	out := make([]types.Datum, len(r.list.Exprs))
	for i, e := range r.list.Exprs {
		v, err := e.Eval(c, row)
		if err != nil {
			return err
		}
		out[i] = v
	}
	r.rows = append(r.rows, out)
	return nil
}

// reset drops the rows collected, for a statement run again.
func (r *returned) reset() {
	if r != nil {
		r.rows = nil
	}
}

// result returns the rows collected.
func (r *returned) result() [][]types.Datum {
	if r == nil {
		return nil
	}
	return r.rows
}

// decode sets the rows from a forwarded statement's response.
func (r *returned) decode(block []byte) error {
	if r == nil {
		return nil
	}
	ts := make([]types.T, len(r.list.Cols))
	for i, c := range r.list.Cols {
		ts[i] = c.T
	}
	var arena types.RowArena
	r.rows = nil
	return types.DecodeRowBlockInto(block, ts, &arena, func(row []types.Datum) error {
		r.rows = append(r.rows, row)
		return nil
	})
}
