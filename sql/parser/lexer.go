package parser

import (
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
)

// tokKind classifies a PostgreSQL token.
type tokKind uint8

const (
	tkEOF     tokKind = iota
	tkIdent           // unquoted identifier or keyword; val is lowercased
	tkQIdent          // "quoted" identifier; val is exact
	tkInt             // integer literal; val is its decimal digits
	tkNumeric         // decimal literal without exponent, e.g. 1.50; val as written
	tkFloat           // numeric literal PostgreSQL types numeric but TiDB would not: 1e5, 5.
	tkString          // string literal; val is the decoded value
	tkParam           // $n; val is n's digits
	tkOp              // operator; val is its text
	tkPunct           // one of ( ) [ ] , ; . : ::
)

// token is one lexical token; input[pos:end] is its source text.
type token struct {
	kind tokKind
	val  string
	pos  int
	end  int
}

// is reports whether t is the keyword (or unquoted identifier) kw.
func (t token) is(kw string) bool { return t.kind == tkIdent && t.val == kw }

// isPunct reports whether t is the punctuation or operator p.
func (t token) isPunct(p string) bool { return (t.kind == tkPunct || t.kind == tkOp) && t.val == p }

// maxIdentLen is PostgreSQL's NAMEDATALEN-1: longer identifiers are truncated.
const maxIdentLen = 63

// maxParams bounds $n, as the wire protocol carries at most 65535 parameters.
const maxParams = 65535

// lexer turns PostgreSQL text into tokens (standard_conforming_strings on).
type lexer struct {
	src  string
	pos  int
	toks []token
}

// lex tokenizes src. The result always ends with a tkEOF token at len(src).
func lex(src string) ([]token, error) {
	if !utf8.ValidString(src) {
		return nil, pgerror.New("22021", `invalid byte sequence for encoding "UTF8"`)
	}
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, pgerror.New("22021", `invalid byte sequence for encoding "UTF8": 0x00`).WithPosition(charPos(src, i))
	}
	l := &lexer{src: src}
	for {
		if err := l.skipSpace(); err != nil {
			return nil, err
		}
		if l.pos >= len(src) {
			l.toks = append(l.toks, token{kind: tkEOF, pos: len(src), end: len(src)})
			return l.toks, nil
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
}

// errAt returns a 42601 error positioned at byte offset pos.
func (l *lexer) errAt(pos int, format string, args ...any) *pgerror.Error {
	return pgerror.New(pgerror.CodeSyntaxError, format, args...).WithPosition(charPos(l.src, pos))
}

// skipSpace skips whitespace and comments.
func (l *lexer) skipSpace() error {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			l.pos++
		case strings.HasPrefix(l.src[l.pos:], "--"):
			if i := strings.IndexByte(l.src[l.pos:], '\n'); i >= 0 {
				l.pos += i + 1
			} else {
				l.pos = len(l.src)
			}
		case strings.HasPrefix(l.src[l.pos:], "/*"):
			start := l.pos
			depth := 0
			for {
				switch {
				case l.pos >= len(l.src):
					return l.errAt(start, `unterminated /* comment at or near "%s"`, l.src[start:min(start+2, len(l.src))])
				case strings.HasPrefix(l.src[l.pos:], "/*"):
					depth++
					l.pos += 2
				case strings.HasPrefix(l.src[l.pos:], "*/"):
					depth--
					l.pos += 2
				default:
					l.pos++
				}
				if depth == 0 {
					break
				}
			}
		default:
			return nil
		}
	}
	return nil
}

func (l *lexer) emit(kind tokKind, val string, start int) {
	l.toks = append(l.toks, token{kind: kind, val: val, pos: start, end: l.pos})
}

// next lexes one token at l.pos (which is not whitespace).
func (l *lexer) next() error {
	start := l.pos
	c := l.src[l.pos]
	rest := l.src[l.pos:]
	switch {
	case c == '\'':
		return l.lexString(start, false)
	case (c == 'e' || c == 'E') && len(rest) > 1 && rest[1] == '\'':
		l.pos++
		return l.lexString(start, true)
	case (c == 'n' || c == 'N') && len(rest) > 1 && rest[1] == '\'':
		l.pos++
		return l.lexString(start, false)
	case (c == 'u' || c == 'U') && strings.HasPrefix(rest[1:], "&'"):
		l.pos += 2
		if err := l.lexString(start, false); err != nil {
			return err
		}
		return l.decodeUnicode(start)
	case (c == 'b' || c == 'B' || c == 'x' || c == 'X') && len(rest) > 1 && rest[1] == '\'':
		return notSupportedAt(l.src, start, "bit-string literals are not supported").WithHint("use a bytea escape string such as '\\x0f'::bytea")
	case c == '"':
		return l.lexQuotedIdent(start)
	case (c == 'u' || c == 'U') && strings.HasPrefix(rest[1:], "&\""):
		return notSupportedAt(l.src, start, "Unicode-escaped identifiers are not supported")
	case c == '$':
		return l.lexDollar(start)
	case isIdentStart(c):
		l.pos++
		for l.pos < len(l.src) && isIdentCont(l.src[l.pos]) {
			l.pos++
		}
		l.emit(tkIdent, truncateIdent(asciiLower(l.src[start:l.pos])), start)
		return nil
	case isDigit(c) || (c == '.' && len(rest) > 1 && isDigit(rest[1])):
		return l.lexNumber(start)
	case c == ':' && strings.HasPrefix(rest, "::"):
		l.pos += 2
		l.emit(tkPunct, "::", start)
		return nil
	case strings.IndexByte("()[],;.:", c) >= 0:
		l.pos++
		l.emit(tkPunct, string(c), start)
		return nil
	case isOpChar(c):
		l.lexOperator(start)
		return nil
	}
	_, size := utf8.DecodeRuneInString(rest)
	return l.errAt(start, `syntax error at or near "%s"`, rest[:size])
}

// lexString lexes a quoted string whose opening quote is at l.pos. With
// escapes set it is an E'...' string with C-style backslash escapes. Adjacent
// strings separated by whitespace that includes a newline are concatenated,
// as PostgreSQL does.
func (l *lexer) lexString(start int, escapes bool) error {
	var b strings.Builder
	for {
		l.pos++ // opening quote
		for {
			if l.pos >= len(l.src) {
				return l.errAt(start, `unterminated quoted string at or near "%s"`, l.src[start:])
			}
			c := l.src[l.pos]
			switch {
			case c == '\'' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '\'':
				b.WriteByte('\'')
				l.pos += 2
				continue
			case c == '\'':
				l.pos++
			case c == '\\' && escapes:
				if err := l.lexEscape(&b); err != nil {
					return err
				}
				continue
			default:
				b.WriteByte(c)
				l.pos++
				continue
			}
			break
		}
		if !l.continuesString() {
			break
		}
	}
	s := b.String()
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		return pgerror.New("22021", `invalid byte sequence for encoding "UTF8"`).WithPosition(charPos(l.src, start))
	}
	l.emit(tkString, s, start)
	return nil
}

// continuesString reports whether a quote continuing the current string
// follows (after whitespace containing a newline), and moves to it.
func (l *lexer) continuesString() bool {
	i := l.pos
	newline := false
	for i < len(l.src) {
		c := l.src[i]
		switch {
		case c == '\n':
			newline = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(l.src[i:], "--"):
			j := strings.IndexByte(l.src[i:], '\n')
			if j < 0 {
				return false
			}
			i += j
		default:
			if c == '\'' && newline {
				l.pos = i
				return true
			}
			return false
		}
	}
	return false
}

// lexEscape decodes one backslash escape of an E'...' string at l.pos.
func (l *lexer) lexEscape(b *strings.Builder) error {
	start := l.pos
	l.pos++ // backslash
	if l.pos >= len(l.src) {
		return l.errAt(start, "unterminated quoted string")
	}
	c := l.src[l.pos]
	l.pos++
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case '0', '1', '2', '3', '4', '5', '6', '7':
		v := int(c - '0')
		for n := 1; n < 3 && l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '7'; n++ {
			v = v*8 + int(l.src[l.pos]-'0')
			l.pos++
		}
		b.WriteByte(byte(v))
	case 'x':
		v, n := hexValue(l.src[l.pos:], 2)
		if n == 0 {
			b.WriteByte('x')
			break
		}
		l.pos += n
		b.WriteByte(byte(v))
	case 'u', 'U':
		width := 4
		if c == 'U' {
			width = 8
		}
		v, n := hexValue(l.src[l.pos:], width)
		if n != width || !utf8.ValidRune(rune(v)) || v == 0 {
			return pgerror.New(pgerror.CodeInvalidEscapeSequence, "invalid Unicode escape").
				WithHint(`Unicode escapes must be \uXXXX or \UXXXXXXXX.`).WithPosition(charPos(l.src, start))
		}
		l.pos += n
		b.WriteRune(rune(v))
	default:
		// Any other character, including a quote or a multibyte one, is itself.
		_, size := utf8.DecodeRuneInString(l.src[l.pos-1:])
		b.WriteString(l.src[l.pos-1 : l.pos-1+size])
		l.pos += size - 1
	}
	return nil
}

// decodeUnicode decodes the \XXXX and \+XXXXXX escapes of the U&'...' string
// just lexed (UESCAPE is not supported).
func (l *lexer) decodeUnicode(start int) error {
	t := &l.toks[len(l.toks)-1]
	s := t.val
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		width, skip := 4, 1
		if i+1 < len(s) && s[i+1] == '+' {
			width, skip = 6, 2
		}
		v, n := hexValue(s[i+skip:], width)
		if n != width || !utf8.ValidRune(rune(v)) || v == 0 {
			return pgerror.New(pgerror.CodeSyntaxError, "invalid Unicode escape value").WithPosition(charPos(l.src, start))
		}
		b.WriteRune(rune(v))
		i += skip + n - 1
	}
	t.val = b.String()
	return nil
}

// hexValue parses up to width hex digits at the start of s and returns the
// value and the number of digits read.
func hexValue(s string, width int) (int, int) {
	v, n := 0, 0
	for n < width && n < len(s) {
		d := strings.IndexByte("0123456789abcdef", asciiLowerByte(s[n]))
		if d < 0 {
			break
		}
		v = v*16 + d
		n++
	}
	return v, n
}

// lexQuotedIdent lexes a "quoted identifier" at l.pos.
func (l *lexer) lexQuotedIdent(start int) error {
	var b strings.Builder
	l.pos++
	for {
		if l.pos >= len(l.src) {
			return l.errAt(start, `unterminated quoted identifier at or near "%s"`, l.src[start:])
		}
		c := l.src[l.pos]
		l.pos++
		if c != '"' {
			b.WriteByte(c)
			continue
		}
		if l.pos < len(l.src) && l.src[l.pos] == '"' {
			b.WriteByte('"')
			l.pos++
			continue
		}
		break
	}
	if b.Len() == 0 {
		return l.errAt(start, `zero-length delimited identifier at or near "%s"`, `""`)
	}
	l.emit(tkQIdent, truncateIdent(b.String()), start)
	return nil
}

// lexDollar lexes a $n parameter or a $tag$...$tag$ string at l.pos.
func (l *lexer) lexDollar(start int) error {
	rest := l.src[l.pos:]
	if len(rest) > 1 && isDigit(rest[1]) {
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		l.pos += i
		n := strings.TrimLeft(rest[1:i], "0")
		if len(n) > 5 || atoi(n) > maxParams {
			return pgerror.New(pgerror.CodeProgramLimitExceeded, "parameter $%s is out of range", rest[1:i]).
				WithPosition(charPos(l.src, start))
		}
		if n == "" {
			return pgerror.New("42P02", "there is no parameter $0").WithPosition(charPos(l.src, start))
		}
		l.emit(tkParam, n, start)
		return nil
	}
	i := 1
	for i < len(rest) && rest[i] != '$' && isIdentCont(rest[i]) {
		i++
	}
	if i >= len(rest) || rest[i] != '$' {
		return l.errAt(start, `syntax error at or near "%s"`, "$")
	}
	tag := rest[:i+1]
	body := rest[i+1:]
	j := strings.Index(body, tag)
	if j < 0 {
		return l.errAt(start, `unterminated dollar-quoted string at or near "%s"`, rest)
	}
	l.pos += len(tag) + j + len(tag)
	l.emit(tkString, body[:j], start)
	return nil
}

// lexNumber lexes a numeric literal at l.pos: decimal integers and
// fractions with optional exponent, 0x/0o/0b integers, and _ separators.
func (l *lexer) lexNumber(start int) error {
	rest := l.src[l.pos:]
	if len(rest) > 2 && rest[0] == '0' && strings.IndexByte("xXoObB", rest[1]) >= 0 {
		return l.lexRadix(start)
	}
	i := digitsEnd(rest, 0)
	kind := tkInt
	if i < len(rest) && rest[i] == '.' && !strings.HasPrefix(rest[i:], "..") {
		kind = tkNumeric
		j := digitsEnd(rest, i+1)
		if j == i+1 {
			kind = tkFloat // "5." has scale 0 in PostgreSQL
		}
		i = j
	}
	if i < len(rest) && (rest[i] == 'e' || rest[i] == 'E') {
		j := i + 1
		if j < len(rest) && (rest[j] == '+' || rest[j] == '-') {
			j++
		}
		if j < len(rest) && isDigit(rest[j]) {
			kind = tkFloat
			i = digitsEnd(rest, j)
		}
	}
	l.pos += i
	if l.pos < len(l.src) && isIdentStart(l.src[l.pos]) {
		return l.errAt(start, `trailing junk after numeric literal at or near "%s"`, l.src[start:l.pos+1])
	}
	text := rest[:i]
	if strings.Contains(text, "_") {
		if strings.Contains(text, "._") {
			return l.errAt(start, `trailing junk after numeric literal at or near "%s"`, text)
		}
		text = strings.ReplaceAll(text, "_", "")
	}
	if kind == tkInt {
		text = strings.TrimLeft(text, "0")
		if text == "" {
			text = "0"
		}
	}
	l.emit(kind, text, start)
	return nil
}

// lexRadix lexes a 0x, 0o or 0b integer literal at l.pos.
func (l *lexer) lexRadix(start int) error {
	rest := l.src[l.pos:]
	base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[asciiLowerByte(rest[1])]
	i := 2
	for i < len(rest) && (isIdentCont(rest[i])) {
		i++
	}
	l.pos += i
	digits := strings.ReplaceAll(rest[2:i], "_", "")
	var n big.Int
	if _, ok := n.SetString(digits, base); !ok || strings.HasPrefix(rest[2:i], "_") || strings.HasSuffix(rest[2:i], "_") {
		return l.errAt(start, `trailing junk after numeric literal at or near "%s"`, rest[:i])
	}
	l.emit(tkInt, n.String(), start)
	return nil
}

// lexOperator lexes an operator at l.pos with PostgreSQL's rules: the
// longest run of operator characters, stopping before a comment start,
// and a multi-character operator may end in + or - only if it contains
// one of ~ ! @ # % ^ & | ` ?.
func (l *lexer) lexOperator(start int) {
	i := l.pos
	for i < len(l.src) && isOpChar(l.src[i]) {
		if i > l.pos && (strings.HasPrefix(l.src[i:], "--") || strings.HasPrefix(l.src[i:], "/*")) {
			break
		}
		i++
	}
	op := l.src[l.pos:i]
	if len(op) > 1 && !strings.ContainsAny(op, "~!@#%^&|`?") {
		for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') {
			op = op[:len(op)-1]
		}
	}
	l.pos += len(op)
	l.emit(tkOp, op, start)
}

func isOpChar(c byte) bool { return strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0 }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// digitsEnd returns the end of the run of digits and _ separators at s[i:].
func digitsEnd(s string, i int) int {
	for i < len(s) && (isDigit(s[i]) || s[i] == '_' && i+1 < len(s) && isDigit(s[i+1])) {
		i++
	}
	return i
}

func asciiLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lowercases ASCII letters only, as PostgreSQL folds identifiers.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = asciiLowerByte(b[j])
			}
			return string(b)
		}
	}
	return s
}

// truncateIdent truncates an identifier to maxIdentLen bytes at a
// character boundary.
func truncateIdent(s string) string {
	if len(s) <= maxIdentLen {
		return s
	}
	n := maxIdentLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// atoi parses a short run of decimal digits.
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
