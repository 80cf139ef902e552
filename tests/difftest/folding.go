package difftest

import (
	"context"
	"slices"
)

// Which subexpressions a server evaluates is its own business: PostgreSQL
// evaluates constant subexpressions when it plans (so their errors surface
// even where no row would evaluate them: an empty table, an untaken CASE
// branch, a short-circuited AND; its manual says so in 4.2.14, Expression
// Evaluation Rules), simplifies some away unevaluated (COALESCE(1, 1/0)),
// and never computes a derived table's columns the query does not use.
// explain tells these differences in evaluation apart from differences
// in values, for a data error (class 22) on one side only:
//
//   - PostgreSQL failed on a constant subexpression that streamdb fails
//     on too when it evaluates it alone: only the time of evaluation
//     differs. explain returns nil (and counts it).
//   - streamdb failed on a constant subexpression that PostgreSQL fails
//     on too when it evaluates it alone, or on a derived table's column
//     the query does not use: streamdb evaluated what PostgreSQL never
//     does, and explain tags the difference so that all of them share one
//     signature.
//   - One server answers a constant subexpression the other fails on:
//     the difference is that constant's, and explain returns it with a
//     check of just the constant.
//
// Otherwise it returns d unchanged.
func (ru *Runner) explain(ctx context.Context, c check, d *diff) (*diff, *check) {
	if d == nil || d.kind != KindErrorVsRows || c.view != nil {
		return d, nil
	}
	failed := d.pg.Err
	if failed == nil {
		failed = d.sdb.Err
	}
	if failed.Code[:2] != "22" {
		return d, nil
	}
	for _, e := range constants(c) {
		cq := check{query: &Query{Sel: &Select{Items: []Item{{E: e}}}, Limit: -1, Offset: -1}}
		pg, sdb := ru.both(ctx, cq.query.SQL())
		if (d.pg.Err == nil || pg.Err == nil || pg.Err.Code != failed.Code) && (d.sdb.Err == nil || sdb.Err == nil || sdb.Err.Code != failed.Code) {
			continue // not the constant that failed
		}
		switch cd := compare(pg, sdb, false, false); {
		case cd != nil:
			return cd, &cq
		case d.pg.Err != nil:
			ru.Stats.Folded++
			return nil, nil
		}
		return &diff{kind: d.kind, pg: d.pg, sdb: d.sdb, tag: tagConstant,
			detail: "streamdb evaluates a constant subexpression PostgreSQL never evaluates here (which fails alone on both): " + e.SQL()}, nil
	}
	if d.sdb.Err == nil || c.query == nil {
		return d, nil
	}
	if pq := pruned(c.query); pq != nil {
		pg, sdb := ru.both(ctx, pq.SQL())
		if compare(pg, sdb, pq.totalOrder(), false) == nil {
			return &diff{kind: d.kind, pg: d.pg, sdb: d.sdb, tag: tagUnused,
				detail: "streamdb evaluates derived-table columns the query does not use, which PostgreSQL drops; with them replaced by NULL both agree: " + pq.SQL()}, nil
		}
	}
	return d, nil
}

// The tags of differences explain recognizes.
const (
	tagConstant = "streamdb evaluates a constant PostgreSQL does not"
	tagUnused   = "streamdb evaluates unused derived-table columns"
)

// constants returns the subexpressions of c's statement that read no
// column, aggregate or subquery, smallest first.
func constants(c check) []*Expr {
	var all []*Expr
	collect := func(e *Expr) {
		if e.Leaf != nullLeaf && constant(e) {
			all = append(all, e)
		}
	}
	switch {
	case c.query != nil:
		c.query.walk(collect, nil, nil, nil)
	case c.dml != nil:
		for _, e := range append(slices.Clone(c.dml.Values), c.dml.Where) {
			if e != nil {
				walkExpr(e, collect)
			}
		}
	}
	slices.SortStableFunc(all, func(a, b *Expr) int { return len(a.SQL()) - len(b.SQL()) })
	return slices.CompactFunc(all, func(a, b *Expr) bool { return a.SQL() == b.SQL() })
}

// constant reports whether e reads no column, aggregate or subquery.
func constant(e *Expr) bool {
	if e.Leaf == colLeaf || e.Agg || e.Sub != nil {
		return false
	}
	for _, a := range e.Args {
		if !constant(a) {
			return false
		}
	}
	return true
}

// walkExpr calls f on e and its arguments (not subqueries).
func walkExpr(e *Expr, f func(*Expr)) {
	f(e)
	for _, a := range e.Args {
		walkExpr(a, f)
	}
}

// pruned returns a copy of q whose derived tables compute NULL for the
// columns nothing references, as PostgreSQL's planner drops them (only
// where that keeps the rows: no DISTINCT, no set operation, no
// USING/NATURAL join over them, no * reading them), or nil if there are
// none.
func pruned(q *Query) *Query {
	q = cloner{}.query(q)
	changed := false
	for pruneOnce(q) {
		changed = true
	}
	if !changed {
		return nil
	}
	return q
}

// pruneOnce replaces the unreferenced columns of q's derived tables by
// NULL and reports whether it replaced any (which may leave more columns
// unreferenced).
func pruneOnce(q *Query) bool {
	refs := map[string]bool{}
	var derived []*From
	blocked := map[*From]bool{}
	q.walk(func(e *Expr) {
		if e.Leaf == colLeaf {
			refs[e.Parts[0]] = true
		}
	}, func(s *Select) {
		if s.Star != "" {
			refs[s.Star] = true
		}
	}, func(f *From) {
		if f.Sub != nil {
			derived = append(derived, f)
		}
		if f.Natural || len(f.Using) > 0 {
			blocked[f.L], blocked[f.R] = true, true
		}
	}, nil)
	changed := false
	for _, f := range derived {
		s := f.Sub.Sel
		if blocked[f] || refs["*"] || refs[f.Alias+".*"] || s == nil || s.Distinct || s.Star != "" {
			continue
		}
		for i, it := range s.Items {
			if !refs[f.Alias+"."+it.Alias] && it.E.Leaf != nullLeaf {
				s.Items[i].E = nullOf(it.E.T)
				changed = true
			}
		}
	}
	return changed
}
