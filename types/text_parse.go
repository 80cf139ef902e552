package types

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
)

// nameMaxBytes is PostgreSQL's NAMEDATALEN-1: names are cut to 63 bytes.
const nameMaxBytes = 63

// ParseText parses s with PostgreSQL's input function for t (what '...'::t
// does), applying t's modifier: varchar(n) and char(n) reject longer values
// (unless the excess is spaces), char(n) pads, numeric(p,s) rounds and
// checks, time(p) and timestamp(p) round. Errors are *pgerror.Error with
// PostgreSQL's codes and messages.
func ParseText(t T, s string) (Datum, error) { return ParseTextZone(t, s, nil) }

// ParseTextZone is ParseText with TimeZone loc (nil: UTC): a timestamptz
// without an offset is a wall-clock time in loc.
func ParseTextZone(t T, s string, loc *time.Location) (Datum, error) {
	if err := validateText(s); err != nil {
		return Null, err
	}
	switch t.Family {
	case Bool:
		return parseBool(s)
	case Int2, Int4, Int8:
		typ, lo, hi := intRange(t.Family)
		return parseInt(s, typ, lo, hi)
	case Oid:
		return parseOid(s)
	case Float4:
		f, err := parseFloat(s, 32)
		return NewFloat(f), err
	case Float8:
		f, err := parseFloat(s, 64)
		return NewFloat(f), err
	case Numeric:
		d, err := parseNumeric(s)
		if err != nil {
			return Null, err
		}
		if d, err = applyNumericMod(d, t.Mod); err != nil {
			return Null, err
		}
		return NewDecimal(d), nil
	case Text, Unknown:
		return NewString(s), nil
	case Varchar, Bpchar:
		v, err := applyStringMod(s, t, false)
		return NewString(v), err
	case Name:
		return NewString(truncateName(s)), nil
	case Bytea:
		b, err := parseBytea(s)
		return NewBytes(b), err
	case Date:
		days, err := parseDate(s)
		return NewDate(days), err
	case Time:
		micros, err := parseTime(s)
		return NewTime(roundMicros(micros, t.Mod)), err
	case Timestamp:
		micros, err := parseTimestamp(s, false, nil)
		return NewTimestamp(roundMicros(micros, t.Mod)), err
	case TimestampTZ:
		micros, err := parseTimestamp(s, true, loc)
		return NewTimestampTZ(roundMicros(micros, t.Mod)), err
	case Interval:
		iv, err := parseInterval(s, t.Mod)
		return NewInterval(iv), err
	case Jsonb:
		j, err := parseJSONB(s)
		return NewJSON(j), err
	case Array:
		return parseArray(t.ElemType(), s, loc)
	case Record:
		return Null, errRecordInput()
	}
	return Null, pgerror.New(pgerror.CodeFeatureNotSupported, "type %s has no text input", t)
}

// validateText rejects what PostgreSQL's UTF8 server encoding cannot hold:
// invalid UTF-8 and NUL bytes.
func validateText(s string) error {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return nil
	}
	i := strings.IndexByte(s, 0)
	for j := 0; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		if r == utf8.RuneError && n == 1 && (i < 0 || j < i) {
			i = j
			break
		}
		j += n
	}
	return pgerror.New(codeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", s[i])
}

// parseBool is boolin: t/true/yes/on/1 and f/false/no/off/0, any unique
// prefix, any case, surrounding spaces allowed.
func parseBool(s string) (Datum, error) {
	t := strings.ToLower(trimSpace(s))
	if t != "" {
		switch t[0] {
		case 't':
			if strings.HasPrefix("true", t) {
				return NewBool(true), nil
			}
		case 'f':
			if strings.HasPrefix("false", t) {
				return NewBool(false), nil
			}
		case 'y':
			if strings.HasPrefix("yes", t) {
				return NewBool(true), nil
			}
		case 'n':
			if strings.HasPrefix("no", t) {
				return NewBool(false), nil
			}
		case 'o':
			if len(t) >= 2 && strings.HasPrefix("on", t) {
				return NewBool(true), nil
			}
			if len(t) >= 2 && strings.HasPrefix("off", t) {
				return NewBool(false), nil
			}
		case '1':
			if t == "1" {
				return NewBool(true), nil
			}
		case '0':
			if t == "0" {
				return NewBool(false), nil
			}
		}
	}
	return Null, errSyntax("boolean", s)
}

// parseInt is int2in/int4in/int8in: optional sign and decimal digits,
// surrounding spaces allowed, range-checked.
func parseInt(s, typ string, lo, hi int64) (Datum, error) {
	t := trimSpace(s)
	digits := t
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" || skipDigits(digits, 0) != len(digits) {
		return Null, errSyntax(typ, s)
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < lo || v > hi {
		return Null, errValueRange(typ, s)
	}
	return NewInt(v), nil
}

// parseOid is oidin: an unsigned 32-bit number; negative input down to
// -2^31 wraps around as in PostgreSQL.
func parseOid(s string) (Datum, error) {
	d, err := parseInt(s, "oid", math.MinInt32, math.MaxUint32)
	if err != nil {
		if pgerror.Code(err) == pgerror.CodeInvalidTextRepresentation {
			return Null, err
		}
		return Null, errValueRange("oid", s)
	}
	return NewInt(int64(uint32(d.Int()))), nil
}

// applyStringMod enforces the length of varchar(n) or char(n) on s: input
// and assignment (explicit false) reject a longer value unless the excess
// is spaces, which are cut; an explicit cast truncates. char(n) pads with
// spaces to n characters.
func applyStringMod(s string, t T, explicit bool) (string, error) {
	if t.Mod < 0 {
		return s, nil
	}
	n := int(t.Mod)
	count := 0
	for i := range s {
		if count == n {
			if !explicit && strings.TrimLeft(s[i:], " ") != "" {
				return "", pgerror.New(pgerror.CodeStringDataRightTruncation, "value too long for type %s", t)
			}
			return s[:i], nil
		}
		count++
	}
	if t.Family == Bpchar && count < n {
		return s + strings.Repeat(" ", n-count), nil
	}
	return s, nil
}

// truncateName cuts s to PostgreSQL's name length at a character boundary.
func truncateName(s string) string {
	if len(s) <= nameMaxBytes {
		return s
	}
	i := nameMaxBytes
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// parseBytea is byteain: \x followed by hex digits (whitespace between
// bytes allowed), or the escape format (\\ and \ooo octal escapes).
func parseBytea(s string) ([]byte, error) {
	if strings.HasPrefix(s, `\x`) {
		return parseByteaHex(s[2:])
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && isOctal(s[i+1]) && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return nil, errSyntaxNoValue("bytea")
		}
	}
	return out, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func parseByteaHex(s string) ([]byte, error) {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		hi, ok := unhex(c)
		if !ok {
			return nil, errHexDigit(s[i:])
		}
		if i+1 >= len(s) {
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "invalid hexadecimal data: odd number of digits")
		}
		lo, ok := unhex(s[i+1])
		if !ok {
			return nil, errHexDigit(s[i+1:])
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return out, nil
}

func errHexDigit(s string) error {
	_, n := utf8.DecodeRuneInString(s)
	return pgerror.New(pgerror.CodeInvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[:n])
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// errSyntaxNoValue is the syntax error of input functions that do not quote
// the input (bytea's escape format).
func errSyntaxNoValue(typ string) error {
	return pgerror.New(pgerror.CodeInvalidTextRepresentation, "invalid input syntax for type %s", typ)
}
