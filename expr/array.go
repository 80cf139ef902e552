package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// ArrayCtor is ARRAY[e1, e2, ...]: its elements are already cast to the
// element type of T, or, all of type T, are the sub-arrays of a
// multidimensional array (ARRAY[[1,2],[3,4]]).
type ArrayCtor struct {
	Elems []Expr
	T     types.T
}

// NewArrayCtor returns ARRAY[elems...] of array type t, folded into a
// constant when every element is one (and sub-arrays fit).
func NewArrayCtor(elems []Expr, t types.T) Expr {
	e := &ArrayCtor{Elems: elems, T: t}
	for _, el := range elems {
		if _, ok := el.(*Const); !ok {
			return e
		}
	}
	v, err := e.Eval(nil, nil)
	if err != nil {
		return e
	}
	return NewConst(v, t)
}

// Type implements Expr.
func (e *ArrayCtor) Type() types.T { return e.T }

// Eval implements Expr.
func (e *ArrayCtor) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	vals := make([]types.Datum, len(e.Elems))
	for i, el := range e.Elems {
		v, err := el.Eval(c, row)
		if err != nil {
			return types.Null, err
		}
		vals[i] = v
	}
	if len(vals) > 0 && e.Elems[0].Type().Family == types.Array {
		return stackArrays(vals)
	}
	return types.NewArray(vals), nil
}

// stackArrays is PostgreSQL's ARRAY[] of sub-arrays: a new outer dimension
// over arrays of equal dimensions; NULL and empty sub-arrays make an empty
// array when all are, else an error.
func stackArrays(subs []types.Datum) (types.Datum, error) {
	var elems []types.Datum
	var first types.Datum
	n, empty := 0, false
	for _, sub := range subs {
		switch {
		case sub.IsNull() || sub.ArrayNDims() == 0:
			empty = true
			continue
		case n > 0 && !types.SameDims(first, sub):
			return types.Null, errSubArrayDims
		case n == 0:
			first = sub
		}
		elems = append(elems, sub.Array()...)
		n++
	}
	switch {
	case n == 0:
		return types.NewArray(nil), nil
	case empty:
		return types.Null, errSubArrayDims
	case first.ArrayNDims() == types.MaxArrayDims:
		return types.Null, types.ErrTooManyDims(types.MaxArrayDims + 1)
	}
	var dimBuf [types.MaxArrayDims]types.ArrayDim
	dims := first.ArrayDims(append(dimBuf[:0], types.ArrayDim{Len: int32(n), Lower: 1}))
	return types.NewArrayDims(elems, dims), nil
}

// codeArraySubscriptError is SQLSTATE array_subscript_error.
const codeArraySubscriptError = "2202E"

var errSubArrayDims = pgerror.New(codeArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")

// String implements Expr.
func (e *ArrayCtor) String() string { return "ARRAY[" + joinStrings(e.Elems, ", ") + "]" }

// Children implements Expr.
func (e *ArrayCtor) Children() []Expr { return e.Elems }

// WithChildren implements Expr.
func (e *ArrayCtor) WithChildren(ch []Expr) Expr { return &ArrayCtor{Elems: ch, T: e.T} }

// Subscript is a[i][j]... (Slice false: Subs holds one int4 subscript per
// dimension; NULL unless there are as many as the array has dimensions
// and each is within its dimension's bounds) or the slice a[lo:hi]...
// (Slice true: Subs holds lo, hi pairs; dimensions beyond them are taken
// whole; the result has lower bounds 1 and is empty when a range misses).
// A NULL array or subscript gives NULL.
type Subscript struct {
	Arr   Expr
	Subs  []Expr
	Slice bool
}

// Type implements Expr.
func (e *Subscript) Type() types.T {
	if e.Slice {
		return e.Arr.Type()
	}
	return e.Arr.Type().ElemType()
}

// Eval implements Expr.
func (e *Subscript) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	arr, err := e.Arr.Eval(c, row)
	if err != nil || arr.IsNull() {
		return types.Null, err
	}
	var subBuf [2 * types.MaxArrayDims]int64
	subs := subBuf[:0]
	for _, x := range e.Subs {
		v, err := x.Eval(c, row)
		if err != nil || v.IsNull() {
			return types.Null, err
		}
		subs = append(subs, v.Int())
	}
	if e.Slice {
		return arraySlice(arr, subs), nil
	}
	ndim := arr.ArrayNDims()
	if len(subs) != ndim {
		return types.Null, nil
	}
	off := int64(0)
	for k, i := range subs {
		d := arr.ArrayDim(k)
		if i -= int64(d.Lower); i < 0 || i >= int64(d.Len) {
			return types.Null, nil
		}
		off = off*int64(d.Len) + i
	}
	return arr.Array()[off], nil
}

// arraySlice is array_get_slice for the bounds subs (lo, hi pairs).
func arraySlice(arr types.Datum, subs []int64) types.Datum {
	ndim := arr.ArrayNDims()
	if len(subs)/2 > ndim {
		return types.NewArray(nil)
	}
	var lo, hi [types.MaxArrayDims]int64 // offsets within each dimension
	var dimBuf [types.MaxArrayDims]types.ArrayDim
	dims := dimBuf[:ndim]
	for k := range dims {
		d := arr.ArrayDim(k)
		lo[k], hi[k] = 0, int64(d.Len)-1
		if 2*k < len(subs) {
			lo[k] = max(subs[2*k]-int64(d.Lower), 0)
			hi[k] = min(subs[2*k+1]-int64(d.Lower), int64(d.Len)-1)
		}
		if lo[k] > hi[k] {
			return types.NewArray(nil)
		}
		dims[k] = types.ArrayDim{Len: int32(hi[k] - lo[k] + 1), Lower: 1}
	}
	src := arr.Array()
	if ndim == 1 {
		return types.NewArray(src[lo[0] : hi[0]+1])
	}
	n := int64(1)
	for _, d := range dims {
		n *= int64(d.Len)
	}
	out := make([]types.Datum, 0, n)
	var idx [types.MaxArrayDims]int64 // position within the slice
	for range n {
		off := int64(0)
		for k := range dims {
			off = off*int64(arr.ArrayDim(k).Len) + lo[k] + idx[k]
		}
		out = append(out, src[off])
		for k := ndim - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < int64(dims[k].Len) {
				break
			}
			idx[k] = 0
		}
	}
	return types.NewArrayDims(out, dims)
}

// String implements Expr.
func (e *Subscript) String() string {
	s := e.Arr.String()
	step := 1
	if e.Slice {
		step = 2
	}
	for k := 0; k < len(e.Subs); k += step {
		if e.Slice {
			s += "[" + e.Subs[k].String() + ":" + e.Subs[k+1].String() + "]"
		} else {
			s += "[" + e.Subs[k].String() + "]"
		}
	}
	return s
}

// Children implements Expr.
func (e *Subscript) Children() []Expr { return append([]Expr{e.Arr}, e.Subs...) }

// WithChildren implements Expr.
func (e *Subscript) WithChildren(ch []Expr) Expr {
	return &Subscript{Arr: ch[0], Subs: ch[1:], Slice: e.Slice}
}

// ArrayCompare is x op ANY (array) or, with All, x op ALL (array): Cmp
// compares x with one element, evaluated over the row [x, element].
type ArrayCompare struct {
	X, Arr Expr
	Op     string
	Cmp    Expr
	All    bool
}

// Type implements Expr.
func (e *ArrayCompare) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *ArrayCompare) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	arr, err := e.Arr.Eval(c, row)
	if err != nil || arr.IsNull() {
		return types.Null, err
	}
	x, err := e.X.Eval(c, row)
	if err != nil {
		return types.Null, err
	}
	return quantified(c, e.Cmp, x, arr.Array(), !e.All)
}

// String implements Expr.
func (e *ArrayCompare) String() string {
	q := " ANY ("
	if e.All {
		q = " ALL ("
	}
	return "(" + e.X.String() + " " + e.Op + q + e.Arr.String() + "))"
}

// Children implements Expr.
func (e *ArrayCompare) Children() []Expr { return []Expr{e.X, e.Arr} }

// WithChildren implements Expr.
func (e *ArrayCompare) WithChildren(ch []Expr) Expr {
	c := *e
	c.X, c.Arr = ch[0], ch[1]
	return &c
}
