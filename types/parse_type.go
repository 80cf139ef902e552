package types

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// Limits of type modifiers.
const (
	maxStringLength   = 10485760 // varchar(n) and char(n)
	maxTimePrecision  = 6
	maxFloat4BitsPrec = 24
	maxFloatBitsPrec  = 53
)

// ParseTypeName parses a type name as users write it in casts and column
// definitions: PostgreSQL's names and SQL spellings in any case and
// spacing (integer, double precision, character varying(10), numeric(10,2),
// timestamp(3) with time zone, interval day to second(3), ...), optionally
// pg_catalog-qualified, plus the MySQL/SQLite spellings of test corpora
// (DOUBLE, FLOAT, ...). serial
// types are their integer types; json and regclass are jsonb and oid. An
// unknown name is an error 42704. Array types are written elem[] (any
// number of brackets, sizes ignored, as in PostgreSQL) or by PostgreSQL's
// internal names (_int4).
func ParseTypeName(name string) (T, error) {
	norm := normalizeTypeName(name)
	norm = strings.TrimPrefix(norm, "pg_catalog.")
	if elem, ok := cutArrayBounds(norm); ok {
		t, err := ParseTypeName(elem)
		if err != nil {
			return TUnknown, err
		}
		return ArrayOf(t)
	}
	if f, ok := internalArrayNames[norm]; ok {
		return ArrayOf(T{Family: f, Mod: -1})
	}
	base, args, ok := splitTypeArgs(norm)
	if !ok {
		return TUnknown, pgerror.New(pgerror.CodeSyntaxError, "syntax error in type name \"%s\"", name)
	}
	if base == "interval" || strings.HasPrefix(base, "interval ") {
		return intervalType(base, args)
	}
	f, known := typeNames[base]
	if !known {
		if unsupportedTypes[base] {
			return TUnknown, pgerror.New(pgerror.CodeFeatureNotSupported, "type %s is not supported", base)
		}
		return TUnknown, pgerror.New(pgerror.CodeUndefinedObject, "type \"%s\" does not exist", norm)
	}
	switch f {
	case Varchar, Bpchar:
		return stringType(f, base, args)
	case Numeric:
		return numericType(args)
	case Time, Timestamp, TimestampTZ:
		return timeType(f, args)
	case Float8:
		if base == "float" && args != nil {
			return floatType(args)
		}
	}
	if args != nil {
		return TUnknown, pgerror.New(pgerror.CodeSyntaxError, "type modifier is not allowed for type \"%s\"", base)
	}
	return T{Family: f, Mod: -1}, nil
}

// typeNames maps normalized type names (modifiers removed) to families.
var typeNames = map[string]Family{
	"unknown": Unknown,
	"bool":    Bool, "boolean": Bool,
	"int2": Int2, "smallint": Int2, "smallserial": Int2, "serial2": Int2,
	"int4": Int4, "int": Int4, "integer": Int4, "serial": Int4, "serial4": Int4,
	"int8": Int8, "bigint": Int8, "bigserial": Int8, "serial8": Int8,
	"float4": Float4, "real": Float4,
	"float8": Float8, "double precision": Float8, "double": Float8, "float": Float8,
	"numeric": Numeric, "decimal": Numeric, "dec": Numeric,
	"text": Text, "string": Text, // string: RisingWave's and Spark's name for text
	"varchar": Varchar, "character varying": Varchar, "char varying": Varchar,
	"bpchar": Bpchar, "char": Bpchar, "character": Bpchar,
	"bytea": Bytea,
	"date":  Date,
	"time":  Time, "time without time zone": Time,
	"timestamp": Timestamp, "timestamp without time zone": Timestamp,
	"timestamptz": TimestampTZ, "timestamp with time zone": TimestampTZ,
	"interval": Interval,
	"jsonb":    Jsonb, "json": Jsonb,
	"name": Name,
	"oid":  Oid, "regclass": Oid,
}

// internalArrayNames are PostgreSQL's names of array types, by element.
var internalArrayNames = map[string]Family{
	"_bool": Bool, "_int2": Int2, "_int4": Int4, "_int8": Int8, "_float4": Float4, "_float8": Float8,
	"_numeric": Numeric, "_text": Text, "_varchar": Varchar, "_bpchar": Bpchar, "_name": Name,
	"_bytea": Bytea, "_date": Date, "_time": Time, "_timestamp": Timestamp, "_timestamptz": TimestampTZ,
	"_interval": Interval, "_jsonb": Jsonb, "_oid": Oid,
}

// cutArrayBounds removes trailing array bounds ([] or [n], repeated) from a
// normalized type name and reports whether there were any.
func cutArrayBounds(s string) (string, bool) {
	found := false
	for strings.HasSuffix(s, "]") {
		open := strings.LastIndexByte(s, '[')
		if open < 0 || strings.Trim(s[open+1:len(s)-1], "0123456789") != "" {
			break
		}
		s, found = strings.TrimSpace(s[:open]), true
	}
	return s, found
}

// unsupportedTypes are PostgreSQL types streamdb does not implement; they
// get a clearer error than unknown names.
var unsupportedTypes = map[string]bool{
	"timetz": true, "time with time zone": true, "uuid": true, "money": true, "inet": true, "cidr": true,
	"macaddr": true, "xml": true, "bit": true, "varbit": true, "bit varying": true, "tsvector": true,
	"tsquery": true, "point": true, "int4range": true, "tstzrange": true,
}

// normalizeTypeName lower-cases a type name, drops identifier quotes and
// reduces white space to single spaces outside parentheses and none inside.
func normalizeTypeName(name string) string {
	var b strings.Builder
	depth := 0
	space := false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"':
			continue
		case isSpace(c):
			space = true
			continue
		}
		if space && b.Len() > 0 && depth == 0 && c != '(' && c != '[' {
			b.WriteByte(' ')
		}
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		}
		space = false
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// splitTypeArgs splits "name(a,b) suffix" into "name suffix" and its
// integer arguments (nil when there are no parentheses).
func splitTypeArgs(s string) (base string, args []int, ok bool) {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return s, nil, strings.IndexByte(s, ')') < 0
	}
	closing := strings.IndexByte(s, ')')
	if closing < open {
		return "", nil, false
	}
	base = strings.TrimSpace(s[:open])
	if suffix := strings.TrimSpace(s[closing+1:]); suffix != "" {
		base += " " + suffix
	}
	for _, a := range strings.Split(s[open+1:closing], ",") {
		v, err := strconv.Atoi(a)
		if err != nil {
			return "", nil, false
		}
		args = append(args, v)
	}
	return base, args, true
}

func errTypeMod(format string, args ...any) error {
	return pgerror.New(pgerror.CodeInvalidParameterValue, format, args...)
}

// stringType builds varchar(n) or char(n); char without a length is
// char(1), bpchar and varchar are unlimited.
func stringType(f Family, base string, args []int) (T, error) {
	short := "varchar"
	if f == Bpchar {
		short = "char"
	}
	switch {
	case args == nil && (base == "char" || base == "character"):
		return T{Family: Bpchar, Mod: 1}, nil
	case args == nil:
		return T{Family: f, Mod: -1}, nil
	case len(args) != 1:
		return TUnknown, errTypeMod("invalid type modifier")
	case args[0] < 1:
		return TUnknown, errTypeMod("length for type %s must be at least 1", short)
	case args[0] > maxStringLength:
		return TUnknown, errTypeMod("length for type %s cannot exceed %d", short, maxStringLength)
	}
	return T{Family: f, Mod: int32(args[0])}, nil
}

// numericType builds numeric, numeric(p) or numeric(p,s).
func numericType(args []int) (T, error) {
	if args == nil {
		return TNumeric, nil
	}
	if len(args) > 2 {
		return TUnknown, errTypeMod("invalid NUMERIC type modifier")
	}
	p, s := args[0], 0
	if len(args) == 2 {
		s = args[1]
	}
	switch {
	case p < 1 || p > numericMaxPrecision:
		return TUnknown, errTypeMod("NUMERIC precision %d must be between 1 and %d", p, numericMaxPrecision)
	case s < 0:
		return TUnknown, pgerror.New(pgerror.CodeFeatureNotSupported, "negative NUMERIC scale %d is not supported", s)
	case s > numericMaxPrecision:
		return TUnknown, errTypeMod("NUMERIC scale %d must be between -%d and %d", s, numericMaxPrecision, numericMaxPrecision)
	}
	return T{Family: Numeric, Mod: NumericMod(p, s)}, nil
}

// timeType builds time(p) or timestamp(p); precisions above 6 are reduced
// to 6 as PostgreSQL does (with a warning there).
func timeType(f Family, args []int) (T, error) {
	switch {
	case args == nil:
		return T{Family: f, Mod: -1}, nil
	case len(args) != 1:
		return TUnknown, errTypeMod("invalid type modifier")
	case args[0] < 0:
		name := "TIMESTAMP"
		if f == Time {
			name = "TIME"
		}
		return TUnknown, errTypeMod("%s(%d) precision must not be negative", name, args[0])
	}
	return T{Family: f, Mod: int32(min(args[0], maxTimePrecision))}, nil
}

// floatType resolves float(p): up to 24 bits is real, up to 53 double.
func floatType(args []int) (T, error) {
	switch {
	case len(args) != 1:
		return TUnknown, errTypeMod("invalid type modifier")
	case args[0] < 1:
		return TUnknown, errTypeMod("precision for type float must be at least 1 bit")
	case args[0] <= maxFloat4BitsPrec:
		return TFloat4, nil
	case args[0] <= maxFloatBitsPrec:
		return TFloat8, nil
	}
	return TUnknown, errTypeMod("precision for type float must be less than 54 bits")
}
