package expr

import (
	"strconv"
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
	// dims is a function of the array's single dimension (dim 1 of a
	// non-empty array); other dimensions, and empty arrays, give NULL.
	dims := func(f func(n int64) types.Datum) builtinFn {
		return func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			n := int64(len(a[0].Array()))
			if n == 0 || len(a) > 1 && a[1].Int() != 1 {
				return types.Null, nil
			}
			return f(n), nil
		}
	}
	one := func(int64) types.Datum { return types.NewInt(1) }
	RegisterBuiltin("array_length", sig(types.TInt4, dims(types.NewInt), AnyArray, types.Int4))
	RegisterBuiltin("array_lower", sig(types.TInt4, dims(one), AnyArray, types.Int4))
	RegisterBuiltin("array_upper", sig(types.TInt4, dims(types.NewInt), AnyArray, types.Int4))
	RegisterBuiltin("array_ndims", sig(types.TInt4, dims(one), AnyArray))
	RegisterBuiltin("array_dims", sig(types.TText, dims(func(n int64) types.Datum {
		return types.NewString("[1:" + strconv.FormatInt(n, 10) + "]")
	}), AnyArray))
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

// arrayAppend is array_append: a NULL array is an empty one.
func arrayAppend(_ *Ctx, a []types.Datum) (types.Datum, error) {
	return types.NewArray(append(copyElems(a[0], 1), a[1])), nil
}

// arrayPrepend is array_prepend: a NULL array is an empty one.
func arrayPrepend(_ *Ctx, a []types.Datum) (types.Datum, error) {
	out := make([]types.Datum, 0, 1+len(a[1].Array()))
	out = append(out, a[0])
	return types.NewArray(append(out, a[1].Array()...)), nil
}

// arrayCat is array_cat: NULL when both arrays are, else a NULL one
// counts as empty.
func arrayCat(_ *Ctx, a []types.Datum) (types.Datum, error) {
	switch {
	case a[0].IsNull():
		return a[1], nil
	case a[1].IsNull():
		return a[0], nil
	}
	return types.NewArray(append(copyElems(a[0], len(a[1].Array())), a[1].Array()...)), nil
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
	start := int64(1)
	if len(a) > 2 {
		if a[2].IsNull() {
			return types.Null, pgerror.New(codeNullValueNotAllowed, "initial position must not be null")
		}
		start = max(a[2].Int(), 1)
	}
	elems := a[0].Array()
	for i := start - 1; i < int64(len(elems)); i++ {
		if notDistinct(elems[i], a[1]) {
			return types.NewInt(i + 1), nil
		}
	}
	return types.Null, nil
}

// arrayRemove is array_remove: the elements not distinct from x go.
func arrayRemove(_ *Ctx, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	var out []types.Datum
	for _, e := range a[0].Array() {
		if !notDistinct(e, a[1]) {
			out = append(out, e)
		}
	}
	return types.NewArray(out), nil
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
