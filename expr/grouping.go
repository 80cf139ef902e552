package expr

import (
	"fmt"

	"github.com/streamdb/streamdb/types"
)

// Grouping is GROUPING(args) in a query with grouping sets: Masks[n] is
// its value (an integer) in the rows of grouping set number Set.
type Grouping struct {
	Set   Expr
	Masks []int64
}

// Type implements Expr.
func (e *Grouping) Type() types.T { return types.TInt4 }

// Eval implements Expr.
func (e *Grouping) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	v, err := e.Set.Eval(c, row)
	if err != nil {
		return v, err
	}
	return types.NewInt(e.Masks[v.Int()]), nil
}

// String implements Expr.
func (e *Grouping) String() string { return fmt.Sprintf("grouping(%s, masks %v)", e.Set, e.Masks) }

// Children implements Expr.
func (e *Grouping) Children() []Expr { return []Expr{e.Set} }

// WithChildren implements Expr.
func (e *Grouping) WithChildren(ch []Expr) Expr { c := *e; c.Set = ch[0]; return &c }
