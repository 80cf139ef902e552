// Package changes holds what every sink connector delivers: the changes
// of a sink's rows, each with the vnode and epoch that order it and make
// a replay recognizable (a target records what it received per vnode).
package changes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Change is one change a sink delivers: a row added (Insert) or removed.
type Change struct {
	VNode  uint16
	Epoch  uint64
	Insert bool
	Row    []types.Datum
}

// Column is a column of a sink's rows.
type Column struct {
	Name string
	Type types.T
}

// Identity is how sink name (catalog id id) is known in its target, where
// it records what it delivered.
func Identity(name string, id uint32) string { return fmt.Sprintf("%s#%d", name, id) }

// KeyColumns resolves primary_key, a comma-separated list of column
// names, to indexes of cols.
func KeyColumns(cols []Column, primaryKey string) ([]int, error) {
	var key []int
	for _, n := range strings.Split(primaryKey, ",") {
		n = strings.TrimSpace(n)
		i := slices.IndexFunc(cols, func(c Column) bool { return strings.EqualFold(c.Name, n) })
		if i < 0 {
			return nil, pgerror.New(pgerror.CodeUndefinedColumn, "primary_key column %q is not a column of the sink", n)
		}
		key = append(key, i)
	}
	return key, nil
}

// CheckOptions refuses options of a sink of connector outside known.
func CheckOptions(connector string, opts map[string]string, known []string) error {
	for k := range opts {
		if !slices.Contains(known, k) {
			return pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized option %s for the %s sink", k, connector).
				WithHint("Its options are %s.", strings.Join(known, ", "))
		}
	}
	return nil
}
