// Package types defines streamdb's SQL types and values: PostgreSQL's types
// with their OIDs, the Datum value representation, and every encoding a
// value crosses (PostgreSQL text and binary wire formats, memcomparable keys
// for storage and hashing, compact row values). It is the leaf every other
// package builds on, so it knows nothing of plans, protocols or storage.
//
// Text and binary formats follow PostgreSQL 15 with DateStyle ISO, MDY,
// IntervalStyle postgres, TimeZone UTC and extra_float_digits 1
// (FormatText, ParseText, EncodeBinary, DecodeBinary). Compare is the one
// total order of values; AppendKey encodes a value so that byte order is
// that order, and AppendRow stores values exactly.
//
// Key groups: a distributed job's rows are spread over G key groups by
//
//	vnode(key) = xxhash64(AppendKey(c1, asc) ++ ... ++ AppendKey(cn, asc)) mod G
//
// over the distribution key columns c1..cn (cast to their declared types
// first), using github.com/cespare/xxhash/v2; see VNode. This formula is
// persistent: state is stored under its vnode, so it must never change.
package types

import "strings"

// OID is a PostgreSQL type OID.
type OID uint32

// OIDs of the types streamdb supports (from PostgreSQL's pg_type.dat).
const (
	OIDUnknown     OID = 705
	OIDBool        OID = 16
	OIDBytea       OID = 17
	OIDInt8        OID = 20
	OIDInt2        OID = 21
	OIDInt4        OID = 23
	OIDText        OID = 25
	OIDFloat4      OID = 700
	OIDFloat8      OID = 701
	OIDVarchar     OID = 1043
	OIDBpchar      OID = 1042
	OIDDate        OID = 1082
	OIDTime        OID = 1083
	OIDTimestamp   OID = 1114
	OIDTimestampTZ OID = 1184
	OIDInterval    OID = 1186
	OIDNumeric     OID = 1700
	OIDJsonb       OID = 3802
	OIDName        OID = 19
	OIDOid         OID = 26
	OIDRegclass    OID = 2205
	OIDChar        OID = 18
)

// Family is the kind of a SQL type, independent of modifiers.
type Family uint8

// Families, one per supported PostgreSQL type.
const (
	Unknown Family = iota // the type of an untyped literal or NULL
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Text
	Varchar
	Bpchar
	Bytea
	Date
	Time
	Timestamp
	TimestampTZ
	Interval
	Jsonb
	Name
	Oid
	Array  // a one-dimensional array of Elem
	Record // an anonymous composite value (see RecordOf)
)

// T is a SQL type: a family plus PostgreSQL's type modifier (typmod), -1 when
// absent. For varchar(n) and char(n) the modifier is n; for numeric(p,s) it is
// p<<16 | s (without PostgreSQL's +4 offset; the wire adds it). An array type
// has family Array and its element's family in Elem; its modifier is the
// element's, as in PostgreSQL (varchar(10)[]). Elem is Unknown otherwise.
type T struct {
	Family Family
	Elem   Family
	Mod    int32
}

// Predefined types without modifiers.
var (
	TUnknown     = T{Family: Unknown, Mod: -1}
	TBool        = T{Family: Bool, Mod: -1}
	TInt2        = T{Family: Int2, Mod: -1}
	TInt4        = T{Family: Int4, Mod: -1}
	TInt8        = T{Family: Int8, Mod: -1}
	TFloat4      = T{Family: Float4, Mod: -1}
	TFloat8      = T{Family: Float8, Mod: -1}
	TNumeric     = T{Family: Numeric, Mod: -1}
	TText        = T{Family: Text, Mod: -1}
	TVarchar     = T{Family: Varchar, Mod: -1}
	TBpchar      = T{Family: Bpchar, Mod: -1}
	TBytea       = T{Family: Bytea, Mod: -1}
	TDate        = T{Family: Date, Mod: -1}
	TTime        = T{Family: Time, Mod: -1}
	TTimestamp   = T{Family: Timestamp, Mod: -1}
	TTimestampTZ = T{Family: TimestampTZ, Mod: -1}
	TInterval    = T{Family: Interval, Mod: -1}
	TJsonb       = T{Family: Jsonb, Mod: -1}
	TName        = T{Family: Name, Mod: -1}
	TOid         = T{Family: Oid, Mod: -1}
)

var familyInfo = [...]struct {
	oid  OID
	name string // PostgreSQL's canonical name as format_type prints it
	size int16  // typlen; -1 for variable length
}{
	Unknown:     {OIDUnknown, "unknown", -2},
	Bool:        {OIDBool, "boolean", 1},
	Int2:        {OIDInt2, "smallint", 2},
	Int4:        {OIDInt4, "integer", 4},
	Int8:        {OIDInt8, "bigint", 8},
	Float4:      {OIDFloat4, "real", 4},
	Float8:      {OIDFloat8, "double precision", 8},
	Numeric:     {OIDNumeric, "numeric", -1},
	Text:        {OIDText, "text", -1},
	Varchar:     {OIDVarchar, "character varying", -1},
	Bpchar:      {OIDBpchar, "character", -1},
	Bytea:       {OIDBytea, "bytea", -1},
	Date:        {OIDDate, "date", 4},
	Time:        {OIDTime, "time without time zone", 8},
	Timestamp:   {OIDTimestamp, "timestamp without time zone", 8},
	TimestampTZ: {OIDTimestampTZ, "timestamp with time zone", 8},
	Interval:    {OIDInterval, "interval", 16},
	Jsonb:       {OIDJsonb, "jsonb", -1},
	Name:        {OIDName, "name", 64},
	Oid:         {OIDOid, "oid", 4},
	Array:       {0, "", -1}, // OID and name depend on the element type
	Record:      {OIDRecord, "record", -1},
}

// OID returns the PostgreSQL type OID of t.
func (t T) OID() OID {
	if t.Family == Array {
		return arrayOIDs[t.Elem]
	}
	return familyInfo[t.Family].oid
}

// Size returns PostgreSQL's typlen for t (-1 for variable length).
func (t T) Size() int16 { return familyInfo[t.Family].size }

// WireMod returns the typmod as PostgreSQL reports it in RowDescription.
func (t T) WireMod() int32 {
	if t.Family == Array {
		return t.ElemType().WireMod()
	}
	if t.Mod < 0 || t.Family == Record {
		return -1
	}
	switch t.Family {
	case Varchar, Bpchar, Numeric:
		return t.Mod + 4
	}
	return t.Mod
}

// String returns the type's name as PostgreSQL's format_type prints it.
func (t T) String() string {
	if t.Family == Array {
		return t.ElemType().String() + "[]"
	}
	name := familyInfo[t.Family].name
	if t.Mod < 0 || t.Family == Record {
		if t.Family == Bpchar {
			return "bpchar"
		}
		return name
	}
	switch t.Family {
	case Varchar, Bpchar:
		return name + "(" + itoa(int(t.Mod)) + ")"
	case Numeric:
		scale := (t.Mod&0x7ff ^ 1024) - 1024 // 11 bits, sign-extended as in PostgreSQL
		return name + "(" + itoa(int(t.Mod>>16&0xffff)) + "," + itoa(int(scale)) + ")"
	case Time, Timestamp, TimestampTZ:
		base, zone, _ := strings.Cut(name, " ")
		return base + "(" + itoa(int(t.Mod)) + ") " + zone
	case Interval:
		return name + intervalModString(t.Mod)
	}
	return name
}

// FromOID returns the type with the given OID, and false if it is unknown.
func FromOID(oid OID) (T, bool) {
	for f, info := range familyInfo {
		if info.oid == oid && Family(f) != Array {
			return T{Family: Family(f), Mod: -1}, true
		}
	}
	for f, a := range arrayOIDs {
		if a == oid && a != 0 {
			return T{Family: Array, Elem: Family(f), Mod: -1}, true
		}
	}
	return TUnknown, false
}

// WithoutMod returns t without its type modifier.
func (t T) WithoutMod() T {
	t.Mod = -1
	return t
}

// IsNumeric reports whether t is an integer, float or numeric type.
func (t T) IsNumeric() bool {
	switch t.Family {
	case Int2, Int4, Int8, Float4, Float8, Numeric:
		return true
	}
	return false
}

// IsInteger reports whether t is int2, int4 or int8.
func (t T) IsInteger() bool { return t.Family == Int2 || t.Family == Int4 || t.Family == Int8 }

// IsString reports whether t is text, varchar, char or name.
func (t T) IsString() bool {
	switch t.Family {
	case Text, Varchar, Bpchar, Name:
		return true
	}
	return false
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [12]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
