package dataflow

import "github.com/streamdb/streamdb/pgerror"

// Errors of operators whose input breaks its contract: a bug upstream, not
// a user error.
var (
	errRetractMissing = pgerror.New(pgerror.CodeInternal,
		"streaming state is inconsistent: a retraction names no live row (the input's stream key does not hold)")
	errAppendOnly = pgerror.New(pgerror.CodeInternal,
		"streaming state is inconsistent: a retraction arrived on an input planned as append-only")
)
