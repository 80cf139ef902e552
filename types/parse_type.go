package types

import "github.com/streamdb/streamdb/pgerror"

// ParseTypeName parses a PostgreSQL type name as users write it.
func ParseTypeName(name string) (T, error) {
	return TUnknown, pgerror.New(pgerror.CodeUndefinedObject, "type %q does not exist", name)
}
