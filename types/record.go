package types

import (
	"encoding/binary"
	"strings"
	"sync"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

// OIDRecord is PostgreSQL's anonymous composite type, record.
const OIDRecord OID = 2249

// Field is one field of a record type.
type Field struct {
	Name string
	T    T
}

// recordTypes interns record types, as PostgreSQL's record type cache
// does: a record type is T{Family: Record, Mod: i}, i indexing list, so
// that types stay small comparable values and equal field lists give equal
// types. Record types live only in one process: the catalog never stores
// them (a table or view column of type record is 42P16), and every node
// plans its own dataflows.
var recordTypes struct {
	sync.RWMutex
	list  [][]Field
	index map[string]int32
}

// RecordOf returns the record type with the given fields.
func RecordOf(fields []Field) T {
	var sig strings.Builder
	for _, f := range fields {
		sig.WriteString(f.Name)
		sig.WriteByte(0)
		sig.WriteString(itoa(int(f.T.Family)) + "." + itoa(int(f.T.Elem)) + "." + itoa(int(f.T.Mod)))
		sig.WriteByte(0)
	}
	key := sig.String()
	recordTypes.RLock()
	i, ok := recordTypes.index[key]
	recordTypes.RUnlock()
	if !ok {
		recordTypes.Lock()
		if i, ok = recordTypes.index[key]; !ok {
			if recordTypes.index == nil {
				recordTypes.index = map[string]int32{}
			}
			i = int32(len(recordTypes.list))
			recordTypes.list = append(recordTypes.list, append([]Field(nil), fields...))
			recordTypes.index[key] = i
		}
		recordTypes.Unlock()
	}
	return T{Family: Record, Mod: i}
}

// TRecord is the record type whose fields are not known (a record value
// formats its fields by their kinds).
var TRecord = T{Family: Record, Mod: -1}

// Fields returns the fields of a record type (nil when unknown); callers
// must not mutate them.
func (t T) Fields() []Field {
	if t.Family != Record || t.Mod < 0 {
		return nil
	}
	recordTypes.RLock()
	defer recordTypes.RUnlock()
	return recordTypes.list[t.Mod]
}

// FieldIndex returns the index of the field called name in record type
// t, or PostgreSQL's error: 42809 when t is not a record, 42703 when it
// has no such field.
func (t T) FieldIndex(name string) (int, error) {
	if t.Family != Record {
		return 0, pgerror.New(pgerror.CodeWrongObjectType, "column notation .%s applied to type %s, which is not a composite type", name, t)
	}
	for i, f := range t.Fields() {
		if f.Name == name {
			return i, nil
		}
	}
	return 0, pgerror.New(pgerror.CodeUndefinedColumn, "could not identify column \"%s\" in record data type", name)
}

// NewRecord returns a record datum of the given field values; vals must
// not be mutated afterwards.
func NewRecord(vals []Datum) Datum { return newElems(KindRecord, vals, "") }

// Record returns the field values of a record datum; callers must not
// mutate them.
func (d Datum) Record() []Datum { return d.Array() }

// fieldType returns the type of field i of record type t, or the default
// type of v's kind when t does not say.
func fieldType(t T, i int, v Datum) T {
	if fs := t.Fields(); i < len(fs) {
		return fs[i].T
	}
	return kindTypes[v.kind]
}

// appendRecordText appends record_out's form: the fields in parentheses,
// separated by commas, NULL as nothing, and a field quoted when it is
// empty or holds a quote, backslash, parenthesis, comma or space, with
// quotes and backslashes doubled inside.
func appendRecordText(dst []byte, t T, vals []Datum, loc *time.Location) []byte {
	dst = append(dst, '(')
	var buf []byte
	for i, v := range vals {
		if i > 0 {
			dst = append(dst, ',')
		}
		if v.IsNull() {
			continue
		}
		buf = FormatTextZone(buf[:0], fieldType(t, i, v), v, loc)
		if !recordFieldNeedsQuotes(buf) {
			dst = append(dst, buf...)
			continue
		}
		dst = append(dst, '"')
		for _, c := range buf {
			if c == '"' || c == '\\' {
				dst = append(dst, c)
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	return append(dst, ')')
}

func recordFieldNeedsQuotes(s []byte) bool {
	if len(s) == 0 {
		return true
	}
	for _, c := range s {
		switch c {
		case '"', '\\', '(', ')', ',', ' ', '\t', '\n', '\r', '\v', '\f':
			return true
		}
	}
	return false
}

// appendRecordBinary appends record_send's form: the number of fields,
// then each field's type OID, length (-1 for NULL) and binary value.
func appendRecordBinary(dst []byte, t T, vals []Datum) ([]byte, error) {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(vals)))
	for i, v := range vals {
		ft := fieldType(t, i, v)
		dst = binary.BigEndian.AppendUint32(dst, uint32(ft.OID()))
		var err error
		if dst, err = appendValueBinary(dst, ft, v); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// errRecordInput is PostgreSQL's refusal to read a value of the anonymous
// record type.
func errRecordInput() error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "input of anonymous composite types is not implemented")
}
