package expr

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/keywords"
	"github.com/streamdb/streamdb/types"
)

// maxAllocSize is PostgreSQL's MaxAllocSize: no value may be larger.
const maxAllocSize = 1<<30 - 1

// maxEncodingLen is the longest UTF-8 character in bytes.
const maxEncodingLen = 4

// codeSubstringError is SQLSTATE substring_error.
const codeSubstringError = "22011"

var (
	errLengthTooLarge   = pgerror.New(pgerror.CodeProgramLimitExceeded, "requested length too large")
	errNegativeSubstr   = pgerror.New(codeSubstringError, "negative substring length not allowed")
	errFieldPositionOff = pgerror.New(pgerror.CodeInvalidParameterValue, "field position must not be zero")
)

func init() {
	text := func(f func(s string) string) Overload {
		return sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.NewString(f(a[0].Str())), nil
		}, types.Text)
	}
	charLength := sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewInt(int64(utf8.RuneCountInString(a[0].Str()))), nil
	}, types.Text)
	RegisterBuiltin("length", charLength, byteLength(types.Bytea, 1))
	RegisterBuiltin("char_length", charLength)
	RegisterBuiltin("character_length", charLength)
	RegisterBuiltin("octet_length", byteLength(types.Text, 1), byteLength(types.Bytea, 1))
	RegisterBuiltin("bit_length", byteLength(types.Text, 8), byteLength(types.Bytea, 8))
	RegisterBuiltin("lower", text(strings.ToLower))
	RegisterBuiltin("upper", text(strings.ToUpper))
	RegisterBuiltin("initcap", text(initcap))
	RegisterBuiltin("reverse", text(reverse))
	for _, name := range []string{"substr", "substring"} {
		for _, f := range []types.Family{types.Text, types.Bytea} {
			ret := types.T{Family: f, Mod: -1}
			RegisterBuiltin(name,
				sig(ret, substringFn(f, false), f, types.Int4),
				sig(ret, substringFn(f, true), f, types.Int4, types.Int4))
		}
	}
	for _, f := range []types.Family{types.Text, types.Bytea} {
		ret := types.T{Family: f, Mod: -1}
		RegisterBuiltin("overlay",
			sig(ret, overlayFn(f, false), f, f, types.Int4),
			sig(ret, overlayFn(f, true), f, f, types.Int4, types.Int4))
	}
	strpos := sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, sub := a[0].Str(), a[1].Str()
		i := strings.Index(s, sub)
		if i < 0 {
			return types.NewInt(0), nil
		}
		return types.NewInt(int64(utf8.RuneCountInString(s[:i]) + 1)), nil
	}, types.Text, types.Text)
	RegisterBuiltin("strpos", strpos)
	RegisterBuiltin("replace", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[1].Str() == "" {
			return a[0], nil
		}
		return types.NewString(strings.ReplaceAll(a[0].Str(), a[1].Str(), a[2].Str())), nil
	}, types.Text, types.Text, types.Text))
	for _, t := range []struct {
		name string
		f    func(s, cutset string) string
	}{{"btrim", strings.Trim}, {"trim", strings.Trim}, {"ltrim", strings.TrimLeft}, {"rtrim", strings.TrimRight}} {
		RegisterBuiltin(t.name,
			text(func(s string) string { return t.f(s, " ") }),
			sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return types.NewString(t.f(a[0].Str(), a[1].Str())), nil
			}, types.Text, types.Text))
	}
	for _, p := range []struct {
		name string
		left bool
	}{{"lpad", true}, {"rpad", false}} {
		RegisterBuiltin(p.name,
			sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return pad(a[0].Str(), a[1].Int(), " ", p.left)
			}, types.Text, types.Int4),
			sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				return pad(a[0].Str(), a[1].Int(), a[2].Str(), p.left)
			}, types.Text, types.Int4, types.Text))
	}
	RegisterBuiltin("left", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		if n < 0 {
			n += int64(utf8.RuneCountInString(s))
		}
		return types.NewString(s[:charOffset(s, n)]), nil
	}, types.Text, types.Int4))
	RegisterBuiltin("right", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, n := a[0].Str(), a[1].Int()
		if n >= 0 {
			n = int64(utf8.RuneCountInString(s)) - n
		} else {
			n = -n
		}
		return types.NewString(s[charOffset(s, n):]), nil
	}, types.Text, types.Int4))
	RegisterBuiltin("repeat", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, n := a[0].Str(), max(a[1].Int(), 0)
		if n*int64(len(s)) > maxAllocSize-4 {
			return types.Null, errLengthTooLarge
		}
		return types.NewString(strings.Repeat(s, int(n))), nil
	}, types.Text, types.Int4))
	RegisterBuiltin("split_part", sig(types.TText, splitPart, types.Text, types.Text, types.Int4))
	RegisterBuiltin("concat", Overload{Args: []types.Family{Any, Any}, Variadic: true, Ret: Returns(types.TText), NonStrict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) { return concatWith("", a), nil }})
	RegisterBuiltin("concat_ws", Overload{Args: []types.Family{types.Text, Any, Any}, Variadic: true, Ret: Returns(types.TText), NonStrict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() {
				return types.Null, nil
			}
			return concatWith(a[0].Str(), a[1:]), nil
		}})
	md5Fn := func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		sum := md5.Sum([]byte(a[0].Str()))
		return types.NewString(hex.EncodeToString(sum[:])), nil
	}
	RegisterBuiltin("md5", sig(types.TText, md5Fn, types.Text), sig(types.TText, md5Fn, types.Bytea))
	RegisterBuiltin("ascii", sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		r, n := utf8.DecodeRuneInString(a[0].Str())
		if n == 0 {
			return types.NewInt(0), nil
		}
		return types.NewInt(int64(r)), nil
	}, types.Text))
	RegisterBuiltin("chr", sig(types.TText, chr, types.Int4))
	RegisterBuiltin("to_hex",
		sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.NewString(strconv.FormatUint(uint64(uint32(a[0].Int())), 16)), nil
		}, types.Int4),
		sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.NewString(strconv.FormatUint(uint64(a[0].Int()), 16)), nil
		}, types.Int8))
	RegisterBuiltin("translate", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewString(translate(a[0].Str(), a[1].Str(), a[2].Str())), nil
	}, types.Text, types.Text, types.Text))
	RegisterBuiltin("starts_with", sig(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewBool(strings.HasPrefix(a[0].Str(), a[1].Str())), nil
	}, types.Text, types.Text))
	RegisterBuiltin("quote_literal", text(quoteLiteral))
	RegisterBuiltin("quote_ident", text(QuoteIdent))
	RegisterBuiltin("format", Overload{Args: []types.Family{types.Text, Any}, Variadic: true, Ret: Returns(types.TText), NonStrict: true,
		Typed: func(ts []types.T) func(*Ctx, []types.Datum) (types.Datum, error) {
			return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				if a[0].IsNull() {
					return types.Null, nil
				}
				return format(a[0].Str(), a[1:], ts[1:])
			}
		}})
	RegisterBuiltin("quote_nullable", Overload{Args: []types.Family{types.Text}, Ret: Returns(types.TText), NonStrict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() {
				return types.NewString("NULL"), nil
			}
			return types.NewString(quoteLiteral(a[0].Str())), nil
		}})
}

// charOffset returns the byte offset of character k (0-based) of s: 0 for
// k <= 0, len(s) past the end.
func charOffset(s string, k int64) int {
	if k <= 0 {
		return 0
	}
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	return len(s)
}

// substringFn is substring(s, start [, count]) over characters of text or
// bytes of bytea: positions are 1-based, and the part of the range before
// the first character is simply empty.
func substringFn(f types.Family, hasCount bool) builtinFn {
	offset := charOffset
	mk := func(s string) types.Datum { return types.NewString(s) }
	if f == types.Bytea {
		offset = func(s string, k int64) int { return int(min(max(k, 0), int64(len(s)))) }
		mk = func(s string) types.Datum { return types.NewBytes([]byte(s)) }
	}
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, start := a[0].Str(), a[1].Int()-1
		if !hasCount {
			return mk(s[offset(s, start):]), nil
		}
		count := a[2].Int()
		if count < 0 {
			return types.Null, errNegativeSubstr
		}
		end := start + count
		start = max(start, 0)
		if end <= start {
			return mk(""), nil
		}
		from := offset(s, start)
		return mk(s[from : from+offset(s[from:], end-start)]), nil
	}
}

// overlayFn is overlay(s PLACING r FROM start [FOR count]) over characters
// of text or bytes of bytea: s's first start-1 characters, r, then s from
// start+count (count defaulting to r's length), as PostgreSQL's textoverlay.
func overlayFn(f types.Family, hasCount bool) builtinFn {
	offset, length := charOffset, func(s string) int64 { return int64(utf8.RuneCountInString(s)) }
	if f == types.Bytea {
		offset = func(s string, k int64) int { return int(min(max(k, 0), int64(len(s)))) }
		length = func(s string) int64 { return int64(len(s)) }
	}
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		s, r, start := a[0].Str(), a[1].Str(), a[2].Int()
		count := length(r)
		if hasCount {
			count = a[3].Int()
		}
		end := start + count
		if err := CheckIntRange(end, types.TInt4); err != nil {
			return types.Null, err
		}
		if start < 1 {
			return types.Null, errNegativeSubstr
		}
		out := s[:offset(s, start-1)] + r + s[offset(s, end-1):]
		if f == types.Bytea {
			return types.NewBytes([]byte(out)), nil
		}
		return types.NewString(out), nil
	}
}

// initcap upper-cases the first letter of each word and lower-cases the
// rest; words are runs of letters and digits.
func initcap(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inWord := false
	for _, r := range s {
		if inWord {
			r = unicode.ToLower(r)
		} else {
			r = unicode.ToUpper(r)
		}
		b.WriteRune(r)
		inWord = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return b.String()
}

// reverse reverses the characters of s.
func reverse(s string) string {
	b := make([]byte, len(s))
	j := len(b)
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		j -= w
		copy(b[j:], s[i:i+w])
		i += w
	}
	return string(b)
}

// byteLength is octet_length (bits 1) or bit_length (bits 8) of a text or
// bytea value.
func byteLength(f types.Family, bits int64) Overload {
	return sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewInt(bits * int64(len(a[0].Str()))), nil
	}, f)
}

// pad is lpad or rpad: s filled to n characters with repetitions of fill,
// or cut to its first n characters when longer.
func pad(s string, n int64, fill string, left bool) (types.Datum, error) {
	if n <= 0 {
		return types.NewString(""), nil
	}
	if n*maxEncodingLen > maxAllocSize-4 {
		return types.Null, errLengthTooLarge
	}
	have := int64(utf8.RuneCountInString(s))
	if have >= n {
		return types.NewString(s[:charOffset(s, n)]), nil
	}
	if fill == "" {
		return types.NewString(s), nil
	}
	var b strings.Builder
	b.Grow(len(s) + int(n-have))
	if !left {
		b.WriteString(s)
	}
	for need := n - have; need > 0; {
		for _, r := range fill {
			if need == 0 {
				break
			}
			b.WriteRune(r)
			need--
		}
	}
	if left {
		b.WriteString(s)
	}
	return types.NewString(b.String()), nil
}

// splitPart is split_part(s, delimiter, n): field n counting from 1, or from
// the end when n is negative; empty when there is no such field.
func splitPart(_ *Ctx, a []types.Datum) (types.Datum, error) {
	s, sep, n := a[0].Str(), a[1].Str(), a[2].Int()
	switch {
	case n == 0:
		return types.Null, errFieldPositionOff
	case s == "":
		return types.NewString(""), nil
	case sep == "":
		if n == 1 || n == -1 {
			return a[0], nil
		}
		return types.NewString(""), nil
	}
	if n > 0 {
		for ; n > 1; n-- {
			i := strings.Index(s, sep)
			if i < 0 {
				return types.NewString(""), nil
			}
			s = s[i+len(sep):]
		}
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
		return types.NewString(s), nil
	}
	for ; n < -1; n++ {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			return types.NewString(""), nil
		}
		s = s[:i]
	}
	if i := strings.LastIndex(s, sep); i >= 0 {
		s = s[i+len(sep):]
	}
	return types.NewString(s), nil
}

// concatWith joins the text forms of the non-NULL values with sep. A value's
// kind picks its output function; a float is printed as float8, since the
// function does not see whether it was a real.
func concatWith(sep string, vals []types.Datum) types.Datum {
	var b []byte
	first := true
	for _, v := range vals {
		if v.IsNull() {
			continue
		}
		if !first {
			b = append(b, sep...)
		}
		first = false
		if v.Kind() == types.KindString {
			b = append(b, v.Str()...)
		} else {
			b = types.FormatText(b, types.TFloat8, v)
		}
	}
	return types.NewString(string(b))
}

// chr returns the character with the given code point.
func chr(_ *Ctx, a []types.Datum) (types.Datum, error) {
	c := a[0].Int()
	switch {
	case c < 0:
		return types.Null, pgerror.New(pgerror.CodeProgramLimitExceeded, "character number must be positive")
	case c == 0:
		return types.Null, pgerror.New(pgerror.CodeProgramLimitExceeded, "null character not permitted")
	case c > unicode.MaxRune:
		return types.Null, pgerror.New(pgerror.CodeProgramLimitExceeded, "requested character too large for encoding: %d", c)
	case !utf8.ValidRune(rune(c)):
		return types.Null, pgerror.New(pgerror.CodeProgramLimitExceeded, "requested character not valid for encoding: %d", c)
	}
	return types.NewString(string(rune(c))), nil
}

// translate replaces each character of s found in from by the character at
// the same position in to, deleting it when to is shorter.
func translate(s, from, to string) string {
	if from == "" {
		return s
	}
	toRunes := []rune(to)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		i := 0
		found := false
		for _, f := range from {
			if f == r {
				found = true
				break
			}
			i++
		}
		switch {
		case !found:
			b.WriteRune(r)
		case i < len(toRunes):
			b.WriteRune(toRunes[i])
		}
	}
	return b.String()
}

// quoteLiteral quotes s as a string literal, doubling quotes and
// backslashes; a literal holding a backslash gets the E prefix.
func quoteLiteral(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 3)
	if strings.Contains(s, `\`) {
		b.WriteByte('E')
	}
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' || s[i] == '\\' {
			b.WriteByte(s[i])
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String()
}

// format(fmt, args...) is PostgreSQL's format: %s (the value's text, NULL
// as empty), %I (an identifier, quoted if needed), %L (a literal, NULL
// unquoted), %% and positions %n$.
func format(fmtText string, args []types.Datum, ts []types.T) (types.Datum, error) {
	var b strings.Builder
	next := 0
	for i := 0; i < len(fmtText); i++ {
		c := fmtText[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(fmtText) {
			return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "unterminated format() type specifier").
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
		if fmtText[i] == '%' {
			b.WriteByte('%')
			continue
		}
		arg := next
		if j := strings.IndexByte(fmtText[i:], '$'); j > 0 {
			if n, err := strconv.Atoi(fmtText[i : i+j]); err == nil {
				arg, i = n-1, i+j+1
			}
		}
		if i >= len(fmtText) {
			return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "unterminated format() type specifier")
		}
		if arg < 0 || arg >= len(args) {
			return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "too few arguments for format()")
		}
		next = arg + 1
		v, t := args[arg], ts[min(arg, len(ts)-1)]
		text := ""
		if !v.IsNull() {
			text = string(types.FormatText(nil, t, v))
		}
		switch fmtText[i] {
		case 's':
			b.WriteString(text)
		case 'I':
			if v.IsNull() {
				return types.Null, pgerror.New(codeNullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
			}
			b.WriteString(QuoteIdent(text))
		case 'L':
			if v.IsNull() {
				b.WriteString("NULL")
			} else {
				b.WriteString(quoteLiteral(text))
			}
		default:
			return types.Null, pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized format() type specifier \"%c\"", fmtText[i]).
				WithHint("For a single \"%%\" use \"%%%%\".")
		}
	}
	return types.NewString(b.String()), nil
}

// QuoteIdent is quote_ident: s as is if it is a plain lowercase
// identifier and no keyword beyond the unreserved ones, else
// double-quoted.
func QuoteIdent(s string) string {
	plain := s != ""
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain && keywords.Of(s) == keywords.Unreserved {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
