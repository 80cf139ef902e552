package planner

import (
	"time"

	"github.com/streamdb/streamdb/types"
)

// Cursor is an SQL cursor of the session, as pg_cursors shows it.
type Cursor struct {
	Name, Statement              string
	Holdable, Binary, Scrollable bool
	Created                      time.Time
}

// pgCursors is pg_catalog.pg_cursors: the session's open cursors.
var pgCursors = &sysTable{
	cols: sysCols("name text", "statement text", "is_holdable bool", "is_binary bool", "is_scrollable bool",
		"creation_time timestamptz"),
	status: func(s Status) ([][]types.Datum, error) {
		cursors := s.Cursors()
		rows := make([][]types.Datum, len(cursors))
		for i, c := range cursors {
			rows[i] = []types.Datum{dStr(c.Name), dStr(c.Statement), dBool(c.Holdable), dBool(c.Binary),
				dBool(c.Scrollable), dTime(c.Created)}
		}
		return rows, nil
	},
}
