package expr

import (
	"fmt"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// SubPlan runs a subquery's plan; emit receives each row (the slice may be
// reused) and returns false to stop early. The executor implements it.
type SubPlan interface {
	Run(c *Ctx, emit func(row []types.Datum) (bool, error)) error
	String() string
}

// SubqueryMode says how a subquery's rows become a value.
type SubqueryMode uint8

// Subquery modes.
const (
	SubScalar SubqueryMode = iota // (SELECT x): the single value, NULL if no row, error if several
	SubExists                     // EXISTS (SELECT ...)
	SubAny                        // x op ANY (SELECT ...), also x IN (SELECT ...)
	SubAll                        // x op ALL (SELECT ...)
	SubArray                      // ARRAY(SELECT ...): the values as an array
)

// Subquery evaluates a nested query. For SubAny/SubAll, Test is the left
// operand and Cmp compares it with a subquery value (placeholder operand
// column 0 of a one-column row). Correlated subqueries see the current row
// through Ctx.Outer; uncorrelated ones run once per statement.
type Subquery struct {
	Mode       SubqueryMode
	Plan       SubPlan
	Test       Expr
	Cmp        Expr // evaluated over the row [test value, subquery value]
	Correlated bool
	T          types.T
}

// Type implements Expr.
func (e *Subquery) Type() types.T { return e.T }

// String implements Expr.
func (e *Subquery) String() string { return fmt.Sprintf("subquery%d(%p)", e.Mode, e) }

// Children implements Expr.
func (e *Subquery) Children() []Expr {
	if e.Test != nil {
		return []Expr{e.Test}
	}
	return nil
}

// WithChildren implements Expr.
func (e *Subquery) WithChildren(ch []Expr) Expr {
	c := *e
	if len(ch) > 0 {
		c.Test = ch[0]
	}
	return &c
}

// rows returns the subquery's first-column values (all of them for
// ANY/ALL and ARRAY, at most two for scalar, at most one for EXISTS).
func (e *Subquery) rows(c *Ctx, row []types.Datum) ([]types.Datum, error) {
	if !e.Correlated {
		if vals, ok := c.subCache[e]; ok {
			return vals, nil
		}
	}
	c.Outer = append(c.Outer, row)
	var vals []types.Datum
	err := e.Plan.Run(c, func(r []types.Datum) (bool, error) {
		var v types.Datum
		if len(r) > 0 {
			v = r[0]
		}
		vals = append(vals, v)
		switch e.Mode {
		case SubExists:
			return false, nil
		case SubScalar:
			if len(vals) > 1 {
				return false, pgerror.New(pgerror.CodeCardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
		}
		return true, nil
	})
	c.Outer = c.Outer[:len(c.Outer)-1]
	if err != nil {
		return nil, err
	}
	if !e.Correlated {
		if c.subCache == nil {
			c.subCache = map[*Subquery][]types.Datum{}
		}
		c.subCache[e] = vals
	}
	return vals, nil
}

// Eval implements Expr.
func (e *Subquery) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	vals, err := e.rows(c, row)
	if err != nil {
		return types.Null, err
	}
	switch e.Mode {
	case SubScalar:
		if len(vals) == 0 {
			return types.Null, nil
		}
		return vals[0], nil
	case SubExists:
		return types.NewBool(len(vals) > 0), nil
	case SubArray:
		return types.NewArray(vals), nil
	}
	test, err := e.Test.Eval(c, row)
	if err != nil {
		return types.Null, err
	}
	return quantified(c, e.Cmp, test, vals, e.Mode == SubAny)
}

// quantified is x op ANY (vals), or x op ALL (vals) when any is false: cmp
// compares over the row [x, value]. ANY is true when some comparison is,
// ALL false when some comparison is; otherwise the result is NULL if some
// comparison was NULL.
func quantified(c *Ctx, cmp Expr, x types.Datum, vals []types.Datum, any bool) (types.Datum, error) {
	sawNull := false
	pair := []types.Datum{x, types.Null}
	for _, v := range vals {
		pair[1] = v
		r, err := cmp.Eval(c, pair)
		if err != nil {
			return types.Null, err
		}
		switch {
		case r.IsNull():
			sawNull = true
		case r.Bool() == any:
			return types.NewBool(any), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(!any), nil
}
