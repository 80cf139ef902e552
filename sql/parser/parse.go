package parser

import (
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
)

// Parse splits sql into statements and parses each. Errors are
// *pgerror.Error: 42601 syntax errors with Position set to the 1-based
// character offset into sql, or 0A000 for recognized but unsupported forms.
func Parse(sql string) ([]*Statement, error) {
	return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "the SQL parser is not ready yet")
}

// Position maps a byte offset in the statement's translated text (as TiDB
// reports it) to a 1-based character position in the original input.
func (s *Statement) Position(translatedOffset int) int {
	if len(s.posMap) == 0 {
		return charPos(s.input, s.Offset)
	}
	if translatedOffset < 0 {
		translatedOffset = 0
	}
	if translatedOffset >= len(s.posMap) {
		translatedOffset = len(s.posMap) - 1
	}
	return charPos(s.input, s.posMap[translatedOffset])
}

// charPos converts a byte offset in text to a 1-based character position.
func charPos(text string, byteOff int) int {
	if byteOff > len(text) {
		byteOff = len(text)
	}
	return utf8.RuneCountInString(text[:byteOff]) + 1
}
