package types

import "github.com/streamdb/streamdb/pgerror"

// arrayOIDs are the OIDs of the array types, by element family (0: none).
var arrayOIDs = [...]OID{
	Bool: 1000, Int2: 1005, Int4: 1007, Int8: 1016, Float4: 1021, Float8: 1022, Numeric: 1231,
	Text: 1009, Varchar: 1015, Bpchar: 1014, Name: 1003, Bytea: 1001,
	Date: 1182, Time: 1183, Timestamp: 1115, TimestampTZ: 1185, Interval: 1187,
	Jsonb: 3807, Oid: 1028, Array: 0, Record: 0,
}

// ArrayOf returns the array type whose elements have type elem (keeping
// elem's modifier, as PostgreSQL does). Only one dimension exists: an array
// of arrays is 0A000, and unknown has no array type (42704).
func ArrayOf(elem T) (T, error) {
	switch {
	case elem.Family == Array:
		return TUnknown, errMultiDim()
	case arrayOIDs[elem.Family] == 0:
		return TUnknown, pgerror.New(pgerror.CodeUndefinedObject, "could not find array type for data type %s", elem)
	}
	return T{Family: Array, Elem: elem.Family, Mod: elem.Mod}, nil
}

// ElemType returns the element type of an array type.
func (t T) ElemType() T { return T{Family: t.Elem, Mod: t.Mod} }

// NewArray returns an array datum over elems (NULL elements allowed); elems
// must not be mutated afterwards.
func NewArray(elems []Datum) Datum { return Datum{kind: KindArray, a: &elems} }

// Array returns the elements of an array datum; callers must not mutate them.
func (d Datum) Array() []Datum {
	if d.a == nil {
		return nil
	}
	return *d.a
}

// errMultiDim is the error for input with more than one dimension.
func errMultiDim() error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "multidimensional arrays are not supported")
}
