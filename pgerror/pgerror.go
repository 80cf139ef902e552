// Package pgerror defines the error type every layer of streamdb returns to
// clients: a PostgreSQL error with an SQLSTATE code, so that pgwire can send an
// ErrorResponse without knowing where the error came from.
package pgerror

import (
	"errors"
	"fmt"
)

// SQLSTATE codes used by streamdb (see PostgreSQL's errcodes.txt).
const (
	CodeSuccessfulCompletion        = "00000"
	CodeFeatureNotSupported         = "0A000"
	CodeInvalidCatalogName          = "3D000"
	CodeInvalidSchemaName           = "3F000"
	CodeSyntaxError                 = "42601"
	CodeUndefinedTable              = "42P01"
	CodeUndefinedColumn             = "42703"
	CodeUndefinedFunction           = "42883"
	CodeAmbiguousFunction           = "42725"
	CodeUndefinedObject             = "42704"
	CodeDuplicateTable              = "42P07"
	CodeDuplicateColumn             = "42701"
	CodeDuplicateObject             = "42710"
	CodeDuplicateFunction           = "42723"
	CodeInvalidFunctionDefinition   = "42P13"
	CodeUndefinedParameterRef       = "42P02"
	CodeDuplicateAlias              = "42712"
	CodeAmbiguousColumn             = "42702"
	CodeDatatypeMismatch            = "42804"
	CodeGroupingError               = "42803"
	CodeInvalidColumnReference      = "42P10"
	CodeIndeterminateDatatype       = "42P18"
	CodeWrongObjectType             = "42809"
	CodeDuplicateSchema             = "42P06"
	CodeReservedName                = "42939"
	CodeInvalidTableDefinition      = "42P16"
	CodeInvalidParameterValue       = "22023"
	CodeInvalidTextRepresentation   = "22P02"
	CodeInvalidBinaryRepresentation = "22P03"
	CodeBadCopyFileFormat           = "22P04"
	CodeNumericValueOutOfRange      = "22003"
	CodeDivisionByZero              = "22012"
	CodeInvalidPrecedingFollowing   = "22013"
	CodeStringDataRightTruncation   = "22001"
	CodeInvalidDatetimeFormat       = "22007"
	CodeDatetimeFieldOverflow       = "22008"
	CodeCardinalityViolation        = "21000"
	CodeInvalidEscapeSequence       = "22025"
	CodeNotNullViolation            = "23502"
	CodeUniqueViolation             = "23505"
	CodeDependentObjectsStillExist  = "2BP01"
	CodeInvalidGrantOperation       = "0LP01"
	CodeProtocolViolation           = "08P01"
	CodeConnectionFailure           = "08006"
	CodeUnableToConnect             = "08001"
	CodeQueryCanceled               = "57014"
	CodeCannotConnectNow            = "57P03"
	CodeAdminShutdown               = "57P01"
	CodeInvalidPreparedStatement    = "26000"
	CodeInvalidCursorName           = "34000"
	CodeDuplicateCursor             = "42P03"
	CodeInvalidCursorDefinition     = "42P11"
	CodeNoActiveSQLTransaction      = "25P01"
	CodeDuplicatePreparedStatement  = "42P05"
	CodeUndefinedParameter          = "42704"
	CodeInFailedTransaction         = "25P02"
	CodeReadOnlySQLTransaction      = "25006"
	CodeSerializationFailure        = "40001"
	CodeSnapshotTooOld              = "72000"
	CodeDeadlockDetected            = "40P01"
	CodeActiveSQLTransaction        = "25001"
	CodeIdleInTransactionTimeout    = "25P03"
	CodeInternal                    = "XX000"
	CodeProgramLimitExceeded        = "54000"
	CodeTooManyConnections          = "53300"
	CodeStatementTooComplex         = "54001"
	CodeTooManyColumns              = "54011"
	CodeTooManyArguments            = "54023"
	CodeObjectInUse                 = "55006"
	CodeObjectNotInState            = "55000"
	CodeIOError                     = "58030"
	CodeInvalidParameterNumber      = "08P01"
	// Authentication and privileges.
	CodeInsufficientPrivilege = "42501"
	CodeInvalidPassword       = "28P01"
	CodeInvalidAuthorization  = "28000"
)

// Error is a PostgreSQL error. Position is a 1-based character offset into
// the statement text, or 0 when unknown.
type Error struct {
	Severity string
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int
}

// Error implements error.
func (e *Error) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("%s (SQLSTATE %s; hint: %s)", e.Message, e.Code, e.Hint)
	}
	return fmt.Sprintf("%s (SQLSTATE %s)", e.Message, e.Code)
}

// New returns an ERROR-severity error with the given code.
func New(code, format string, args ...any) *Error {
	return &Error{Severity: "ERROR", Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// WithDetail returns e with its detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithPosition returns e with its position set (1-based, in characters).
func (e *Error) WithPosition(pos int) *Error {
	e.Position = pos
	return e
}

// From converts any error to an *Error; errors that carry no SQLSTATE
// become internal errors (XX000).
func From(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Severity: "ERROR", Code: CodeInternal, Message: err.Error()}
}

// Code returns the SQLSTATE of err, or "" when err is nil.
func Code(err error) string {
	if err == nil {
		return ""
	}
	return From(err).Code
}
