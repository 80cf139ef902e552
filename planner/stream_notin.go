package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/types"
)

// notInJoin keeps the rows of left for which NOT (x IN (q)), subquery sq,
// is true where x or q's column may be NULL: as PostgreSQL answers it,
// when q has no row equal to x and either q is empty or x is not NULL and
// q has no NULL. left is left-joined with the counts of q's rows and of
// its values (grouped by q's correlation keys, see aggJoin), anti-joined
// with q, and filtered by those counts; each part follows inserts and
// deletes on both sides.
func notInJoin(left Node, sq *expr.Subquery) (Node, error) {
	counts, in, err := aggJoin(left, countsOf(sq.Plan.(*subPlan).node))
	if err != nil {
		return nil, err
	}
	anti, err := subqueryJoin(in, AntiJoin, sq)
	if err != nil {
		return nil, err
	}
	zero := expr.NewConst(types.NewInt(0), types.TInt8)
	empty, _ := expr.NewBinary("=", counts[0], zero)
	noNull, _ := expr.NewBinary("=", counts[0], counts[1])
	cond := &expr.Or{Args: []expr.Expr{empty, &expr.And{Args: []expr.Expr{&expr.IsNull{E: sq.Test, Not: true}, noNull}}}}
	return firstColumns(&Filter{Input: anti, Cond: cond}, len(left.Columns())), nil
}
