package types

import (
	"encoding/binary"

	"github.com/cockroachdb/apd/v3"
)

// Flags of an encoded numeric in a row value.
const (
	rowDecNegative = 1 << iota
	rowDecNaN
	rowDecInfinite
	rowDecBig // the coefficient is length-prefixed big-endian bytes, not a uvarint
)

// AppendRow appends the compact value encoding of row to dst: a uvarint
// count, then per datum its kind byte and payload (zigzag varints for
// integers and date/time values, 8 little-endian bytes for floats,
// length-prefixed bytes for strings, exact numerics with their scale, an
// array as a uvarint count and its elements encoded alike, after its
// dimensions if it has any). Unlike
// AppendKey it keeps every value exactly (numeric scale, -0, the fields of
// an interval).
func AppendRow(dst []byte, row []Datum) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(row)))
	for i := range row {
		dst = appendRowDatum(dst, &row[i])
	}
	return dst
}

func appendRowDatum(dst []byte, d *Datum) []byte {
	dst = append(dst, byte(d.kind))
	switch d.kind {
	case KindBool:
		dst = append(dst, byte(d.i))
	case KindInt, KindDate, KindTime, KindTimestamp, KindTimestampTZ:
		dst = binary.AppendVarint(dst, d.i)
	case KindFloat:
		dst = binary.LittleEndian.AppendUint64(dst, uint64(d.i))
	case KindDecimal:
		dst = appendRowDecimal(dst, d.Decimal())
	case KindString, KindBytes, KindJSON:
		dst = binary.AppendUvarint(dst, uint64(len(d.s)))
		dst = append(dst, d.s...)
	case KindInterval:
		dst = binary.AppendVarint(dst, d.i)
		dst = binary.AppendVarint(dst, d.j())
	case KindArray, KindRecord:
		if d.s != "" {
			// An array with dimensions: its tag, the packed dimensions,
			// then the elements as a plain array's.
			dst[len(dst)-1] = byte(rowArrayDims)
			dst = binary.AppendUvarint(dst, uint64(len(d.s)))
			dst = append(dst, d.s...)
		}
		elems := d.Array()
		dst = binary.AppendUvarint(dst, uint64(len(elems)))
		for i := range elems {
			dst = appendRowDatum(dst, &elems[i])
		}
	}
	return dst
}

// rowArrayDims is the kind byte of an array with dimensions (more than
// one, or lower bounds other than 1) in a row value.
const rowArrayDims = 0x80 | KindArray

func appendRowDecimal(dst []byte, d *apd.Decimal) []byte {
	var flags byte
	if d.Negative {
		flags |= rowDecNegative
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(dst, flags|rowDecNaN)
	case apd.Infinite:
		return append(dst, flags|rowDecInfinite)
	}
	if !d.Coeff.IsUint64() {
		b := d.Coeff.Bytes()
		dst = append(dst, flags|rowDecBig)
		dst = binary.AppendVarint(dst, int64(d.Exponent))
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		return append(dst, b...)
	}
	dst = append(dst, flags)
	dst = binary.AppendVarint(dst, int64(d.Exponent))
	return binary.AppendUvarint(dst, d.Coeff.Uint64())
}

// DecodeRow decodes a row encoded by AppendRow into dst[:0] and returns it.
// types are the columns' types; a row encoded with fewer values (columns
// added since) is completed with NULLs. Strings are copied out of src (one
// allocation per row, shared by its strings) since src is usually a
// storage buffer that is reused.
func DecodeRow(src []byte, types []T, dst []Datum) ([]Datum, error) {
	r := rowReader{src: src}
	dst, err := r.row(types, dst)
	if err == nil && r.pos != len(src) {
		err = errCorrupt("row")
	}
	return dst, err
}

// DecodeRowBlock calls fn with each row of a row block, rows encoded by
// AppendRow one after another (a table stored in row blocks keeps under
// one key the rows one actor appended to one vnode in one epoch). The row
// passed to fn is reused for the next one.
func DecodeRowBlock(src []byte, types []T, fn func(row []Datum) error) error {
	return decodeRowBlock(src, types, nil, fn)
}

// DecodeRowBlockInto is DecodeRowBlock with each row decoded into storage
// of its own from arena: fn may keep it, and no row is copied or
// allocated alone.
func DecodeRowBlockInto(src []byte, types []T, arena *RowArena, fn func(row []Datum) error) error {
	return decodeRowBlock(src, types, arena, fn)
}

// decodeRowBlock decodes each row into a row of arena, or into one reused
// row without it.
func decodeRowBlock(src []byte, types []T, arena *RowArena, fn func(row []Datum) error) error {
	r := rowReader{src: src}
	var row []Datum
	for r.pos < len(src) {
		if arena != nil {
			row = arena.Row(len(types))
		}
		var err error
		if row, err = r.row(types, row); err != nil {
			return err
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return nil
}

// row decodes the row at r.pos into dst[:0] (see DecodeRow).
func (r *rowReader) row(types []T, dst []Datum) ([]Datum, error) {
	if cap(dst) < len(types) {
		dst = make([]Datum, 0, len(types))
	}
	dst = dst[:0]
	n, ok := r.uvarint()
	if !ok || n > uint64(len(types)) {
		return dst, errCorrupt("row")
	}
	for i := 0; i < int(n); i++ {
		d, ok := r.datum()
		if !ok || d.kind != KindUnchanged && !kindFits(d, types[i]) {
			return dst, errCorrupt("row")
		}
		dst = append(dst, d)
	}
	for len(dst) < len(types) {
		dst = append(dst, Null)
	}
	return dst, nil
}

// rowReader reads datums of a row value.
type rowReader struct {
	src   []byte
	pos   int
	owned string // a copy of src, made at the first string, that strings slice
}

func (r *rowReader) varint() (int64, bool) {
	v, k := binary.Varint(r.src[r.pos:])
	r.pos += max(k, 0)
	return v, k > 0
}

func (r *rowReader) uvarint() (uint64, bool) {
	v, k := binary.Uvarint(r.src[r.pos:])
	r.pos += max(k, 0)
	return v, k > 0
}

// bytes returns the next n bytes as a string that does not alias src.
func (r *rowReader) bytes(n uint64) (string, bool) {
	if n > uint64(len(r.src)-r.pos) {
		return "", false
	}
	if r.owned == "" {
		r.owned = string(r.src)
	}
	s := r.owned[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return s, true
}

func (r *rowReader) datum() (Datum, bool) {
	if r.pos >= len(r.src) {
		return Null, false
	}
	kind := Kind(r.src[r.pos])
	r.pos++
	switch kind {
	case KindNull:
		return Null, true
	case KindUnchanged:
		return Unchanged, true
	case KindBool:
		if r.pos >= len(r.src) {
			return Null, false
		}
		r.pos++
		return NewBool(r.src[r.pos-1] != 0), true
	case KindInt, KindDate, KindTime, KindTimestamp, KindTimestampTZ:
		v, ok := r.varint()
		return Datum{kind: kind, i: v}, ok
	case KindFloat:
		if len(r.src)-r.pos < 8 {
			return Null, false
		}
		r.pos += 8
		return Datum{kind: KindFloat, i: int64(binary.LittleEndian.Uint64(r.src[r.pos-8:]))}, true
	case KindDecimal:
		return r.decimal()
	case KindString, KindBytes, KindJSON:
		n, ok := r.uvarint()
		if !ok {
			return Null, false
		}
		s, ok := r.bytes(n)
		return Datum{kind: kind, s: s}, ok
	case KindInterval:
		i, ok1 := r.varint()
		j, ok2 := r.varint()
		return newInterval(i, j), ok1 && ok2
	case KindArray:
		return r.array("")
	case rowArrayDims:
		n, ok := r.uvarint()
		if !ok || n == 0 || n%8 != 0 || n > 8*MaxArrayDims {
			return Null, false
		}
		dims, ok := r.bytes(n)
		if !ok {
			return Null, false
		}
		return r.array(dims)
	case KindRecord:
		return r.record()
	}
	return Null, false
}

// array reads an array's elements (arrays do not nest), its packed
// dimensions being dims.
func (r *rowReader) array(dims string) (Datum, bool) {
	n, ok := r.uvarint()
	if !ok || n > uint64(len(r.src)-r.pos) { // each element takes a byte at least
		return Null, false
	}
	elems := make([]Datum, n)
	for i := range elems {
		if elems[i], ok = r.datum(); !ok || elems[i].kind == KindArray {
			return Null, false
		}
	}
	return newElems(KindArray, elems, dims), true
}

// record reads a record's field values (which may be arrays and records).
func (r *rowReader) record() (Datum, bool) {
	n, ok := r.uvarint()
	if !ok || n > uint64(len(r.src)-r.pos) {
		return Null, false
	}
	vals := make([]Datum, n)
	for i := range vals {
		if vals[i], ok = r.datum(); !ok {
			return Null, false
		}
	}
	return NewRecord(vals), true
}

func (r *rowReader) decimal() (Datum, bool) {
	if r.pos >= len(r.src) {
		return Null, false
	}
	flags := r.src[r.pos]
	r.pos++
	d := &apd.Decimal{Negative: flags&rowDecNegative != 0}
	switch {
	case flags&rowDecNaN != 0:
		d.Form = apd.NaN
		return NewDecimal(d), true
	case flags&rowDecInfinite != 0:
		d.Form = apd.Infinite
		return NewDecimal(d), true
	}
	exp, ok := r.varint()
	if !ok || exp != int64(int32(exp)) {
		return Null, false
	}
	d.Exponent = int32(exp)
	n, ok := r.uvarint()
	if !ok {
		return Null, false
	}
	if flags&rowDecBig == 0 {
		d.Coeff.SetUint64(n)
		return NewDecimal(d), true
	}
	if n > uint64(len(r.src)-r.pos) {
		return Null, false
	}
	d.Coeff.SetBytes(r.src[r.pos : r.pos+int(n)])
	r.pos += int(n)
	return NewDecimal(d), true
}

// Identical reports whether a and b are the same value in the same
// representation, as a row keeps it: unlike Compare, 1.50 and 1.500, 0
// and -0, or '1 day' and '24 hours' are not identical.
func Identical(a, b Datum) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case KindDecimal:
		x, y := a.Decimal(), b.Decimal()
		return x.Form == y.Form && x.Negative == y.Negative && x.Exponent == y.Exponent && x.Coeff.Cmp(&y.Coeff) == 0
	case KindFloat:
		return a.i == b.i || (a.Float() != a.Float() && b.Float() != b.Float())
	case KindArray, KindRecord:
		x, y := a.Array(), b.Array()
		if len(x) != len(y) || !SameDims(a, b) {
			return false
		}
		for i := range x {
			if !Identical(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a.i == b.i && a.j() == b.j() && a.s == b.s
}
