package types

import (
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// appendArrayText appends array_out's text of elems, values of type elem:
// {e1,e2,...}, NULL for a NULL element, and an element double-quoted (with
// a backslash before " and \) when it is empty, reads NULL in any case, or
// holds braces, commas, quotes, backslashes or white space. An Unknown elem
// formats each element by its kind.
func appendArrayText(dst []byte, elem T, elems []Datum, loc *time.Location) []byte {
	dst = append(dst, '{')
	var buf []byte
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		if e.kind == KindNull {
			dst = append(dst, "NULL"...)
			continue
		}
		t := elem
		if t.Family == Unknown {
			t = kindTypes[e.kind]
		}
		buf = FormatTextZone(buf[:0], t, e, loc)
		dst = appendArrayElem(dst, buf)
	}
	return append(dst, '}')
}

// appendArrayElem appends one element's text, quoted if it needs to be.
func appendArrayElem(dst, v []byte) []byte {
	quote := len(v) == 0 || strings.EqualFold(string(v), "NULL")
	for _, c := range v {
		if c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || isArraySpace(c) {
			quote = true
			break
		}
	}
	if !quote {
		return append(dst, v...)
	}
	dst = append(dst, '"')
	for _, c := range v {
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, '"')
}

// isArraySpace is array_isspace: the white space array input skips.
func isArraySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseArray is array_in for one dimension: "{" elements separated by
// commas "}", white space around them ignored. An element is double-quoted
// or bare; a backslash takes the next character literally; a bare NULL (in
// any case) is a NULL element; bare elements lose trailing white space. Each
// element is read by elem's input function. Errors are 22P02 "malformed
// array literal" with PostgreSQL's detail; more dimensions are 0A000.
func parseArray(elem T, s string, loc *time.Location) (Datum, error) {
	p := arrayParser{s: s}
	p.skipSpace()
	switch {
	case p.peek() == '[':
		return Null, pgerror.New(pgerror.CodeFeatureNotSupported, "array dimension decorations are not supported: \"%s\"", s)
	case p.peek() != '{':
		return Null, p.malformed("Array value must start with \"{\" or dimension information.")
	}
	p.pos++
	p.skipSpace()
	var elems []Datum
	switch p.peek() {
	case '{':
		return Null, errMultiDim()
	case '}':
		p.pos++
	default:
		for done := false; !done; {
			text, null, err := p.element()
			if err != nil {
				return Null, err
			}
			v := Null
			if !null {
				if v, err = ParseTextZone(elem, text, loc); err != nil {
					return Null, err
				}
			}
			elems = append(elems, v)
			done = p.peek() == '}'
			p.pos++
		}
	}
	p.skipSpace()
	if p.pos < len(s) {
		return Null, p.malformed("Junk after closing right brace.")
	}
	return NewArray(elems), nil
}

// arrayParser reads array input text.
type arrayParser struct {
	s   string
	pos int
}

// peek returns the next byte, or 0 at the end.
func (p *arrayParser) peek() byte {
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *arrayParser) skipSpace() {
	for p.pos < len(p.s) && isArraySpace(p.s[p.pos]) {
		p.pos++
	}
}

func (p *arrayParser) malformed(detail string) error {
	return pgerror.New(pgerror.CodeInvalidTextRepresentation, "malformed array literal: \"%s\"", p.s).WithDetail("%s", detail)
}

// element reads one element and the white space after it, stopping at the
// comma or closing brace that ends it. null reports a bare NULL.
func (p *arrayParser) element() (text string, null bool, err error) {
	p.skipSpace()
	var b strings.Builder
	quoted := p.peek() == '"'
	if quoted {
		p.pos++
	}
	literal := quoted // whether the text came quoted or escaped
	keep := 0         // length of b up to its last quoted or escaped byte
	for {
		if p.pos >= len(p.s) {
			return "", false, p.malformed("Unexpected end of input.")
		}
		c := p.s[p.pos]
		switch {
		case c == '\\':
			p.pos++
			if p.pos >= len(p.s) {
				return "", false, p.malformed("Unexpected end of input.")
			}
			b.WriteByte(p.s[p.pos])
			literal, keep = true, b.Len()
		case quoted && c == '"':
			p.pos++
			p.skipSpace()
			if c := p.peek(); c != ',' && c != '}' {
				if c == 0 {
					return "", false, p.malformed("Unexpected end of input.")
				}
				return "", false, p.malformed("Unexpected array element.")
			}
			return b.String(), false, nil
		case quoted:
			b.WriteByte(c)
		case c == ',' || c == '}':
			if b.Len() == 0 && !literal {
				return "", false, p.malformed("Unexpected \"" + string(c) + "\" character.")
			}
			v := b.String()
			v = v[:keep] + strings.TrimRightFunc(v[keep:], func(r rune) bool { return r < 0x80 && isArraySpace(byte(r)) })
			return v, !literal && strings.EqualFold(v, "NULL"), nil
		case c == '{':
			return "", false, p.malformed("Unexpected \"{\" character.")
		case c == '"':
			return "", false, p.malformed("Unexpected array element.")
		default:
			b.WriteByte(c)
		}
		p.pos++
	}
}
