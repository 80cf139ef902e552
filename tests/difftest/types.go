package difftest

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Type is a column or expression type the generator uses: a subset of
// PostgreSQL's.
type Type uint8

// The generated types, numeric ones in PostgreSQL's promotion order (an
// arithmetic operator's result is the later of its operands' types).
const (
	Int2 Type = iota
	Int4
	Int8
	Numeric
	Float8
	Text
	Bool
	Date
	Timestamp
	Interval
	numTypes
)

// typeNames are the types' SQL names; typeOIDs their PostgreSQL OIDs.
var (
	typeNames = [numTypes]string{"int2", "int4", "int8", "numeric", "float8", "text", "bool", "date", "timestamp", "interval"}
	typeOIDs  = [numTypes]uint32{21, 23, 20, 1700, 701, 25, 16, 1082, 1114, 1186}
)

// String returns the type's SQL name.
func (t Type) String() string { return typeNames[t] }

// isNumber reports whether t is one of the numeric types.
func (t Type) isNumber() bool { return t <= Float8 }

// isInt reports whether t is an integer type.
func (t Type) isInt() bool { return t <= Int8 }

// family groups the types PostgreSQL compares with each other without an
// explicit cast.
func (t Type) family() int {
	switch {
	case t.isNumber():
		return 0
	case t == Date || t == Timestamp:
		return 1
	default:
		return int(t)
	}
}

// typeOfOID returns the Type of a PostgreSQL type OID (int2, int4, ...),
// and false for other OIDs.
func typeOfOID(oid uint32) (Type, bool) {
	for t, o := range typeOIDs {
		if o == oid {
			return Type(t), true
		}
	}
	return 0, false
}

// edgeValues are each type's interesting values in PostgreSQL's text
// form: zero, signs, limits, specials. ordinaryValues are small ones that
// collide often across tables, so joins and groups match.
var (
	edgeValues = [numTypes][]string{
		Int2:      {"0", "-1", "32767", "-32768", "1", "255"},
		Int4:      {"0", "-1", "2147483647", "-2147483648", "1", "65536"},
		Int8:      {"0", "-1", "9223372036854775807", "-9223372036854775808", "1", "4294967296"},
		Numeric:   {"0", "-1", "0.001", "-0.0000001", "123456789.987654321", "99999999999999999999", "1.50", "NaN"},
		Float8:    {"0", "-0", "-1", "1e+308", "-1e+308", "1e-300", "0.1", "Infinity", "-Infinity", "NaN"},
		Text:      {"", " ", "a", "ABC", " x ", "%", "_", "a,b", "it's", "é", "NULL"},
		Bool:      {"true", "false"},
		Date:      {"2000-02-29", "1970-01-01", "0001-01-01", "4713-01-01 BC", "5874897-12-31", "infinity", "-infinity"},
		Timestamp: {"2000-02-29 12:34:56.789", "1999-12-31 23:59:59.999999", "1970-01-01 00:00:00", "4713-01-01 00:00:00 BC", "294276-12-31 23:59:59", "infinity", "-infinity"},
		Interval:  {"00:00:00", "-00:00:01", "1 year 2 mons 3 days 04:05:06", "1.5 seconds", "178000000 years", "-178000000 years", "2147483647 days", "-1 mons +1 day"},
	}
	ordinaryValues = [numTypes][]string{
		Int2:      {"1", "2", "3", "5", "-7", "10"},
		Int4:      {"1", "2", "3", "5", "-7", "10", "42"},
		Int8:      {"1", "2", "3", "5", "-7", "10", "42"},
		Numeric:   {"1", "2.5", "3", "-7.25", "10.0", "0.333"},
		Float8:    {"1", "2.5", "3", "-7.25", "10", "0.5"},
		Text:      {"a", "b", "c", "ab", "abc", "B", "10"},
		Bool:      {"true", "false"},
		Date:      {"2020-01-01", "2020-01-02", "2021-06-30", "1999-12-31"},
		Timestamp: {"2020-01-01 00:00:00", "2020-01-01 12:00:00", "2021-06-30 08:15:00", "1999-12-31 23:59:59"},
		Interval:  {"1 day", "2 hours", "1 mon", "-3 days", "00:30:00", "1 year"},
	}
)

// randomValue returns a value of t in PostgreSQL's text form, or "" for
// NULL when nullable.
func randomValue(r *rand.Rand, t Type, nullable bool) (v string, null bool) {
	switch n := r.IntN(100); {
	case nullable && n < 12:
		return "", true
	case n < 35:
		return pick(r, edgeValues[t]), false
	default:
		return pick(r, ordinaryValues[t]), false
	}
}

// quote returns s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// valueSQL returns the SQL for value v of type t (null: NULL) where the
// context gives the type, as in an INSERT's VALUES.
func valueSQL(t Type, v string, null bool) string {
	switch {
	case null:
		return "NULL"
	case t.isNumber() && isPlainNumber(v):
		return v
	case t == Bool:
		return v
	default:
		return quote(v)
	}
}

// literalSQL returns an SQL literal of value v with type t wherever it
// stands (bare when PostgreSQL types it so, else with a cast).
func literalSQL(t Type, v string) string {
	switch t {
	case Int4:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= -1<<31 && n < 1<<31 {
			return parenNeg(v)
		}
	case Numeric:
		if isPlainNumber(v) && strings.Contains(v, ".") {
			return parenNeg(v)
		}
	case Bool:
		return v
	case Text:
		return quote(v)
	}
	return quote(v) + "::" + t.String()
}

// parenNeg wraps a negative number in parentheses, so that it never
// follows another minus sign ("--" starts a comment).
func parenNeg(v string) string {
	if strings.HasPrefix(v, "-") {
		return "(" + v + ")"
	}
	return v
}

// isPlainNumber reports whether v is a decimal number (no NaN, exponent
// or infinity).
func isPlainNumber(v string) bool {
	if v == "" || v == "-" {
		return false
	}
	for i, c := range v {
		if !(c >= '0' && c <= '9' || c == '.' || c == '-' && i == 0) {
			return false
		}
	}
	return true
}

// pick returns a random element of s.
func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }
