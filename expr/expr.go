// Package expr holds bound scalar expressions and aggregate functions with
// PostgreSQL semantics: operator and function resolution by argument types,
// three-valued logic, overflow and division errors. The planner builds
// expressions; batch executors and dataflow operators evaluate them.
package expr

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// Expr is a bound, typed scalar expression.
type Expr interface {
	// Type returns the static result type.
	Type() types.T
	// Eval computes the value for one input row.
	Eval(c *Ctx, row []types.Datum) (types.Datum, error)
	// String renders the expression for EXPLAIN, error messages and for
	// structural comparison (two expressions with equal strings are equal).
	String() string
	// Children returns the sub-expressions, in order.
	Children() []Expr
	// WithChildren returns a copy with the sub-expressions replaced.
	WithChildren(ch []Expr) Expr
}

// Transform rewrites e bottom-up... top-down: fn sees each node first; when it
// returns a replacement (ok=true) the node is replaced and not descended into.
func Transform(e Expr, fn func(Expr) (Expr, bool, error)) (Expr, error) {
	if r, ok, err := fn(e); err != nil || ok {
		return r, err
	}
	ch := e.Children()
	if len(ch) == 0 {
		return e, nil
	}
	out := make([]Expr, len(ch))
	changed := false
	for i, c := range ch {
		r, err := Transform(c, fn)
		if err != nil {
			return nil, err
		}
		out[i] = r
		changed = changed || r != c
	}
	if !changed {
		return e, nil
	}
	return e.WithChildren(out), nil
}

// Walk calls fn for e and every sub-expression, top-down, until fn returns false.
func Walk(e Expr, fn func(Expr) bool) {
	if !fn(e) {
		return
	}
	for _, c := range e.Children() {
		Walk(c, fn)
	}
}

// Equal reports whether two expressions are structurally equal.
func Equal(a, b Expr) bool { return a.String() == b.String() }

func joinStrings(es []Expr, sep string) string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(e.String())
	}
	return b.String()
}

type leaf struct{}

func (leaf) Children() []Expr { return nil }
