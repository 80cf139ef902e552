package expr

import (
	"github.com/streamdb/streamdb/types"
)

// ArrayCtor is ARRAY[e1, e2, ...]: its elements are already cast to the
// element type of T.
type ArrayCtor struct {
	Elems []Expr
	T     types.T
}

// NewArrayCtor returns ARRAY[elems...] of array type t, folded into a
// constant when every element is one.
func NewArrayCtor(elems []Expr, t types.T) Expr {
	vals := make([]types.Datum, len(elems))
	for i, e := range elems {
		c, ok := e.(*Const)
		if !ok {
			return &ArrayCtor{Elems: elems, T: t}
		}
		vals[i] = c.V
	}
	return NewConst(types.NewArray(vals), t)
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
	return types.NewArray(vals), nil
}

// String implements Expr.
func (e *ArrayCtor) String() string { return "ARRAY[" + joinStrings(e.Elems, ", ") + "]" }

// Children implements Expr.
func (e *ArrayCtor) Children() []Expr { return e.Elems }

// WithChildren implements Expr.
func (e *ArrayCtor) WithChildren(ch []Expr) Expr { return &ArrayCtor{Elems: ch, T: e.T} }

// Subscript is a[i] (Hi nil), NULL when i is out of range, or the slice
// a[Lo:Hi], empty when no element is in range. Subscripts are int4 and
// 1-based; a NULL array or subscript gives NULL.
type Subscript struct {
	Arr, Lo, Hi Expr
}

// Type implements Expr.
func (e *Subscript) Type() types.T {
	if e.Hi != nil {
		return e.Arr.Type()
	}
	return e.Arr.Type().ElemType()
}

// Eval implements Expr.
func (e *Subscript) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	var vals [3]types.Datum
	for i, x := range [...]Expr{e.Arr, e.Lo, e.Hi} {
		if x == nil {
			break
		}
		v, err := x.Eval(c, row)
		if err != nil || v.IsNull() {
			return types.Null, err
		}
		vals[i] = v
	}
	elems := vals[0].Array()
	n := int64(len(elems))
	if e.Hi == nil {
		if i := vals[1].Int(); i >= 1 && i <= n {
			return elems[i-1], nil
		}
		return types.Null, nil
	}
	lo, hi := max(vals[1].Int(), 1), min(vals[2].Int(), n)
	if lo > hi {
		return types.NewArray(nil), nil
	}
	return types.NewArray(elems[lo-1 : hi]), nil
}

// String implements Expr.
func (e *Subscript) String() string {
	if e.Hi == nil {
		return e.Arr.String() + "[" + e.Lo.String() + "]"
	}
	return e.Arr.String() + "[" + e.Lo.String() + ":" + e.Hi.String() + "]"
}

// Children implements Expr.
func (e *Subscript) Children() []Expr {
	if e.Hi == nil {
		return []Expr{e.Arr, e.Lo}
	}
	return []Expr{e.Arr, e.Lo, e.Hi}
}

// WithChildren implements Expr.
func (e *Subscript) WithChildren(ch []Expr) Expr {
	s := &Subscript{Arr: ch[0], Lo: ch[1]}
	if len(ch) > 2 {
		s.Hi = ch[2]
	}
	return s
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
