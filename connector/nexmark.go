package connector

import (
	"strings"

	"github.com/streamdb/streamdb/connector/nexmark"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// checkNexmarkColumns checks that a nexmark source declares exactly the
// columns of its table, as RisingWave requires: same names in the same
// order, same types (text may stand for varchar).
func checkNexmarkColumns(cols []Column, table nexmark.EventType) error {
	want := nexmark.Schema(table)
	if len(cols) != len(want) {
		return errNexmarkColumns(table, want, "")
	}
	for i, c := range cols {
		w := want[i]
		if c.Name != w.Name {
			return errNexmarkColumns(table, want, "column "+c.Name+" should be "+w.Name)
		}
		if !sameType(c.Type, w.Type) {
			return pgerror.New(pgerror.CodeDatatypeMismatch, "column %s of a nexmark %s source must be of type %s, not %s", c.Name, table, w.Type, c.Type).
				WithHint("Declare the columns as %s.", columnList(want))
		}
	}
	return nil
}

// sameType reports whether a declared column type holds a generated
// column's values as they are: the same type, or unbounded text for
// varchar.
func sameType(declared, generated types.T) bool {
	if declared == generated {
		return true
	}
	return generated.Family == types.Varchar && declared == types.TText
}

// errNexmarkColumns is the error for a column list that is not the table's.
func errNexmarkColumns(table nexmark.EventType, want []nexmark.Column, detail string) error {
	err := pgerror.New(pgerror.CodeSyntaxError, "a nexmark %s source must declare the columns %s", table, columnList(want))
	if detail != "" {
		err = err.WithDetail("%s", detail)
	}
	return err
}

// columnList renders columns as a column list of CREATE SOURCE.
func columnList(cols []nexmark.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + strings.ToUpper(c.Type.String())
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
