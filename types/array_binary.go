package types

import (
	"encoding/binary"
	"math"

	"github.com/streamdb/streamdb/pgerror"
)

// appendArrayBinary appends array_send's format of the array d, elements
// of type elem: the number of dimensions (0 when empty), a has-NULLs flag,
// the element type OID, the length and lower bound of each dimension, then
// each element as an int32 length (-1 for NULL) and its binary form.
func appendArrayBinary(dst []byte, elem T, d Datum) ([]byte, error) {
	elems := d.Array()
	hasNull := uint32(0)
	for _, e := range elems {
		if e.kind == KindNull {
			hasNull = 1
		}
	}
	be := binary.BigEndian
	dst = be.AppendUint32(dst, uint32(d.ArrayNDims()))
	dst = be.AppendUint32(dst, hasNull)
	dst = be.AppendUint32(dst, uint32(elem.OID()))
	for i := range d.ArrayNDims() {
		dim := d.ArrayDim(i)
		dst = be.AppendUint32(dst, uint32(dim.Len))
		dst = be.AppendUint32(dst, uint32(dim.Lower))
	}
	for _, e := range elems {
		var err error
		if dst, err = appendValueBinary(dst, elem, e); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// decodeArrayBinary is array_recv for arrays of type elem.
func decodeArrayBinary(elem T, src []byte) (Datum, error) {
	be := binary.BigEndian
	if len(src) < 12 {
		return Null, errInsufficientData()
	}
	ndim, flags, oid := int32(be.Uint32(src)), be.Uint32(src[4:]), OID(be.Uint32(src[8:]))
	src = src[12:]
	switch {
	case ndim < 0 || ndim > MaxArrayDims:
		return Null, errBinary("invalid number of dimensions: %d", ndim)
	case flags > 1:
		return Null, errBinary("invalid array flags")
	case oid != elem.OID():
		return Null, pgerror.New(pgerror.CodeDatatypeMismatch, "binary data has array element type %d instead of expected %d (%s)", oid, elem.OID(), elem)
	case len(src) < 8*int(ndim):
		return Null, errInsufficientData()
	}
	var dimBuf [MaxArrayDims]ArrayDim
	dims := dimBuf[:ndim]
	n := int64(1)
	for i := range dims {
		dims[i] = ArrayDim{Len: int32(be.Uint32(src[8*i:])), Lower: int32(be.Uint32(src[8*i+4:]))}
		if dims[i].Len < 0 || int64(dims[i].Lower)+int64(dims[i].Len) > math.MaxInt32+1 {
			return Null, pgerror.New(pgerror.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayItems)
		}
		n *= int64(dims[i].Len)
		if n > maxArrayItems {
			return Null, pgerror.New(pgerror.CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArrayItems)
		}
	}
	src = src[8*ndim:]
	if ndim == 0 {
		n = 0
	}
	if n > int64(len(src)/4) {
		return Null, errInsufficientData()
	}
	elems := make([]Datum, n)
	for i := range elems {
		if len(src) < 4 {
			return Null, errInsufficientData()
		}
		size := int32(be.Uint32(src))
		src = src[4:]
		if size == -1 {
			continue
		}
		if size < 0 || int(size) > len(src) {
			return Null, errInsufficientData()
		}
		v, err := DecodeBinary(elem, src[:size])
		if err != nil {
			return Null, err
		}
		elems[i], src = v, src[size:]
	}
	if len(src) > 0 {
		return Null, errBinary("incorrect binary data format in array")
	}
	return NewArrayDims(elems, dims), nil
}

// maxArrayItems is PostgreSQL's MaxArraySize, the most elements an array
// holds.
const maxArrayItems = (1<<30 - 1) / 16

func errInsufficientData() error { return errBinary("insufficient data left in message") }
