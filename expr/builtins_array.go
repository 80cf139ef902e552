package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// textArray is text[].
var textArray = types.T{Family: types.Array, Elem: types.Text, Mod: -1}

// codeNullValueNotAllowed is SQLSTATE null_value_not_allowed.
const codeNullValueNotAllowed = "22004"

func init() {
	// dim is a function of dimension n (1-based) of a non-empty array;
	// other dimensions, and empty arrays, give NULL.
	dim := func(f func(d types.ArrayDim) int64) builtinFn {
		return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			n := a[1].Int()
			if n < 1 || n > int64(a[0].ArrayNDims()) {
				return types.Null, nil
			}
			return types.NewInt(f(a[0].ArrayDim(int(n - 1)))), nil
		}
	}
	RegisterBuiltin("array_length", sig(types.TInt4, dim(func(d types.ArrayDim) int64 { return int64(d.Len) }), AnyArray, types.Int4))
	RegisterBuiltin("array_lower", sig(types.TInt4, dim(func(d types.ArrayDim) int64 { return int64(d.Lower) }), AnyArray, types.Int4))
	RegisterBuiltin("array_upper", sig(types.TInt4, dim(func(d types.ArrayDim) int64 { return int64(d.Lower) + int64(d.Len) - 1 }), AnyArray, types.Int4))
	RegisterBuiltin("array_ndims", sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if n := a[0].ArrayNDims(); n > 0 {
			return types.NewInt(int64(n)), nil
		}
		return types.Null, nil
	}, AnyArray))
	RegisterBuiltin("array_dims", sig(types.TText, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].ArrayNDims() == 0 {
			return types.Null, nil
		}
		return types.NewString(string(types.AppendArrayDims(nil, a[0]))), nil
	}, AnyArray))
	RegisterBuiltin("cardinality", sig(types.TInt4, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewInt(int64(len(a[0].Array()))), nil
	}, AnyArray))
	RegisterBuiltin("array_append", nonStrict(SameAsArg(0), arrayAppend, AnyArray, AnyElem))
	RegisterBuiltin("array_prepend", nonStrict(SameAsArg(1), arrayPrepend, AnyElem, AnyArray))
	RegisterBuiltin("array_cat", nonStrict(SameAsArg(0), arrayCat, AnyArray, AnyArray))
	RegisterBuiltin("array_position",
		nonStrict(Returns(types.TInt4), arrayPosition, AnyArray, AnyElem),
		nonStrict(Returns(types.TInt4), arrayPosition, AnyArray, AnyElem, types.Int4))
	RegisterBuiltin("array_remove", nonStrict(SameAsArg(0), arrayRemove, AnyArray, AnyElem))
	RegisterBuiltin("array_to_string",
		Overload{Args: []types.Family{AnyArray, types.Text}, Ret: Returns(types.TText), Typed: arrayToString},
		Overload{Args: []types.Family{AnyArray, types.Text, types.Text}, Ret: Returns(types.TText), Typed: arrayToString, NonStrict: true})
	RegisterBuiltin("arraycontains", sig(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewBool(containsAll(a[0], a[1])), nil
	}, AnyArray, AnyArray))
	RegisterBuiltin("arraycontained", sig(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		return types.NewBool(containsAll(a[1], a[0])), nil
	}, AnyArray, AnyArray))
	RegisterBuiltin("arrayoverlap", sig(types.TBool, func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		for _, e := range a[1].Array() {
			if contains(a[0], e) {
				return types.NewBool(true), nil
			}
		}
		return types.NewBool(false), nil
	}, AnyArray, AnyArray))
	RegisterBuiltin("string_to_array",
		nonStrict(Returns(textArray), stringToArray, types.Text, types.Text),
		nonStrict(Returns(textArray), stringToArray, types.Text, types.Text, types.Text))
}

// nonStrict returns an overload that also sees NULL arguments.
func nonStrict(ret func([]types.T) types.T, fn builtinFn, args ...types.Family) Overload {
	return Overload{Args: args, Ret: ret, Fn: fn, NonStrict: true}
}

// arrayAppend is array_append: a NULL array is an empty one; the
// lower bound stays.
func arrayAppend(_ *Ctx, a []types.Datum) (types.Datum, error) {
	lower, err := oneDimLower(a[0])
	if err != nil {
		return types.Null, err
	}
	elems := append(copyElems(a[0], 1), a[1])
	return types.NewArrayDims(elems, []types.ArrayDim{{Len: int32(len(elems)), Lower: lower}}), nil
}

// arrayPrepend is array_prepend: a NULL array is an empty one; the
// lower bound stays.
func arrayPrepend(_ *Ctx, a []types.Datum) (types.Datum, error) {
	lower, err := oneDimLower(a[1])
	if err != nil {
		return types.Null, err
	}
	out := make([]types.Datum, 0, 1+len(a[1].Array()))
	out = append(append(out, a[0]), a[1].Array()...)
	return types.NewArrayDims(out, []types.ArrayDim{{Len: int32(len(out)), Lower: lower}}), nil
}

// oneDimLower returns the lower bound of an array array_append and
// array_prepend take: empty (1) or one-dimensional.
func oneDimLower(arr types.Datum) (int32, error) {
	switch arr.ArrayNDims() {
	case 0:
		return 1, nil
	case 1:
		return arr.ArrayDim(0).Lower, nil
	}
	return 0, pgerror.New(codeDataException, "argument must be empty or one-dimensional array")
}

// codeDataException is SQLSTATE data_exception.
const codeDataException = "22000"

// arrayCat is array_cat: NULL when both arrays are, else a NULL or empty
// one is left out. Arrays of n dimensions concatenate along the first
// when the others agree; an array of n-1 dimensions joins one of n as a
// new first or last element of its first dimension.
func arrayCat(_ *Ctx, a []types.Datum) (types.Datum, error) {
	x, y := a[0], a[1]
	switch {
	case x.IsNull():
		return y, nil
	case y.IsNull() || y.ArrayNDims() == 0:
		return x, nil
	case x.ArrayNDims() == 0:
		return y, nil
	}
	nx, ny := x.ArrayNDims(), y.ArrayNDims()
	var dimBuf [types.MaxArrayDims]types.ArrayDim
	var dims, inner []types.ArrayDim
	var other types.Datum
	detail := "Arrays with differing dimensions are not compatible for concatenation."
	switch nx - ny {
	case 0:
		dims, inner, other = x.ArrayDims(dimBuf[:0]), x.ArrayDims(nil)[1:], y
		dims[0].Len += y.ArrayDim(0).Len
		detail = "Arrays with differing element dimensions are not compatible for concatenation."
	case -1:
		dims, inner, other = y.ArrayDims(dimBuf[:0]), y.ArrayDims(nil)[1:], x
		dims[0].Len++
	case 1:
		dims, inner, other = x.ArrayDims(dimBuf[:0]), x.ArrayDims(nil)[1:], y
		dims[0].Len++
	default:
		return types.Null, pgerror.New(codeArraySubscriptError, "cannot concatenate incompatible arrays").
			WithDetail("Arrays of %d and %d dimensions are not compatible for concatenation.", nx, ny)
	}
	otherDims := other.ArrayDims(nil)
	if nx == ny {
		otherDims = otherDims[1:]
	}
	for i := range inner {
		if inner[i] != otherDims[i] {
			return types.Null, pgerror.New(codeArraySubscriptError, "cannot concatenate incompatible arrays").WithDetail("%s", detail)
		}
	}
	return types.NewArrayDims(append(copyElems(x, len(y.Array())), y.Array()...), dims), nil
}

// copyElems returns a copy of an array's elements with room for extra more.
func copyElems(arr types.Datum, extra int) []types.Datum {
	return append(make([]types.Datum, 0, len(arr.Array())+extra), arr.Array()...)
}

// contains reports whether arr has an element equal to x (NULL equals
// nothing).
func contains(arr, x types.Datum) bool {
	if x.IsNull() {
		return false
	}
	for _, e := range arr.Array() {
		if !e.IsNull() && types.Compare(e, x) == 0 {
			return true
		}
	}
	return false
}

// containsAll is arraycontains (the @> operator): every element of sub is
// in arr.
func containsAll(arr, sub types.Datum) bool {
	for _, e := range sub.Array() {
		if !contains(arr, e) {
			return false
		}
	}
	return true
}

// notDistinct is IS NOT DISTINCT FROM for values of one type.
func notDistinct(a, b types.Datum) bool {
	if a.IsNull() || b.IsNull() {
		return a.IsNull() == b.IsNull()
	}
	return types.Compare(a, b) == 0
}

// arrayPosition is array_position(array, x [, start]): the 1-based index
// of the first element not distinct from x at or after start.
func arrayPosition(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	if a[0].ArrayNDims() > 1 {
		return types.Null, pgerror.New(pgerror.CodeFeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
	}
	lower := int64(a[0].ArrayDim(0).Lower)
	start := lower
	if len(a) > 2 {
		if a[2].IsNull() {
			return types.Null, pgerror.New(codeNullValueNotAllowed, "initial position must not be null")
		}
		start = a[2].Int()
	}
	elems := a[0].Array()
	for i := max(start-lower, 0); i < int64(len(elems)); i++ {
		if notDistinct(elems[i], a[1]) {
			return types.NewInt(i + lower), nil
		}
	}
	return types.Null, nil
}

// arrayRemove is array_remove: the elements not distinct from x go.
func arrayRemove(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	if a[0].ArrayNDims() > 1 {
		return types.Null, pgerror.New(pgerror.CodeFeatureNotSupported, "removing elements from multidimensional arrays is not supported")
	}
	var out []types.Datum
	for _, e := range a[0].Array() {
		if !notDistinct(e, a[1]) {
			out = append(out, e)
		}
	}
	return types.NewArrayDims(out, []types.ArrayDim{{Len: int32(len(out)), Lower: a[0].ArrayDim(0).Lower}}), nil
}

// arrayToString is array_to_string(array, sep [, null_text]) for an
// array of the given type: the elements' text joined by sep, NULL elements
// left out or written as null_text.
func arrayToString(args []types.T) func(*Ctx, []types.Datum) (types.Datum, error) {
	elem := args[0].ElemType()
	return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
		if a[0].IsNull() || a[1].IsNull() {
			return types.Null, nil
		}
		nullText := len(a) > 2 && !a[2].IsNull()
		var b []byte
		first := true
		for _, e := range a[0].Array() {
			if e.IsNull() && !nullText {
				continue
			}
			if !first {
				b = append(b, a[1].Str()...)
			}
			first = false
			if e.IsNull() {
				b = append(b, a[2].Str()...)
			} else {
				b = types.FormatText(b, elem, e)
			}
		}
		return types.NewString(string(b)), nil
	}
}

// stringToArray is string_to_array(s, sep [, null_text]): s split at each
// sep (into characters when sep is NULL, not at all when it is empty),
// pieces equal to null_text becoming NULL; an empty s is an empty array.
func stringToArray(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	s := a[0].Str()
	if s == "" {
		return types.NewArray(nil), nil
	}
	var parts []string
	switch {
	case a[1].IsNull():
		for len(s) > 0 {
			_, n := utf8.DecodeRuneInString(s)
			parts, s = append(parts, s[:n]), s[n:]
		}
	case a[1].Str() == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, a[1].Str())
	}
	out := make([]types.Datum, len(parts))
	for i, p := range parts {
		if len(a) < 3 || a[2].IsNull() || p != a[2].Str() {
			out[i] = types.NewString(p)
		}
	}
	return types.NewArray(out), nil
}
