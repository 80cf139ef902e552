package types

import (
	"encoding/binary"
	"math"

	"github.com/streamdb/streamdb/pgerror"
)

// appendArrayBinary appends array_send's format of elems, values of type
// elem: the number of dimensions (0 when empty, else 1), a has-NULLs flag,
// the element type OID, the length and lower bound (1) of the dimension,
// then each element as an int32 length (-1 for NULL) and its binary form.
func appendArrayBinary(dst []byte, elem T, elems []Datum) ([]byte, error) {
	ndim, hasNull := uint32(0), uint32(0)
	if len(elems) > 0 {
		ndim = 1
	}
	for _, e := range elems {
		if e.kind == KindNull {
			hasNull = 1
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, ndim)
	dst = binary.BigEndian.AppendUint32(dst, hasNull)
	dst = binary.BigEndian.AppendUint32(dst, uint32(elem.OID()))
	if ndim == 1 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(elems)))
		dst = binary.BigEndian.AppendUint32(dst, 1)
	}
	for _, e := range elems {
		if e.kind == KindNull {
			dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32) // -1
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = EncodeBinary(dst, elem, e); err != nil {
			return dst, err
		}
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst, nil
}

// decodeArrayBinary is array_recv for arrays of type elem with at most one
// dimension, whose lower bound must be 1.
func decodeArrayBinary(elem T, src []byte) (Datum, error) {
	be := binary.BigEndian
	if len(src) < 12 {
		return Null, errInsufficientData()
	}
	ndim, flags, oid := int32(be.Uint32(src)), be.Uint32(src[4:]), OID(be.Uint32(src[8:]))
	src = src[12:]
	switch {
	case ndim < 0 || ndim > 6:
		return Null, errBinary("invalid number of dimensions: %d", ndim)
	case ndim > 1:
		return Null, errMultiDim()
	case flags > 1:
		return Null, errBinary("invalid array flags")
	case oid != elem.OID():
		return Null, pgerror.New(pgerror.CodeDatatypeMismatch, "binary data has array element type %d instead of expected %d (%s)", oid, elem.OID(), elem)
	case ndim == 0:
		return NewArray(nil), nil
	case len(src) < 8:
		return Null, errInsufficientData()
	}
	n, lower := int32(be.Uint32(src)), int32(be.Uint32(src[4:]))
	src = src[8:]
	switch {
	case n < 0 || int(n) > len(src)/4:
		return Null, errInsufficientData()
	case lower != 1:
		return Null, pgerror.New(pgerror.CodeFeatureNotSupported, "array lower bounds other than 1 are not supported")
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
	return NewArray(elems), nil
}

func errInsufficientData() error { return errBinary("insufficient data left in message") }
