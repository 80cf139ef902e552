// Subqueries in materialized views: decorrelate rewrites them into joins
// before the streaming plan is made, since a streaming job cannot run a
// subquery per row.

package planner

import (
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// decorrelate rewrites the subqueries of n's filters and projections into
// joins, bottom up:
//   - a WHERE (or HAVING) conjunct EXISTS (q) or x IN (q), and x op ANY (q),
//     becomes a semi join with q, NOT EXISTS (q) an anti join, and NOT
//     (x IN (q)) one too where neither x nor q's column can be NULL (NOT
//     IN is unknown, not true, when either is);
//   - q may be correlated by conditions of its WHERE on the outer row,
//     which become the join's condition: its equalities the hash keys;
//   - a WHERE (or HAVING) conjunct comparing an expression of the row with
//     an uncorrelated scalar subquery of one row becomes a semi join on
//     the comparison, which is planned as a dynamic filter
//     (stream_dynfilter.go);
//   - another uncorrelated scalar subquery in a condition or a select
//     list becomes a left join by a constant key with q, which must return
//     at most one row by its shape (an aggregate without GROUP BY, LIMIT
//     1): a view cannot fail at run time with PostgreSQL's 21000 "more than
//     one row returned by a subquery used as an expression"; a correlated
//     one, an aggregate without GROUP BY, is aggJoin's left join with the
//     aggregate grouped by its correlation keys;
//   - NOT IN where either side may be NULL is notInJoin's;
//   - a LATERAL subquery in FROM is applyJoin's join.
//
// Other subqueries are left in place, for checkStreamable to refuse.
func decorrelate(n Node) (Node, error) {
	ins := n.Inputs()
	out := make([]Node, len(ins))
	for i, in := range ins {
		var err error
		if out[i], err = decorrelate(in); err != nil {
			return nil, err
		}
	}
	n = withInputs(n, out)
	switch x := n.(type) {
	case *Filter:
		if hasSubquery(x.Cond) {
			return filterSubqueries(x)
		}
	case *Project:
		if hasSubquery(x.Exprs...) {
			return projectSubqueries(x)
		}
	case *Apply:
		return applyJoin(x)
	}
	return n, nil
}

// hasSubquery reports whether one of es has a subquery.
func hasSubquery(es ...expr.Expr) bool {
	found := false
	for _, e := range es {
		expr.Walk(e, func(x expr.Expr) bool {
			_, ok := x.(*expr.Subquery)
			found = found || ok
			return !found
		})
	}
	return found
}

// filterSubqueries rewrites filter x's subqueries (see decorrelate): its
// conjuncts without any are kept below the joins.
func filterSubqueries(x *Filter) (Node, error) {
	var plain, sub []expr.Expr
	for _, c := range conjuncts(x.Cond) {
		if hasSubquery(c) {
			sub = append(sub, c)
		} else {
			plain = append(plain, c)
		}
	}
	in := x.Input
	nl := len(in.Columns())
	if len(plain) > 0 {
		in = &Filter{Input: in, Cond: andOf(plain)}
	}
	var rest []expr.Expr
	for _, c := range sub {
		var err error
		if kind, sq, ok := semiForm(c); ok {
			if in, err = semiJoin(in, kind, sq); err != nil {
				return nil, err
			}
			continue
		}
		if j, ok, err := dynamicJoin(in, c); ok || err != nil {
			if err != nil {
				return nil, err
			}
			in = j
			continue
		}
		if c, in, err = scalarJoins(c, in); err != nil {
			return nil, err
		}
		rest = append(rest, c)
	}
	if len(rest) > 0 {
		in = &Filter{Input: in, Cond: andOf(rest)}
	}
	return firstColumns(in, nl), nil
}

// projectSubqueries rewrites the scalar subqueries of projection x into
// joins (see decorrelate).
func projectSubqueries(x *Project) (Node, error) {
	in := x.Input
	exprs := make([]expr.Expr, len(x.Exprs))
	for i, e := range x.Exprs {
		var err error
		if exprs[i], in, err = scalarJoins(e, in); err != nil {
			return nil, err
		}
	}
	return &Project{Input: in, Exprs: exprs, Cols: x.Cols}, nil
}

// firstColumns returns n reduced to its first n columns.
func firstColumns(n Node, width int) Node {
	cols := n.Columns()
	if len(cols) == width {
		return n
	}
	exprs := make([]expr.Expr, width)
	for i := range exprs {
		exprs[i] = &expr.ColRef{Idx: i, T: cols[i].T, Name: cols[i].Name}
	}
	return &Project{Input: n, Exprs: exprs, Cols: cols[:width]}
}

// semiForm returns the join kind that a conjunct c of a filter is (semi
// for EXISTS and ANY, anti for their negations), and its subquery.
func semiForm(c expr.Expr) (JoinKind, *expr.Subquery, bool) {
	kind := SemiJoin
	if not, ok := c.(*expr.Not); ok {
		kind, c = AntiJoin, not.E
	}
	sq, ok := c.(*expr.Subquery)
	if !ok || sq.Mode != expr.SubExists && sq.Mode != expr.SubAny {
		return 0, nil, false
	}
	return kind, sq, true
}

// semiJoin joins left with subquery sq (an EXISTS or ANY, see semiForm)
// as kind. NOT IN where either side may be NULL is notInJoin.
func semiJoin(left Node, kind JoinKind, sq *expr.Subquery) (Node, error) {
	sub := sq.Plan.(*subPlan).node
	if kind == AntiJoin && sq.Mode == expr.SubAny && (!notNull(left, sq.Test) || !notNull(sub, &expr.ColRef{Idx: 0})) {
		return notInJoin(left, sq)
	}
	return subqueryJoin(left, kind, sq)
}

// subqueryJoin joins left with the rows of subquery sq as kind (semi or
// anti) on sq's comparison, if any, and its correlation.
func subqueryJoin(left Node, kind JoinKind, sq *expr.Subquery) (Node, error) {
	right, corr, err := pullCorrelated(sq.Plan.(*subPlan).node)
	if err != nil {
		return nil, err
	}
	if right, err = decorrelate(right); err != nil {
		return nil, err
	}
	nl := len(left.Columns())
	on := corrOn(corr, nl)
	if sq.Mode == expr.SubAny {
		// Cmp compares [test, value]: the left's test with the right's
		// first column.
		cmp, _ := expr.Transform(sq.Cmp, func(x expr.Expr) (expr.Expr, bool, error) {
			if r, ok := x.(*expr.ColRef); ok {
				if r.Idx == 0 {
					return sq.Test, true, nil
				}
				return &expr.ColRef{Idx: nl, T: r.T}, true, nil
			}
			return nil, false, nil
		})
		on = append([]expr.Expr{cmp}, on...)
	}
	return keyedJoin(kind, left, right, on), nil
}

// corrOn returns correlation conditions corr, over a subquery's columns
// and its outer row, over the row of a join of the outer row (nl
// columns) with the subquery.
func corrOn(corr []expr.Expr, nl int) []expr.Expr {
	on := make([]expr.Expr, len(corr))
	for i, c := range corr {
		on[i], _ = expr.Transform(c, func(x expr.Expr) (expr.Expr, bool, error) {
			switch r := x.(type) {
			case *expr.ColRef:
				return &expr.ColRef{Idx: nl + r.Idx, T: r.T, Name: r.Name}, true, nil
			case *expr.OuterRef:
				return &expr.ColRef{Idx: r.Idx, T: r.T, Name: r.Name}, true, nil
			}
			return nil, false, nil
		})
	}
	return on
}

// keyedJoin joins left and right as kind on the conjuncts on (over the
// concatenated row); without an equality between the sides they are
// joined by a constant key column appended to each (and so in one key
// group), since streaming joins are hash joins.
func keyedJoin(kind JoinKind, left, right Node, on []expr.Expr) *Join {
	nl := len(left.Columns())
	if len(on) > 0 {
		if lk, _, _ := equiJoin(andOf(on), nl); len(lk) > 0 {
			return &Join{Kind: kind, L: left, R: right, On: andOf(on)}
		}
	}
	// Right columns move one place up past the left's key column.
	for i, c := range on {
		on[i] = mapCols(c, func(i int) int {
			if i >= nl {
				return i + 1
			}
			return i
		})
	}
	l, r := withConstKey(left), withConstKey(right)
	nr := len(right.Columns())
	eq, _ := expr.NewBinary("=", &expr.ColRef{Idx: nl, T: types.TInt4}, &expr.ColRef{Idx: nl + 1 + nr, T: types.TInt4})
	return &Join{Kind: kind, L: l, R: r, On: andOf(append(on, eq))}
}

// withConstKey returns n with a hidden constant column appended.
func withConstKey(n Node) Node {
	cols := n.Columns()
	exprs := make([]expr.Expr, len(cols), len(cols)+1)
	for i, c := range cols {
		exprs[i] = &expr.ColRef{Idx: i, T: c.T, Name: c.Name}
	}
	exprs = append(exprs, expr.NewConst(types.NewInt(0), types.TInt4))
	return &Project{Input: n, Exprs: exprs, Cols: append(cols[:len(cols):len(cols)], Column{Name: "_key", T: types.TInt4, Hidden: true})}
}

// pullCorrelated returns subquery plan n without its conditions on the
// outer row (OuterRef level 1), and those conditions, over the columns
// of the plan it returns: a projection passes on the columns they read
// after its own, a grouped aggregation the keys of equalities
// (keyedAggregate). Conditions elsewhere (in a join, over an aggregation
// without GROUP BY) and references to rows further out are refused.
func pullCorrelated(n Node) (Node, []expr.Expr, error) {
	switch x := n.(type) {
	case *Filter:
		in, corr, err := pullCorrelated(x.Input)
		if err != nil {
			return nil, nil, err
		}
		var local []expr.Expr
		for _, c := range conjuncts(x.Cond) {
			switch outerLevel(c) {
			case 0:
				local = append(local, c)
			case 1:
				corr = append(corr, c)
			default:
				return nil, nil, correlatedNotStreamable()
			}
		}
		if len(local) > 0 {
			in = &Filter{Input: in, Cond: andOf(local)}
		}
		return in, corr, nil
	case *Project:
		in, corr, err := pullCorrelated(x.Input)
		if err != nil {
			return nil, nil, err
		}
		if outerLevel(x.Exprs...) != 0 {
			return nil, nil, correlatedNotStreamable()
		}
		if len(corr) == 0 {
			return withInputs(x, []Node{in}), nil, nil
		}
		// Pass on the input columns corr reads, after x's.
		exprs, cols := append([]expr.Expr(nil), x.Exprs...), append([]Column(nil), x.Cols...)
		at := map[int]int{}
		inCols := in.Columns()
		for i, c := range corr {
			corr[i] = mapCols(c, func(i int) int {
				if _, ok := at[i]; !ok {
					at[i] = len(exprs)
					exprs = append(exprs, &expr.ColRef{Idx: i, T: inCols[i].T, Name: inCols[i].Name})
					cols = append(cols, Column{Name: inCols[i].Name, T: inCols[i].T, Hidden: true})
				}
				return at[i]
			})
		}
		return &Project{Input: in, Exprs: exprs, Cols: cols}, corr, nil
	case *Aggregate:
		// Grouped, it is grouped by the correlation keys too (without
		// GROUP BY it has a row for the outer rows that meet none: aggJoin).
		if len(x.Group) > 0 && len(x.EmptySets) == 0 && outerLevel(exprsOf(x)...) == 0 {
			in, corr, err := pullCorrelated(x.Input)
			if err != nil {
				return nil, nil, err
			}
			return keyedAggregate(x, in, corr)
		}
	}
	var err error
	walkNodes(n, func(m Node) {
		if err == nil && outerLevel(exprsOf(m)...) != 0 {
			err = correlatedNotStreamable()
		}
	})
	return n, nil, err
}

// walkNodes calls fn on n and every node below it.
func walkNodes(n Node, fn func(Node)) {
	fn(n)
	for _, in := range n.Inputs() {
		walkNodes(in, fn)
	}
}

// outerLevel returns the highest level of the outer references in es (0
// for none), those of nested subqueries one level less.
func outerLevel(es ...expr.Expr) int {
	level := 0
	for _, e := range es {
		expr.Walk(e, func(x expr.Expr) bool {
			switch r := x.(type) {
			case *expr.OuterRef:
				level = max(level, r.Level)
			case *expr.Subquery:
				if p, ok := r.Plan.(*subPlan); ok && r.Correlated {
					walkNodes(p.node, func(m Node) { level = max(level, outerLevel(exprsOf(m)...)-1) })
				}
			}
			return true
		})
	}
	return level
}

// correlatedNotStreamable is the error for a correlation decorrelate
// cannot turn into a join condition.
func correlatedNotStreamable() *pgerror.Error {
	return notStreamable("correlated subqueries other than by conditions of their WHERE").
		WithHint("Correlate EXISTS and IN subqueries by WHERE conditions on the outer row, such as inner.c = outer.c, or join the tables.")
}

// scalarJoins replaces each scalar subquery of e, an expression over in,
// by an expression over a left join of in with it (see scalarJoin), and
// returns e and the join.
func scalarJoins(e expr.Expr, in Node) (expr.Expr, Node, error) {
	var err error
	out, _ := expr.Transform(e, func(x expr.Expr) (expr.Expr, bool, error) {
		sq, ok := x.(*expr.Subquery)
		if !ok || err != nil {
			return nil, false, nil
		}
		var v expr.Expr
		if v, in, err = scalarJoin(in, sq); err != nil {
			return x, true, nil
		}
		return v, true, nil
	})
	return out, in, err
}

// scalarJoin left-joins in with scalar subquery sq and returns sq's value
// over the join: an uncorrelated sq is joined by a constant key, a
// correlated one is aggJoin's.
func scalarJoin(in Node, sq *expr.Subquery) (expr.Expr, Node, error) {
	if sq.Mode != expr.SubScalar {
		return nil, nil, notStreamable("EXISTS, IN, ANY, ALL and ARRAY subqueries other than as conditions of WHERE, alone or under NOT, ANDed").
			WithHint("Move the subquery into WHERE, or join the tables.")
	}
	sub := sq.Plan.(*subPlan).node
	if sq.Correlated {
		vs, j, err := aggJoin(in, sub)
		if err != nil {
			return nil, nil, err
		}
		return vs[0], j, nil
	}
	if !singleRow(sub) {
		return nil, nil, notStreamable("scalar subqueries that may return more than one row").
			WithDetail("A view cannot fail with \"more than one row returned by a subquery used as an expression\" once it runs.").
			WithHint("Use an aggregate without GROUP BY (max(x) rather than x), or LIMIT 1.")
	}
	right, err := decorrelate(sub)
	if err != nil {
		return nil, nil, err
	}
	nl := len(in.Columns())
	return &expr.ColRef{Idx: nl + 1, T: sq.T}, keyedJoin(LeftJoin, in, right, nil), nil
}

// singleRow reports whether plan n returns at most one row by its shape.
func singleRow(n Node) bool {
	switch x := n.(type) {
	case *Aggregate:
		return len(x.Group) == 0
	case *Limit:
		c, ok := x.Count.(*expr.Const)
		return ok && x.Offset == nil && !x.WithTies && !c.V.IsNull() && c.V.Int() <= 1
	case *Project, *Filter, *Sort:
		return singleRow(n.Inputs()[0])
	}
	return false
}

// notNull reports whether e, over n's columns, is never NULL: a column
// that traces back to a NOT NULL or primary key column of a table.
func notNull(n Node, e expr.Expr) bool {
	r, ok := e.(*expr.ColRef)
	if !ok {
		return false
	}
	switch x := n.(type) {
	case *Scan:
		c := x.Table.Columns
		return r.Idx < len(c) && (c[r.Idx].NotNull || isPKColumn(x.Table, r.Idx)) && x.Table.Kind == meta.KindTable
	case *Project:
		return notNull(x.Input, x.Exprs[r.Idx])
	case *Filter, *Sort, *Limit, *Distinct:
		return notNull(n.Inputs()[0], e)
	case *Join:
		nl := len(x.L.Columns())
		if r.Idx < nl {
			return x.Kind != RightJoin && x.Kind != FullJoin && notNull(x.L, e)
		}
		return (x.Kind == InnerJoin || x.Kind == RightJoin) && notNull(x.R, &expr.ColRef{Idx: r.Idx - nl})
	}
	return false
}
