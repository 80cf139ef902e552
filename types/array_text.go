package types

import (
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// appendArrayText appends array_out's text of the array d, elements of
// type elem: {e1,e2,...}, nested by dimension ({{1,2},{3,4}}), after
// [lo:hi]... = when a lower bound is not 1; NULL for a NULL element, and
// an element double-quoted (with a backslash before " and \) when it is
// empty, reads NULL in any case, or holds braces, commas, quotes,
// backslashes or white space. An Unknown elem formats each element by its
// kind.
func appendArrayText(dst []byte, elem T, d Datum, loc *time.Location) []byte {
	var dimBuf [MaxArrayDims]ArrayDim
	dims := d.ArrayDims(dimBuf[:0])
	for _, dim := range dims {
		if dim.Lower != 1 {
			dst = append(AppendArrayDims(dst, d), '=')
			break
		}
	}
	nest := max(len(dims), 1)
	for range nest {
		dst = append(dst, '{')
	}
	var buf []byte
	for i, e := range d.Array() {
		if i > 0 {
			// Close and reopen the dimensions an element index ends.
			wraps, stride := 0, 1
			for j := len(dims) - 1; j > 0; j-- {
				if stride *= int(dims[j].Len); i%stride != 0 {
					break
				}
				wraps++
			}
			for range wraps {
				dst = append(dst, '}')
			}
			dst = append(dst, ',')
			for range wraps {
				dst = append(dst, '{')
			}
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
	for range nest {
		dst = append(dst, '}')
	}
	return dst
}

// AppendArrayDims appends array_dims' text of the array d: [lo:hi] for
// each dimension, nothing for an empty array.
func AppendArrayDims(dst []byte, d Datum) []byte {
	for i := range d.ArrayNDims() {
		dim := d.ArrayDim(i)
		dst = append(dst, '[')
		dst = strconv.AppendInt(dst, int64(dim.Lower), 10)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(dim.Lower)+int64(dim.Len)-1, 10)
		dst = append(dst, ']')
	}
	return dst
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

// parseArray is array_in: an optional dimension decoration
// ([lo:hi][lo:hi]... =, [hi] meaning [1:hi]), then "{" elements or
// sub-arrays separated by commas "}", nested once per dimension, every
// sub-array of a level as long as the others; white space around them is
// ignored. An element is double-quoted or bare; a backslash takes the next
// character literally; a bare NULL (in any case) is a NULL element; bare
// elements lose trailing white space. Each element is read by elem's input
// function. Errors are PostgreSQL's: 22P02 "malformed array literal" with
// its detail, 54000 beyond six dimensions, 2202E for bounds out of order.
func parseArray(elem T, s string, loc *time.Location) (Datum, error) {
	p := arrayParser{s: s, elem: elem, loc: loc, leaf: -1}
	p.skipSpace()
	decl, err := p.bounds()
	if err != nil {
		return Null, err
	}
	if p.peek() != '{' {
		return Null, p.malformed("Array value must start with \"{\" or dimension information.")
	}
	if err := p.level(0); err != nil {
		return Null, err
	}
	p.skipSpace()
	if p.pos < len(s) {
		return Null, p.malformed("Junk after closing right brace.")
	}
	var dimBuf [MaxArrayDims]ArrayDim
	dims := dimBuf[:p.leaf+1]
	for i := range dims {
		dims[i] = ArrayDim{Len: p.lens[i], Lower: 1}
	}
	if decl == nil {
		return NewArrayDims(p.elems, dims), nil
	}
	if len(decl) != len(dims) {
		return Null, p.malformed("Specified array dimensions do not match array contents.")
	}
	for i, d := range decl {
		if d.Len != dims[i].Len {
			return Null, p.malformed("Specified array dimensions do not match array contents.")
		}
	}
	return NewArrayDims(p.elems, decl), nil
}

// bounds reads a dimension decoration and its "=", if there is one.
func (p *arrayParser) bounds() ([]ArrayDim, error) {
	var dims []ArrayDim
	for p.peek() == '[' {
		p.pos++
		if len(dims) == MaxArrayDims {
			return nil, ErrTooManyDims(len(dims) + 1)
		}
		lo, ok := p.boundNumber()
		if !ok {
			return nil, p.malformed("\"[\" must introduce explicitly-specified array dimensions.")
		}
		hi := lo
		if p.peek() == ':' {
			p.pos++
			if hi, ok = p.boundNumber(); !ok {
				return nil, p.malformed("Missing array dimension value.")
			}
		} else {
			lo = 1
		}
		if p.peek() != ']' {
			return nil, p.malformed("Missing \"]\" after array dimensions.")
		}
		p.pos++
		if hi < lo {
			return nil, pgerror.New(codeArraySubscriptError, "upper bound cannot be less than lower bound")
		}
		dims = append(dims, ArrayDim{Len: int32(hi - lo + 1), Lower: int32(lo)})
		p.skipSpace()
	}
	if dims == nil {
		return nil, nil
	}
	if p.peek() != '=' {
		return nil, p.malformed("Missing \"=\" after array dimensions.")
	}
	p.pos++
	p.skipSpace()
	return dims, nil
}

// boundNumber reads an optionally signed integer of a dimension.
func (p *arrayParser) boundNumber() (int64, bool) {
	start := p.pos
	if c := p.peek(); c == '-' || c == '+' {
		p.pos++
	}
	for c := p.peek(); c >= '0' && c <= '9'; c = p.peek() {
		p.pos++
	}
	v, err := strconv.ParseInt(p.s[start:p.pos], 10, 32)
	return v, err == nil
}

// level reads the braced (sub-)array at nesting depth, appending its
// elements and settling the length of its dimension.
func (p *arrayParser) level(depth int) error {
	if depth == MaxArrayDims {
		return ErrTooManyDims(depth + 1)
	}
	p.pos++ // {
	p.skipSpace()
	if p.peek() == '}' && depth == 0 {
		p.pos++
		return nil
	}
	n := int32(0)
	for {
		p.skipSpace()
		if p.peek() == '{' {
			if p.leaf >= 0 && depth >= p.leaf {
				return p.malformed("Unexpected \"{\" character.")
			}
			if err := p.level(depth + 1); err != nil {
				return err
			}
		} else {
			if p.leaf < 0 {
				p.leaf = depth
			}
			if depth != p.leaf {
				return p.malformed("Unexpected array element.")
			}
			text, null, err := p.element()
			if err != nil {
				return err
			}
			v := Null
			if !null {
				if v, err = ParseTextZone(p.elem, text, p.loc); err != nil {
					return err
				}
			}
			p.elems = append(p.elems, v)
		}
		n++
		p.skipSpace()
		switch p.peek() {
		case ',':
			p.pos++
			continue
		case '}':
			p.pos++
		case 0:
			return p.malformed("Unexpected end of input.")
		default:
			return p.malformed("Unexpected array element.")
		}
		break
	}
	switch p.lens[depth] {
	case 0:
		p.lens[depth] = n
	case n:
	default:
		return p.malformed("Multidimensional arrays must have sub-arrays with matching dimensions.")
	}
	return nil
}

// codeArraySubscriptError is SQLSTATE array_subscript_error.
const codeArraySubscriptError = "2202E"

// arrayParser reads array input text.
type arrayParser struct {
	s     string
	pos   int
	elem  T
	loc   *time.Location
	elems []Datum
	lens  [MaxArrayDims]int32 // each depth's length, 0 until known
	leaf  int                 // the depth of the elements, -1 until one is read
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
