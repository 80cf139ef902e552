package parser

import (
	"github.com/streamdb/streamdb/pgerror"
)

// syntaxError returns PostgreSQL's 42601 error for token t of src:
// `syntax error at or near "t"`, or `at end of input` for the final tkEOF.
// A statement's terminator is a tkEOF whose val is the text it stands for
// (";", or "RETURNING" when the list was cut off).
func syntaxError(src string, t token) *pgerror.Error {
	near := src[t.pos:t.end]
	if t.kind == tkEOF {
		if t.val == "" {
			return pgerror.New(pgerror.CodeSyntaxError, "syntax error at end of input").WithPosition(charPos(src, t.pos))
		}
		near = t.val
	}
	return pgerror.New(pgerror.CodeSyntaxError, `syntax error at or near "%s"`, near).WithPosition(charPos(src, t.pos))
}

// notSupportedAt returns a 0A000 feature_not_supported error positioned at
// byte offset pos of src.
func notSupportedAt(src string, pos int, format string, args ...any) *pgerror.Error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, format, args...).WithPosition(charPos(src, pos))
}

// syntaxErrorAt returns a 42601 syntax_error with message msg positioned
// at byte offset pos of src.
func syntaxErrorAt(src string, pos int, msg string) *pgerror.Error {
	return pgerror.New(pgerror.CodeSyntaxError, "%s", msg).WithPosition(charPos(src, pos))
}
