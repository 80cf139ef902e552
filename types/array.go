package types

import (
	"encoding/binary"

	"github.com/streamdb/streamdb/pgerror"
)

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

// NewArray returns a one-dimensional array datum over elems (NULL elements
// allowed), lower bound 1; elems must not be mutated afterwards.
func NewArray(elems []Datum) Datum { return newElems(KindArray, elems, "") }

// MaxArrayDims is PostgreSQL's MAXDIM, the most dimensions an array has.
const MaxArrayDims = 6

// ArrayDim is one dimension of an array: its length and lower bound.
type ArrayDim struct{ Len, Lower int32 }

// NewArrayDims returns an array datum over elems, in row-major order, with
// dimensions dims, whose lengths multiply to len(elems). A plain array (no
// elements, or one dimension with lower bound 1) is NewArray's, which
// keeps no dimensions: only other arrays carry them, packed in the datum's
// string.
func NewArrayDims(elems []Datum, dims []ArrayDim) Datum {
	if len(elems) == 0 || len(dims) == 1 && dims[0].Lower == 1 {
		return NewArray(elems)
	}
	b := make([]byte, 0, 8*len(dims))
	for _, d := range dims {
		b = binary.LittleEndian.AppendUint32(b, uint32(d.Len))
		b = binary.LittleEndian.AppendUint32(b, uint32(d.Lower))
	}
	return newElems(KindArray, elems, string(b))
}

// Array returns the elements of an array datum, in row-major order;
// callers must not mutate them.
func (d Datum) Array() []Datum {
	if (d.kind != KindArray && d.kind != KindRecord) || d.p == nil {
		return nil
	}
	return *(*[]Datum)(d.p)
}

// ArrayNDims returns the number of dimensions of an array datum, 0 for an
// empty array.
func (d Datum) ArrayNDims() int {
	if d.s != "" {
		return len(d.s) / 8
	}
	if len(d.Array()) == 0 {
		return 0
	}
	return 1
}

// ArrayDim returns dimension i (0-based) of an array datum.
func (d Datum) ArrayDim(i int) ArrayDim {
	if d.s == "" {
		return ArrayDim{Len: int32(len(d.Array())), Lower: 1}
	}
	le := func(k int) int32 {
		return int32(uint32(d.s[k]) | uint32(d.s[k+1])<<8 | uint32(d.s[k+2])<<16 | uint32(d.s[k+3])<<24)
	}
	return ArrayDim{Len: le(8 * i), Lower: le(8*i + 4)}
}

// ArrayDims appends the dimensions of an array datum to dst.
func (d Datum) ArrayDims(dst []ArrayDim) []ArrayDim {
	for i := range d.ArrayNDims() {
		dst = append(dst, d.ArrayDim(i))
	}
	return dst
}

// WithElems returns an array of d's dimensions over elems (as many as d
// has).
func (d Datum) WithElems(elems []Datum) Datum { return newElems(KindArray, elems, d.s) }

// SameDims reports whether arrays a and b have the same dimensions and
// lower bounds.
func SameDims(a, b Datum) bool {
	return a.s == b.s && (a.s != "" || len(a.Array()) == len(b.Array()))
}

// errMultiDim is the error for an array type of arrays.
func errMultiDim() error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "arrays of arrays are not supported")
}

// ErrTooManyDims is PostgreSQL's error for an array of more than
// MaxArrayDims dimensions.
func ErrTooManyDims(n int) error {
	return pgerror.New(pgerror.CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", n, MaxArrayDims)
}
