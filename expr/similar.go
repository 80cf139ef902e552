package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// codeInvalidUseOfEscape is SQLSTATE invalid_use_of_escape_character.
const codeInvalidUseOfEscape = "2200C"

func init() {
	RegisterBuiltin("similar_to_escape",
		sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return similarDatum(a[0].Str(), "\\")
		}, types.Text),
		sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return similarDatum(a[0].Str(), a[1].Str())
		}, types.Text, types.Text))
	// substring(s SIMILAR pattern ESCAPE e), also written substring(s FROM
	// pattern FOR e): the part of s between the pattern's two
	// escape-double-quotes.
	RegisterBuiltin("substring", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		pattern, err := similarToRegex(a[1].Str(), a[2].Str(), true)
		if err != nil {
			return types.Null, err
		}
		return regexSubstring(a[0].Str(), pattern)
	}, types.Text, types.Text, types.Text))
	// substring(s FROM pattern): the first match of a POSIX regular
	// expression, or of its first parenthesized subexpression.
	RegisterBuiltin("substring", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return regexSubstring(a[0].Str(), a[1].Str())
	}, types.Text, types.Text))
}

// similarDatum is similar_to_escape's text value.
func similarDatum(pattern, esc string) (types.Datum, error) {
	re, err := similarToRegex(pattern, esc, false)
	if err != nil {
		return types.Null, err
	}
	return types.NewString(re), nil
}

// regexSubstring is PostgreSQL's textregexsubstr: the text the first
// parenthesized subexpression of pattern matched in s, or the whole match
// when it has none; NULL without a match.
func regexSubstring(s, pattern string) (types.Datum, error) {
	re, err := compileRegex(pattern, "")
	if err != nil {
		return types.Null, err
	}
	m := re.FindStringSubmatchIndex(s)
	if len(m) > 2 {
		m = m[2:4]
	}
	if m == nil || m[0] < 0 {
		return types.Null, nil
	}
	return types.NewString(s[m[0]:m[1]]), nil
}

// similarToRegex translates an SQL regular expression (SIMILAR TO's
// pattern) into a POSIX one as PostgreSQL's similar_to_escape does: the
// result is anchored, % becomes .*, _ becomes ., ( becomes (?:, \ . ^ $
// are quoted, the escape character esc (empty: none) quotes the next
// character, and two escape-double-quotes cut the pattern into three
// parts, the middle one captured, for substring. Character classes pass
// through. lazyHead makes the first part's quantifiers non-greedy, so that
// Go's leftmost-first matching gives it the shortest match, as
// PostgreSQL's engine does for the first part, and not PostgreSQL's text.
func similarToRegex(pattern, esc string, lazyHead bool) (string, error) {
	escape := rune(-1)
	switch utf8.RuneCountInString(esc) {
	case 0:
	case 1:
		escape, _ = utf8.DecodeRuneInString(esc)
	default:
		return "", pgerror.New(pgerror.CodeInvalidEscapeSequence, "invalid escape string").
			WithHint("Escape string must be empty or one character.")
	}
	var b strings.Builder
	b.Grow(len(pattern) + 23)
	b.WriteString("^(?:")
	afterEscape := false
	nquotes := 0
	// classDepth counts open brackets; classStart is 1 right after a
	// class's opening bracket, 2 after its initial caret (a ] there is
	// literal), 3 past them.
	classDepth, classStart := 0, 0
	lazy := lazyHead
	for _, c := range pattern {
		switch {
		case afterEscape:
			afterEscape = false
			if c == '"' && classDepth == 0 {
				switch nquotes {
				case 0:
					b.WriteString("){1,1}?(")
				case 1:
					b.WriteString("){1,1}(?:")
				default:
					return "", pgerror.New(codeInvalidUseOfEscape, "SQL regular expression may not contain more than two escape-double-quote separators")
				}
				nquotes++
				lazy = false
				continue
			}
			b.WriteByte('\\')
			b.WriteRune(c)
			classStart = 3
		case c == escape:
			afterEscape = true
		case classDepth > 0:
			if c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			switch {
			case c == ']' && classStart > 2:
				classDepth--
			case c == '[':
				classDepth++
			}
			if c == '^' {
				classStart++
			} else {
				classStart = 3
			}
		case c == '[':
			b.WriteByte('[')
			classDepth, classStart = 1, 1
		case c == '%':
			b.WriteString(".*")
			if lazy {
				b.WriteByte('?')
			}
		case c == '_':
			b.WriteByte('.')
		case c == '(':
			b.WriteString("(?:")
		case c == '\\' || c == '.' || c == '^' || c == '$':
			b.WriteByte('\\')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
			if lazy && (c == '*' || c == '+' || c == '?' || c == '}') {
				b.WriteByte('?')
			}
		}
	}
	b.WriteString(")$")
	return b.String(), nil
}
