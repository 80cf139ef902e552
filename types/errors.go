package types

import "github.com/streamdb/streamdb/pgerror"

// SQLSTATE codes used only by this package.
const (
	codeInvalidTimeZoneDisplacement = "22009"
	codeIntervalFieldOverflow       = "22015"
	codeUntranslatableCharacter     = "22P05"
	codeCharacterNotInRepertoire    = "22021"
	codeCannotCoerce                = "42846"
)

// errSyntax is PostgreSQL's error for input a type's input function rejects.
func errSyntax(typ, s string) error {
	return pgerror.New(pgerror.CodeInvalidTextRepresentation, "invalid input syntax for type %s: \"%s\"", typ, s)
}

// errValueRange is PostgreSQL's error for numeric input out of a type's range.
func errValueRange(typ, s string) error {
	return pgerror.New(pgerror.CodeNumericValueOutOfRange, "value \"%s\" is out of range for type %s", s, typ)
}

// errOutOfRange is the error for a value that does not fit its target type,
// e.g. "integer out of range".
func errOutOfRange(what string) error {
	return pgerror.New(pgerror.CodeNumericValueOutOfRange, "%s out of range", what)
}

// errBinary is the error for malformed binary input.
func errBinary(format string, args ...any) *pgerror.Error {
	return pgerror.New(pgerror.CodeInvalidBinaryRepresentation, format, args...)
}

// errCorrupt reports a storage encoding that cannot be decoded.
func errCorrupt(what string) error {
	return pgerror.New(pgerror.CodeInternal, "corrupt %s encoding", what)
}

// errFloatRange is float input's error for a value beyond the type's range.
func errFloatRange(t, typ string) error {
	return pgerror.New(pgerror.CodeNumericValueOutOfRange, "\"%s\" is out of range for type %s", t, typ)
}
