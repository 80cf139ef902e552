package expr

import (
	"github.com/streamdb/streamdb/types"
)

// InList is x [NOT] IN (v1, v2, ...) with SQL's NULL rules. Operands are
// already cast to a common type.
type InList struct {
	E    Expr
	List []Expr
	Not  bool
}

// Type implements Expr.
func (e *InList) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *InList) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	x, err := e.E.Eval(c, row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	sawNull := false
	for _, item := range e.List {
		v, err := item.Eval(c, row)
		if err != nil {
			return types.Null, err
		}
		if v.IsNull() {
			sawNull = true
			continue
		}
		if types.CompareAs(e.E.Type(), x, v) == 0 {
			return types.NewBool(!e.Not), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(e.Not), nil
}

// String implements Expr.
func (e *InList) String() string {
	op := " IN ("
	if e.Not {
		op = " NOT IN ("
	}
	return e.E.String() + op + joinStrings(e.List, ", ") + ")"
}

// Children implements Expr.
func (e *InList) Children() []Expr { return append([]Expr{e.E}, e.List...) }

// WithChildren implements Expr.
func (e *InList) WithChildren(ch []Expr) Expr { return &InList{E: ch[0], List: ch[1:], Not: e.Not} }
