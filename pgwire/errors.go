package pgwire

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/pgerror"
)

// SQLSTATE codes pgwire needs that pgerror does not define yet.
const (
	codeDuplicateCursor              = "42P03"
	codeObjectNotInPrerequisiteState = "55000"
)

// Severities of an ErrorResponse.
const (
	severityFatal = "FATAL"
	severityError = "ERROR"
)

// errQueryCanceled is the cause given to a statement's context by a
// CancelRequest.
func errQueryCanceled() *pgerror.Error {
	return pgerror.New(pgerror.CodeQueryCanceled, "canceling statement due to user request")
}

// errAdminShutdown is the cause given to a connection's context by Close.
func errAdminShutdown() *pgerror.Error {
	return fatal(pgerror.New(pgerror.CodeAdminShutdown, "terminating connection due to administrator command"))
}

// fatal returns a copy of e with FATAL severity.
func fatal(e *pgerror.Error) *pgerror.Error {
	c := *e
	c.Severity = severityFatal
	return &c
}

// callError returns the error to report for err, returned by a session call
// made with ctx. When pgwire cancelled ctx (CancelRequest, shutdown), the
// cancellation is what stopped the call, so its cause is reported whatever
// the session made of it.
func callError(ctx context.Context, err error) error {
	var cause *pgerror.Error
	if err != nil && ctx.Err() != nil && errors.As(context.Cause(ctx), &cause) {
		return cause
	}
	return err
}

// errorResponse builds the ErrorResponse for e. NUL bytes, which would cut a
// field short on the wire, are replaced.
func errorResponse(e *pgerror.Error) *pgproto3.ErrorResponse {
	severity := e.Severity
	if severity == "" {
		severity = severityError
	}
	return &pgproto3.ErrorResponse{
		Severity:            severity,
		SeverityUnlocalized: severity,
		Code:                e.Code,
		Message:             noNUL(e.Message),
		Detail:              noNUL(e.Detail),
		Hint:                noNUL(e.Hint),
		Position:            int32(max(e.Position, 0)),
	}
}

func noNUL(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\\0")
}
