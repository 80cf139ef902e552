package expr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/types"
)

// encodeVersion is the version of Encode's format, its first byte.
const encodeVersion = 1

// Node tags of Encode's format. Each node is its tag, its own fields, then
// its sub-expressions in order. A type is its family and element family
// bytes and its modifier (a zigzag varint); a string or byte string is
// length-prefixed (uvarint); a list is a uvarint count and its nodes.
const (
	tagColRef       = iota + 1 // index (uvarint), type, name
	tagConst                   // type, the value as a one-datum row (types.AppendRow), length-prefixed
	tagCast                    // flags (Assign, Compare), type, operand
	tagAnd                     // list
	tagOr                      // list
	tagNot                     // operand
	tagIsNull                  // flags (Not), operand
	tagIsBool                  // flags (Value, Not), operand
	tagNullSafeEq              // left, right
	tagBinary                  // operator, result type, left, right
	tagFunc                    // name, overload (uvarint), result type, arguments (list)
	tagCase                    // type, flags (has ELSE), count, then WHEN and THEN of each, then ELSE
	tagCoalesce                // type, list
	tagInList                  // flags (Not), operand, list
	tagLike                    // flags (CaseInsensitive, Not, has ESCAPE), operand, pattern, escape
	tagRegexMatch              // operator, left, right
	tagArrayCtor               // type, list
	tagSubscript               // flags (slice, subscripts as a list), array, subscripts (list; formerly lower[, upper])
	tagArrayCompare            // operator, flags (All), operand, array, comparison
)

// Encode returns e in a compact binary form that Decode turns back into
// the same expression on another node of the cluster (a filter shipped to
// the nodes that hold a table's rows), and false if e cannot be shipped:
// it reads more than its input row (a statement parameter, an enclosing
// query's row, a subquery), calls a volatile function, or has a node
// Encode does not know. Constants keep their exact values; functions
// that read the statement's clock need Ctx.Now where they are decoded.
func Encode(e Expr) ([]byte, bool) {
	w := encoder{b: []byte{encodeVersion}}
	if !w.exprs(e) {
		return nil, false
	}
	// Decode resolves operators and functions again: what it would not
	// rebuild alike (a call whose NULL argument it would fold) stays.
	d, err := Decode(w.b)
	if err != nil || d.String() != e.String() || d.Type() != e.Type() {
		return nil, false
	}
	return w.b, true
}

// WithParams returns e with its statement parameters replaced by their
// values (constants of the parameters' types), so that Encode can ship
// it; a parameter params lacks stays.
func WithParams(e Expr, params []types.Datum) Expr {
	out, _ := Transform(e, func(x Expr) (Expr, bool, error) {
		if p, ok := x.(*Param); ok && p.Idx < len(params) {
			return NewConst(params[p.Idx], p.T), true, nil
		}
		return nil, false, nil
	})
	return out
}

// encoder appends nodes in Encode's format.
type encoder struct{ b []byte }

// exprs appends es; false if one of them cannot be shipped.
func (w *encoder) exprs(es ...Expr) bool {
	for _, e := range es {
		if !w.expr(e) {
			return false
		}
	}
	return true
}

// list appends a count and es.
func (w *encoder) list(es []Expr) bool {
	w.b = binary.AppendUvarint(w.b, uint64(len(es)))
	return w.exprs(es...)
}

func (w *encoder) typ(t types.T) {
	w.b = append(w.b, byte(t.Family), byte(t.Elem))
	w.b = binary.AppendVarint(w.b, int64(t.Mod))
}

func (w *encoder) str(s string) {
	w.b = binary.AppendUvarint(w.b, uint64(len(s)))
	w.b = append(w.b, s...)
}

// flags packs bits, the first in the lowest bit.
func flags(bits ...bool) byte {
	var f byte
	for i, b := range bits {
		if b {
			f |= 1 << i
		}
	}
	return f
}

func (w *encoder) expr(e Expr) bool {
	switch x := e.(type) {
	case *ColRef:
		w.b = append(w.b, tagColRef)
		w.b = binary.AppendUvarint(w.b, uint64(x.Idx))
		w.typ(x.T)
		w.str(x.Name)
		return true
	case *Const:
		w.b = append(w.b, tagConst)
		w.typ(x.T)
		w.str(string(types.AppendRow(nil, []types.Datum{x.V})))
		return true
	case *Cast:
		w.b = append(w.b, tagCast, flags(x.Assign, x.Compare))
		w.typ(x.To)
		return w.expr(x.E)
	case *And:
		w.b = append(w.b, tagAnd)
		return w.list(x.Args)
	case *Or:
		w.b = append(w.b, tagOr)
		return w.list(x.Args)
	case *Not:
		w.b = append(w.b, tagNot)
		return w.expr(x.E)
	case *IsNull:
		w.b = append(w.b, tagIsNull, flags(x.Not))
		return w.expr(x.E)
	case *IsBool:
		w.b = append(w.b, tagIsBool, flags(x.Value, x.Not))
		return w.expr(x.E)
	case *NullSafeEq:
		w.b = append(w.b, tagNullSafeEq)
		return w.exprs(x.L, x.R)
	case *Binary:
		w.b = append(w.b, tagBinary)
		w.str(x.Op)
		w.typ(x.T)
		return w.exprs(x.L, x.R)
	case *Func:
		i := overloadIndex(x)
		if i < 0 || x.o.Volatile {
			return false
		}
		w.b = append(w.b, tagFunc)
		w.str(x.Name)
		w.b = binary.AppendUvarint(w.b, uint64(i))
		w.typ(x.T)
		return w.list(x.Args)
	case *Case:
		w.b = append(w.b, tagCase)
		w.typ(x.T)
		w.b = append(w.b, flags(x.Else != nil))
		w.b = binary.AppendUvarint(w.b, uint64(len(x.Whens)))
		for i := range x.Whens {
			if !w.exprs(x.Whens[i], x.Thens[i]) {
				return false
			}
		}
		return x.Else == nil || w.expr(x.Else)
	case *Coalesce:
		w.b = append(w.b, tagCoalesce)
		w.typ(x.T)
		return w.list(x.Args)
	case *InList:
		w.b = append(w.b, tagInList, flags(x.Not))
		return w.expr(x.E) && w.list(x.List)
	case *Like:
		w.b = append(w.b, tagLike, flags(x.CaseInsensitive, x.Not, x.Escape != nil))
		return w.exprs(x.E, x.Pattern) && (x.Escape == nil || w.expr(x.Escape))
	case *RegexMatch:
		w.b = append(w.b, tagRegexMatch)
		w.str(x.Op)
		return w.exprs(x.L, x.R)
	case *ArrayCtor:
		w.b = append(w.b, tagArrayCtor)
		w.typ(x.T)
		return w.list(x.Elems)
	case *Subscript:
		w.b = append(w.b, tagSubscript, flags(x.Slice, true))
		return w.expr(x.Arr) && w.list(x.Subs)
	case *ArrayCompare:
		w.b = append(w.b, tagArrayCompare)
		w.str(x.Op)
		w.b = append(w.b, flags(x.All))
		return w.exprs(x.X, x.Arr, x.Cmp)
	}
	return false
}

// overloadIndex returns the position of f's overload among the
// registered overloads of its name, -1 if it is not one of them.
func overloadIndex(f *Func) int {
	overloads := builtins[f.Name]
	for i := range overloads {
		if &overloads[i] == f.o {
			return i
		}
	}
	return -1
}

// Decode rebuilds an expression encoded by Encode, resolving its
// operators and functions again as the binder does (NewBinary's and
// NewFunc's resolution): it fails if they do not resolve to what was
// encoded, as between different releases.
func Decode(b []byte) (Expr, error) {
	if len(b) == 0 || b[0] != encodeVersion {
		return nil, errors.New("expr: undecodable expression: unknown format version")
	}
	r := decoder{b: b[1:]}
	e := r.expr()
	if r.err == nil && len(r.b) > 0 {
		r.fail("trailing bytes")
	}
	if r.err != nil {
		return nil, r.err
	}
	return e, nil
}

// decoder reads nodes in Encode's format. After the first error every
// read returns zero values and err keeps that error.
type decoder struct {
	b   []byte
	err error
}

func (r *decoder) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("expr: undecodable expression: "+format, args...)
	}
	r.b = nil
}

func (r *decoder) byte() byte {
	if len(r.b) == 0 {
		r.fail("truncated")
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("truncated")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a count of items that take a byte at least each.
func (r *decoder) count() int {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("count %d past the end", n)
		return 0
	}
	return int(n)
}

func (r *decoder) str() string {
	n := r.count()
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *decoder) typ() types.T {
	f, elem := types.Family(r.byte()), types.Family(r.byte())
	mod, n := binary.Varint(r.b)
	if n <= 0 || mod != int64(int32(mod)) || f > types.Array || elem >= types.Array {
		r.fail("bad type")
		return types.TUnknown
	}
	r.b = r.b[n:]
	return types.T{Family: f, Elem: elem, Mod: int32(mod)}
}

func (r *decoder) list() []Expr {
	out := make([]Expr, r.count())
	for i := range out {
		out[i] = r.expr()
	}
	return out
}

func (r *decoder) expr() Expr {
	switch tag := r.byte(); tag {
	case tagColRef:
		idx := r.uvarint()
		if idx > 1<<31 {
			r.fail("column %d", idx)
		}
		t := r.typ()
		return &ColRef{Idx: int(idx), T: t, Name: r.str()}
	case tagConst:
		t := r.typ()
		raw := r.str()
		v, err := types.DecodeRow([]byte(raw), []types.T{t}, nil)
		if err != nil || len(v) != 1 {
			r.fail("bad constant of type %s", t)
			return nil
		}
		return NewConst(v[0], t)
	case tagCast:
		f := r.byte()
		to := r.typ()
		return &Cast{E: r.expr(), To: to, Assign: f&1 != 0, Compare: f&2 != 0}
	case tagAnd:
		return &And{Args: r.list()}
	case tagOr:
		return &Or{Args: r.list()}
	case tagNot:
		return &Not{E: r.expr()}
	case tagIsNull:
		f := r.byte()
		return &IsNull{E: r.expr(), Not: f&1 != 0}
	case tagIsBool:
		f := r.byte()
		return &IsBool{E: r.expr(), Value: f&1 != 0, Not: f&2 != 0}
	case tagNullSafeEq:
		l := r.expr()
		return &NullSafeEq{L: l, R: r.expr()}
	case tagBinary:
		return r.binary()
	case tagFunc:
		return r.call()
	case tagCase:
		c := &Case{T: r.typ()}
		f := r.byte()
		for range r.count() {
			c.Whens = append(c.Whens, r.expr())
			c.Thens = append(c.Thens, r.expr())
		}
		if f&1 != 0 {
			c.Else = r.expr()
		}
		return c
	case tagCoalesce:
		t := r.typ()
		return &Coalesce{Args: r.list(), T: t}
	case tagInList:
		f := r.byte()
		e := r.expr()
		return &InList{E: e, List: r.list(), Not: f&1 != 0}
	case tagLike:
		f := r.byte()
		l := &Like{CaseInsensitive: f&1 != 0, Not: f&2 != 0}
		l.E = r.expr()
		l.Pattern = r.expr()
		if f&4 != 0 {
			l.Escape = r.expr()
		}
		return l
	case tagRegexMatch:
		op := r.str()
		lhs := r.expr()
		rhs := r.expr()
		if r.err != nil {
			return nil
		}
		e, err := NewRegexMatch(op, lhs, rhs)
		if err != nil {
			r.fail("%v", err)
		}
		return e
	case tagArrayCtor:
		t := r.typ()
		return &ArrayCtor{Elems: r.list(), T: t}
	case tagSubscript:
		f := r.byte()
		s := &Subscript{Arr: r.expr(), Slice: f&1 != 0}
		if f&2 != 0 {
			s.Subs = r.list()
		} else {
			// Before several dimensions: a subscript, or a slice's two.
			s.Subs = []Expr{r.expr()}
			if s.Slice {
				s.Subs = append(s.Subs, r.expr())
			}
		}
		return s
	case tagArrayCompare:
		a := &ArrayCompare{Op: r.str()}
		a.All = r.byte()&1 != 0
		a.X = r.expr()
		a.Arr = r.expr()
		a.Cmp = r.expr()
		return a
	default:
		r.fail("unknown node %d", tag)
		return nil
	}
}

// binary rebuilds an operator through resolveBinary, which must give it
// the encoded operands, uncast, and result type.
func (r *decoder) binary() Expr {
	op := r.str()
	t := r.typ()
	l := r.expr()
	rhs := r.expr()
	if r.err != nil {
		return nil
	}
	e, err := resolveBinary(op, l, rhs)
	b, ok := e.(*Binary)
	if err != nil || !ok || b.L != l || b.R != rhs || b.T != t {
		r.fail("operator %s %s %s does not resolve as encoded", l.Type(), op, rhs.Type())
		return nil
	}
	return b
}

// call rebuilds a function call through its overload in the registry,
// which must take the encoded arguments, uncast, and give the encoded
// result type.
func (r *decoder) call() Expr {
	name := r.str()
	i := r.uvarint()
	t := r.typ()
	args := r.list()
	if r.err != nil {
		return nil
	}
	overloads := builtins[name]
	if i >= uint64(len(overloads)) {
		r.fail("no overload %d of function %s", i, name)
		return nil
	}
	o := &overloads[i]
	if _, ok := matchCost(o, args); !ok {
		r.fail("function %s does not resolve as encoded", signature(name, args))
		return nil
	}
	e, err := newCall(name, o, args)
	f, ok := e.(*Func)
	if err != nil || !ok || f.T != t || !slices.Equal(f.Args, args) {
		r.fail("function %s does not resolve as encoded", signature(name, args))
		return nil
	}
	return f
}
