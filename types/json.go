package types

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
)

// maxJSONDepth bounds the nesting of JSON input.
const maxJSONDepth = 10000

// jsonValue is a parsed JSON value. Numbers hold their numeric text.
type jsonValue struct {
	kind  byte // one of "{[\"0tfn": object, array, string, number, true, false, null
	str   string
	elems []jsonValue  // array elements
	pairs []jsonMember // object members
}

type jsonMember struct {
	key string
	val jsonValue
}

// parseJSONB is jsonb_in: it validates JSON text and returns PostgreSQL's
// canonical jsonb text (object keys ordered by length then bytes, last
// duplicate wins, numbers as numeric prints them, ": " and ", "
// separators).
func parseJSONB(s string) (string, error) {
	p := jsonParser{s: s}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return "", err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return "", p.errExpected("end of input")
	}
	return string(v.appendText(make([]byte, 0, len(s)))), nil
}

var (
	jsonLiterals = map[string]byte{"true": 't', "false": 'f', "null": 'n'}
	jsonEscapes  = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
)

type jsonParser struct {
	s string
	i int
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func errJSON(detail string, args ...any) error {
	return pgerror.New(pgerror.CodeInvalidTextRepresentation, "invalid input syntax for type json").
		WithDetail(detail, args...)
}

// token returns the input token at the current position, for messages.
func (p *jsonParser) token() string {
	if p.i >= len(p.s) {
		return ""
	}
	j := p.i
	for j < len(p.s) && (isAlnum(p.s[j]) || p.s[j] >= 0x80) {
		j++
	}
	if j == p.i {
		_, n := utf8.DecodeRuneInString(p.s[p.i:])
		j += n
	}
	return p.s[p.i:j]
}

func (p *jsonParser) errExpected(what string) error {
	if p.i >= len(p.s) {
		return errJSON("The input string ended unexpectedly.")
	}
	return errJSON("Expected %s, but found \"%s\".", what, p.token())
}

func (p *jsonParser) value(depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, pgerror.New(pgerror.CodeProgramLimitExceeded, "JSON nesting is deeper than %d levels", maxJSONDepth)
	}
	if p.i >= len(p.s) {
		return jsonValue{}, errJSON("The input string ended unexpectedly.")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		return jsonValue{kind: '"', str: s}, err
	case c == '-' || isDigit(c):
		return p.number()
	case isAlpha(c):
		tok := p.token()
		if k, ok := jsonLiterals[tok]; ok {
			p.i += len(tok)
			return jsonValue{kind: k}, nil
		}
		return jsonValue{}, errJSON("Token \"%s\" is invalid.", tok)
	}
	return jsonValue{}, p.errExpected("JSON value")
}

func (p *jsonParser) object(depth int) (jsonValue, error) {
	v := jsonValue{kind: '{'}
	p.i++
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return v, p.errExpected("string")
		}
		key, err := p.string()
		if err != nil {
			return v, err
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return v, p.errExpected("\":\"")
		}
		p.i++
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.pairs = append(v.pairs, jsonMember{key, val})
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			p.skipSpace()
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			break
		}
		return v, p.errExpected("\",\" or \"}\"")
	}
	v.pairs = canonicalPairs(v.pairs)
	return v, nil
}

func (p *jsonParser) array(depth int) (jsonValue, error) {
	v := jsonValue{kind: '['}
	p.i++
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v, nil
	}
	for {
		elem, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		v.elems = append(v.elems, elem)
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			p.skipSpace()
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return v, nil
		}
		return v, p.errExpected("\",\" or \"]\"")
	}
}

// number reads JSON's number grammar and canonicalizes it as numeric.
func (p *jsonParser) number() (jsonValue, error) {
	start := p.i
	i := p.i
	if p.s[i] == '-' {
		i++
	}
	switch {
	case i < len(p.s) && p.s[i] == '0':
		i++
	case i < len(p.s) && isDigit(p.s[i]):
		i = skipDigits(p.s, i)
	default:
		p.i = start
		return jsonValue{}, errJSON("Token \"%s\" is invalid.", p.token())
	}
	ok := true
	if i < len(p.s) && p.s[i] == '.' {
		j := skipDigits(p.s, i+1)
		ok = j > i+1
		i = j
	}
	if ok && i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		i++
		if i < len(p.s) && (p.s[i] == '+' || p.s[i] == '-') {
			i++
		}
		j := skipDigits(p.s, i)
		ok = j > i
		i = j
	}
	if !ok || i < len(p.s) && (isAlnum(p.s[i]) || p.s[i] == '.') {
		for i < len(p.s) && (isAlnum(p.s[i]) || p.s[i] == '.') {
			i++
		}
		return jsonValue{}, errJSON("Token \"%s\" is invalid.", p.s[start:i])
	}
	p.i = i
	d, err := parseNumeric(p.s[start:i])
	if err != nil {
		return jsonValue{}, err
	}
	return jsonValue{kind: '0', str: string(appendNumeric(nil, d))}, nil
}

// string reads a JSON string, decoding its escapes.
func (p *jsonParser) string() (string, error) {
	p.i++ // opening quote
	start := p.i
	var buf []byte // nil until an escape forces a copy
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			s := p.s[start:p.i]
			if buf != nil {
				s = string(append(buf, s...))
			}
			p.i++
			return s, nil
		case c < 0x20:
			return "", errJSON("Character with value 0x%02x must be escaped.", c)
		case c == '\\':
			buf = append(buf, p.s[start:p.i]...)
			var err error
			if buf, err = p.escape(buf); err != nil {
				return "", err
			}
			start = p.i
		default:
			p.i++
		}
	}
	return "", errJSON("The input string ended unexpectedly.")
}

// escape decodes the escape sequence at p.i onto buf.
func (p *jsonParser) escape(buf []byte) ([]byte, error) {
	if p.i+1 >= len(p.s) {
		return nil, errJSON("The input string ended unexpectedly.")
	}
	c := p.s[p.i+1]
	if r, ok := jsonEscapes[c]; ok {
		p.i += 2
		return append(buf, r), nil
	}
	if c != 'u' {
		_, n := utf8.DecodeRuneInString(p.s[p.i+1:])
		return nil, errJSON("Escape sequence \"\\%s\" is invalid.", p.s[p.i+1:p.i+1+n])
	}
	r, err := p.hex4()
	if err != nil {
		return nil, err
	}
	switch {
	case r == 0:
		return nil, pgerror.New(codeUntranslatableCharacter, "unsupported Unicode escape sequence").
			WithDetail("\\u0000 cannot be converted to text.")
	case utf16.IsSurrogate(r) && r < 0xdc00:
		if p.i+1 >= len(p.s) || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
			return nil, errJSON("Unicode low surrogate must follow a high surrogate.")
		}
		lo, err := p.hex4()
		if err != nil {
			return nil, err
		}
		if lo < 0xdc00 || lo > 0xdfff {
			return nil, errJSON("Unicode low surrogate must follow a high surrogate.")
		}
		r = utf16.DecodeRune(r, lo)
	case utf16.IsSurrogate(r):
		return nil, errJSON("Unicode low surrogate must follow a high surrogate.")
	}
	return utf8.AppendRune(buf, r), nil
}

// hex4 reads \uXXXX at p.i.
func (p *jsonParser) hex4() (rune, error) {
	if p.i+6 > len(p.s) {
		return 0, errJSON("\"\\u\" must be followed by four hexadecimal digits.")
	}
	v, err := strconv.ParseUint(p.s[p.i+2:p.i+6], 16, 16)
	if err != nil {
		return 0, errJSON("\"\\u\" must be followed by four hexadecimal digits.")
	}
	p.i += 6
	return rune(v), nil
}

// appendText appends the canonical jsonb text of v.
func (v *jsonValue) appendText(dst []byte) []byte {
	switch v.kind {
	case '{':
		dst = append(dst, '{')
		for i := range v.pairs {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONString(dst, v.pairs[i].key)
			dst = append(dst, ": "...)
			dst = v.pairs[i].val.appendText(dst)
		}
		return append(dst, '}')
	case '[':
		dst = append(dst, '[')
		for i := range v.elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = v.elems[i].appendText(dst)
		}
		return append(dst, ']')
	case '"':
		return appendJSONString(dst, v.str)
	case 't':
		return append(dst, "true"...)
	case 'f':
		return append(dst, "false"...)
	case 'n':
		return append(dst, "null"...)
	}
	return append(dst, v.str...)
}

// appendJSONString appends s quoted as PostgreSQL's escape_json does.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\b':
			dst = append(dst, `\b`...)
		case '\f':
			dst = append(dst, `\f`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '"':
			dst = append(dst, `\"`...)
		case '\\':
			dst = append(dst, `\\`...)
		default:
			if c < 0x20 {
				dst = append(dst, `\u00`...)
				dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// jsonTypeName returns jsonb_typeof's name of canonical jsonb text's top
// level value.
func jsonTypeName(s string) string { return jsonKindName(s[0]) }

// jsonKindName names a value by its first character, which is its kind
// too (a number's is a digit, a minus sign or jsonValue's '0').
func jsonKindName(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
