package difftest

import (
	"cmp"
	"context"
	"slices"
	"strings"
)

// Which subexpressions a server evaluates, and when, is its own business:
// PostgreSQL's manual leaves the order of evaluation undefined (4.2.14,
// Expression Evaluation Rules). PostgreSQL evaluates constant
// subexpressions when it plans (so their errors surface where no row
// would evaluate them: an empty table, an untaken CASE branch), folds a
// strict function with a NULL argument to NULL without evaluating the
// others, skips plans under a constant false filter, and never computes a
// derived table's columns the query does not use. explain tells such
// differences in evaluation apart from differences in values, for a
// run-time error on one side only (see runtimeError). It evaluates the statement's
// subexpressions one at a time (constants alone, the others over their
// SELECT's FROM; constants PostgreSQL gets to by settling CASEs too),
// smallest first, until one fails on the failing side with the same
// SQLSTATE:
//
//   - If it fails on the other side too, both servers fail on that
//     expression when made to evaluate it: they differ only in whether
//     they evaluate it. When PostgreSQL is the one that evaluated it,
//     explain returns nil (and counts it: streamdb is lenient where its
//     answer does not need the value); else it tags the difference as of
//     lower severity.
//   - If the other side answers it over tables only (no derived tables,
//     in its FROM or its subqueries', which may differ themselves), the
//     difference is that expression's:
//     explain returns it with the check of that expression alone.
//
// When no subexpression fails alone, a query whose derived tables'
// unused columns, replaced by NULL, make the difference vanish is tagged
// too (streamdb computes columns PostgreSQL drops). Otherwise explain
// returns d unchanged.
func (ru *Runner) explain(ctx context.Context, c check, d *diff) (*diff, *check) {
	if d == nil || d.kind != KindErrorVsRows || c.view != nil {
		return d, nil
	}
	pgFailed := d.pg.Err != nil
	failed := d.sdb.Err
	if pgFailed {
		failed = d.pg.Err
	}
	if !runtimeError(failed) {
		return d, nil
	}
	// A DML statement's probes read its table only where both servers'
	// tables are as before it: when streamdb failed, or changed no row.
	tables := !pgFailed || unchanged(d.sdb)
	for _, pq := range probes(c, failed.Code, tables) {
		pg, sdb := ru.probe(ctx, pq.SQL())
		f, o := sdb, pg
		if pgFailed {
			f, o = pg, sdb
		}
		if f.Err == nil || f.Err.Code != failed.Code || !ru.fromAnswers(ctx, pq.Sel.From) {
			continue
		}
		if o.Err == nil || o.Err.Code[:2] != failed.Code[:2] {
			if hasDerived(pq) {
				continue // the difference may be the derived tables'
			}
			if pd := compare(pg, sdb, false, false); pd != nil {
				return pd, &check{query: pq}
			}
		}
		if pgFailed {
			ru.Stats.Skipped++
			return nil, nil
		}
		return &diff{kind: d.kind, pg: d.pg, sdb: d.sdb, tag: tagEvaluates, low: true,
			detail: "both fail on this subexpression when made to evaluate it; PostgreSQL does not evaluate it here: " + pq.SQL()}, nil
	}
	if pgFailed || c.query == nil {
		return d, nil
	}
	if pq := pruned(c.query); pq != nil {
		pg, sdb := ru.both(ctx, pq.SQL())
		if compare(pg, sdb, pq.totalOrder(), false) == nil {
			return &diff{kind: d.kind, pg: d.pg, sdb: d.sdb, tag: tagUnused, low: true,
				detail: "streamdb computes derived-table columns the query does not use, which PostgreSQL drops; with them replaced by NULL both agree: " + pq.SQL()}, nil
		}
	}
	return d, nil
}

// fromAnswers reports whether a probe's FROM, when it joins with
// conditions of its own, gives rows on both servers: else it, not the
// probed expression, may be what fails.
func (ru *Runner) fromAnswers(ctx context.Context, f *From) bool {
	if !joinsOn(f) {
		return true
	}
	pg, sdb := ru.probe(ctx, (&Query{Sel: &Select{Items: []Item{{E: nullOf(Bool)}}, From: f}, Limit: -1, Offset: -1}).SQL())
	return pg.Err == nil && sdb.Err == nil && pg.Lost == "" && sdb.Lost == ""
}

// joinsOn reports whether f holds a join with an ON condition.
func joinsOn(f *From) bool {
	return f != nil && (f.On != nil || joinsOn(f.L) || joinsOn(f.R))
}

// unchanged reports whether a DML statement's outcome says it changed no
// row (INSERT 0 0, UPDATE 0, DELETE 0).
func unchanged(o Outcome) bool {
	return o.Err == nil && o.Lost == "" && strings.HasSuffix(o.Tag, " 0")
}

// The tags of differences explain recognizes.
const (
	tagEvaluates = "streamdb evaluates an expression PostgreSQL does not evaluate here"
	tagUnused    = "streamdb computes unused derived-table columns"
)

// probe runs a probe on both servers, once per state of the tables: the
// reducer asks for the same probes again and again.
func (ru *Runner) probe(ctx context.Context, sql string) (pg, sdb Outcome) {
	if o, ok := ru.probed[sql]; ok {
		return o[0], o[1]
	}
	pg, sdb = ru.both(ctx, sql)
	ru.probed[sql] = [2]Outcome{pg, sdb}
	return pg, sdb
}

// maxProbes bounds the subexpressions explain evaluates alone.
const maxProbes = 100

// probes returns queries that evaluate c's subexpressions one at a time,
// those whose operation may raise code first, then constants, then the
// smallest, over the inputs they read: a constant alone (SELECT e),
// any other over the relations and derived tables of its SELECT, or of
// the queries enclosing it, whose columns it reads (cross joined), or
// over its DML statement's table. Subqueries are left out (an
// uncorrelated scalar one is probed alone), and aggregates are probed
// over the groups of their SELECT.
func probes(c check, code string, tables bool) []*Query {
	var all []*Query
	switch {
	case c.query != nil:
		c.query.walkIn(nil, nil, func(s *Select, outers []*From) {
			roots := []*Expr{s.Where, s.Having}
			for _, it := range s.Items {
				roots = append(roots, it.E)
			}
			roots = append(roots, s.GroupBy...)
			var joins func(f *From)
			joins = func(f *From) {
				if f != nil && f.Join != "" {
					roots = append(roots, f.On)
					joins(f.L)
					joins(f.R)
				}
			}
			joins(s.From)
			for _, r := range roots {
				if r != nil {
					walkExpr(r, func(e *Expr) {
						// A grouping key is written as a column of its
						// text: probe the expression it stands for.
						e = expandKeys(e, s.GroupBy)
						inlined, pulled := pulledUp(e, s.From)
						if f, settled := caseFolded(inlined); (pulled || settled) && f.Leaf == notLeaf && !holds(f, readsRows) {
							// Constant once PostgreSQL pulled up derived
							// tables and settled CASEs.
							all = append(all, &Query{Sel: &Select{Items: []Item{{E: f}}}, Limit: -1, Offset: -1})
						}
						// As PostgreSQL pushes a condition down into
						// a derived table (each arm of a set operation).
						all = append(all, pushedDown(e, s.From)...)
						switch froms, ok := inputs(e, s.From, outers...); {
						case e.Kind == "scalar subquery":
							// Alone, when it is not correlated.
							all = append(all, &Query{Sel: &Select{Items: []Item{{E: e}}}, Limit: -1, Offset: -1})
						case !ok || e.Leaf == nullLeaf || e.Leaf == colLeaf || hasSubquery(e):
						case hasAggregate(e):
							// Over the groups it is computed on.
							all = append(all, &Query{Sel: &Select{Items: []Item{{E: e}}, From: s.From, Where: s.Where, GroupBy: s.GroupBy}, Limit: -1, Offset: -1})
						default:
							for _, from := range froms {
								all = append(all, &Query{Sel: &Select{Items: []Item{{E: e}}, From: from}, Limit: -1, Offset: -1})
							}
						}
					})
				}
			}
		}, nil, nil)
	case c.dml != nil:
		// Over the table as it was: PostgreSQL rolled the statement back
		// (see run); streamdb's is as it was when streamdb failed or
		// changed no row (tables), else only constants tell.
		table := &From{Rel: c.dml.Table.Name, Alias: c.dml.Table.Name}
		for _, r := range append(slices.Clone(c.dml.Values), c.dml.Where) {
			if r != nil {
				walkExpr(r, func(e *Expr) {
					reads := holds(e, func(x *Expr) bool { return x.Leaf == colLeaf })
					if e.Leaf != nullLeaf && e.Leaf != colLeaf && !hasSubquery(e) && (tables || !reads) {
						q := &Query{Sel: &Select{Items: []Item{{E: e}}}, Limit: -1, Offset: -1}
						if reads {
							q.Sel.From = table
						}
						all = append(all, q)
					}
				})
			}
		}
	}
	// The operations that raise code first, then constants (PostgreSQL
	// folds them when it plans), then the smallest.
	slices.SortStableFunc(all, func(a, b *Query) int {
		if ra, rb := raises(a.Sel.Items[0].E, code), raises(b.Sel.Items[0].E, code); ra != rb {
			return boolInt(rb) - boolInt(ra)
		}
		if ca, cb := a.Sel.From == nil, b.Sel.From == nil; ca != cb {
			return boolInt(cb) - boolInt(ca)
		}
		return len(a.Sel.Items[0].E.SQL()) - len(b.Sel.Items[0].E.SQL())
	})
	var out []*Query
	seen := map[string]bool{}
	for _, q := range all {
		if sql := q.SQL(); !seen[sql] && len(out) < maxProbes {
			seen[sql] = true
			out = append(out, q)
		}
	}
	return out
}

// raisers are, by SQLSTATE, the kinds of the nodes that raise it.
var raisers = map[string][]string{
	"21000": {"scalar subquery"},
	"22003": {"+", "-", "*", "/", "neg", "abs", "cast", "sum", "avg", "round", "trunc"},
	"22007": {"cast"},
	"22008": {"date", "timestamp", "interval", "ts-ts", "age", "extract", "date_part", "cast", "avg", "sum"},
	"22011": {"substr"},
	"22012": {"/", "%"},
	"2201F": {"sqrt"},
	"22P02": {"cast"},
	"0A000": {"cast"},
}

// raises reports whether e's own operation may raise SQLSTATE code.
func raises(e *Expr, code string) bool {
	return slices.ContainsFunc(raisers[code], func(k string) bool { return strings.Contains(e.Kind, k) })
}

// inputs returns the FROMs that e reads from, within its SELECT's FROM
// from and those of the queries enclosing it (outers): the relations and
// derived tables whose columns it reads, cross joined (nil for a
// constant), or from itself when e reads a merged USING column; when e
// reads a relation under an outer join, from itself too, whose
// NULL-extended rows e sees (PostgreSQL may evaluate e over the relation
// alone, below a join it reduced to an inner one, or over the join). It
// reports false when e reads a column it cannot place.
func inputs(e *Expr, from *From, outers ...*From) ([]*From, bool) {
	leaves := map[string]*From{}
	outer := map[*From]bool{}
	var enclosing func(f *From)
	enclosing = func(f *From) {
		switch {
		case f == nil:
		case f.Join != "":
			enclosing(f.L)
			enclosing(f.R)
		default:
			leaves[f.Alias] = f
		}
	}
	for _, o := range outers {
		enclosing(o) // the inner ones, later, hide the outer ones
	}
	var collect func(f *From, underOuter bool)
	collect = func(f *From, underOuter bool) {
		switch {
		case f == nil:
		case f.Join != "":
			o := underOuter || f.Join == "LEFT JOIN" || f.Join == "RIGHT JOIN" || f.Join == "FULL JOIN"
			collect(f.L, o)
			collect(f.R, o)
		default:
			leaves[f.Alias] = f
			outer[f] = underOuter
		}
	}
	collect(from, false)
	var used []*From
	ok, whole, underOuter := true, false, false
	walkExpr(e, func(x *Expr) {
		if x.Leaf != colLeaf {
			return
		}
		alias, _, qualified := strings.Cut(x.Parts[0], ".")
		switch f := leaves[alias]; {
		case !qualified:
			whole = true
		case f == nil:
			ok = false
		case !slices.Contains(used, f):
			used = append(used, f)
			underOuter = underOuter || outer[f]
		}
	})
	switch {
	case !ok:
		return nil, false
	case whole:
		return []*From{from}, true
	case len(used) == 0:
		return []*From{nil}, true
	}
	out := used[0]
	for _, f := range used[1:] {
		out = &From{Join: "CROSS JOIN", L: out, R: f}
	}
	if underOuter {
		return []*From{out, from}, true
	}
	return []*From{out}, true
}

// caseFolded returns e with each CASE that PostgreSQL's planner settles
// folded away, and whether there was one: eval_const_expressions drops
// the arms whose condition is a constant false or NULL, and a CASE whose
// first remaining condition is a constant true is that arm's result (one
// with no arm left, its ELSE), so that what is left may be a constant it
// evaluates when it plans.
func caseFolded(e *Expr) (*Expr, bool) {
	changed := false
	args := make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		var c bool
		args[i], c = caseFolded(a)
		changed = changed || c
	}
	if e.Kind == "case" {
		arms, els := args, nullOf(e.T)
		if len(args)%2 == 1 {
			arms, els = args[:len(args)-1], args[len(args)-1]
		}
		settled := true
		for i := 0; i+1 < len(arms) && settled; i += 2 {
			switch cond := arms[i]; {
			case cond.Leaf == nullLeaf || cond.Leaf == litLeaf && cond.Parts[0] == "false":
			case cond.Leaf == litLeaf && cond.Parts[0] == "true":
				return arms[i+1], true
			default:
				settled = false
			}
		}
		if settled {
			return els, true
		}
	}
	if !changed {
		return e, false
	}
	c := *e
	c.Args = args
	return &c, true
}

// pulledUp returns e with each column of a derived table in from that is
// a constant there replaced by that constant, and whether there was one:
// PostgreSQL pulls a simple derived table up into the query that reads
// it, and pushes a condition on a grouped or DISTINCT one's columns down
// into it (not past a set operation, LIMIT or OFFSET), so that what is
// left may be a constant it evaluates when it plans.
func pulledUp(e *Expr, from *From) (*Expr, bool) {
	consts := map[string]*Expr{}
	var collect func(f *From)
	collect = func(f *From) {
		switch {
		case f == nil:
		case f.Join == "JOIN" || f.Join == "CROSS JOIN":
			collect(f.L)
			collect(f.R)
		case f.Join != "":
			// Under an outer join a pulled-up constant goes NULL with
			// its side: PostgreSQL keeps it apart.
		case f.Sub != nil && f.Sub.Sel != nil && f.Sub.Limit < 0 && f.Sub.Offset < 0 && f.Sub.Sel.Star == "":
			s := f.Sub.Sel
			for _, it := range s.Items {
				if it.Alias != "" && it.E.Leaf != nullLeaf && !holds(it.E, readsRows) {
					consts[f.Alias+"."+it.Alias] = it.E
				}
			}
		}
	}
	collect(from)
	if len(consts) == 0 {
		return e, false
	}
	r, _ := substitute(e, func(col *Expr) (*Expr, bool) { return cmp.Or(consts[col.Parts[0]], col), true })
	return r, r != e
}

// substitute returns e with each column replaced by what by returns for
// it (the column itself keeps it), sharing every unchanged part of e; it
// fails if by refuses a column.
func substitute(e *Expr, by func(col *Expr) (*Expr, bool)) (*Expr, bool) {
	if e.Leaf == colLeaf {
		return by(e)
	}
	var args []*Expr
	for i, a := range e.Args {
		r, ok := substitute(a, by)
		if !ok {
			return nil, false
		}
		if r != a && args == nil {
			args = slices.Clone(e.Args)
		}
		if args != nil {
			args[i] = r
		}
	}
	if args == nil {
		return e, true
	}
	c := *e
	c.Args = args
	return &c, true
}

// expandKeys returns e with each column that stands for a grouping key
// of keys that is an expression (the generator writes such a key in the
// select list as a column of its text) replaced by that expression.
func expandKeys(e *Expr, keys []*Expr) *Expr {
	byText := map[string]*Expr{}
	for _, k := range keys {
		if k.Leaf == notLeaf {
			byText[k.SQL()] = k
		}
	}
	if len(byText) == 0 {
		return e
	}
	r, _ := substitute(e, func(col *Expr) (*Expr, bool) { return cmp.Or(byText[col.Parts[0]], col), true })
	return r
}

// pushedDown returns probes of e over the SELECTs of the derived table
// in from whose columns it reads (each arm of a set operation), with the
// columns replaced by what those SELECTs compute: PostgreSQL pulls a
// simple derived table up, and pushes a condition on its columns down
// into a set operation's arms, where it may run on rows the query as
// written never gets to. Only for an expression reading one derived
// table, not under an outer join, whose SELECTs do not group, and not past
// a LIMIT or OFFSET.
func pushedDown(e *Expr, from *From) []*Query {
	if e.Leaf != notLeaf || hasSubquery(e) || hasAggregate(e) {
		return nil
	}
	derived := map[string]*From{}
	var collect func(f *From)
	collect = func(f *From) {
		switch {
		case f == nil:
		case f.Join == "JOIN" || f.Join == "CROSS JOIN":
			collect(f.L)
			collect(f.R)
		case f.Join == "" && f.Sub != nil:
			derived[f.Alias] = f
		}
	}
	collect(from)
	var target *From
	ok := true
	walkExpr(e, func(x *Expr) {
		if x.Leaf != colLeaf {
			return
		}
		alias, _, _ := strings.Cut(x.Parts[0], ".")
		f := derived[alias]
		if f == nil || target != nil && target != f {
			ok = false
			return
		}
		target = f
	})
	if !ok || target == nil {
		return nil
	}
	var arms []*Select
	var leaves func(q *Query) bool
	leaves = func(q *Query) bool {
		if q.Limit >= 0 || q.Offset >= 0 {
			return false
		}
		if q.Sel == nil {
			return leaves(q.Left) && leaves(q.Right)
		}
		if len(q.Sel.GroupBy) > 0 || q.Sel.Having != nil {
			return false
		}
		arms = append(arms, q.Sel)
		return true
	}
	if !leaves(target.Sub) || len(arms) == 0 {
		return nil
	}
	pos := map[string]int{}
	for i, it := range arms[0].Items {
		pos[it.Alias] = i
	}
	var out []*Query
	for _, arm := range arms {
		pe, ok := substitute(e, func(x *Expr) (*Expr, bool) {
			_, col, _ := strings.Cut(x.Parts[0], ".")
			i, found := pos[col]
			if !found || i >= len(arm.Items) || holds(arm.Items[i].E, func(y *Expr) bool { return y.Agg || y.Sub != nil }) {
				return nil, false
			}
			return arm.Items[i].E, true
		})
		if !ok {
			continue
		}
		froms, ok := inputs(pe, arm.From)
		if !ok {
			continue
		}
		for _, f := range froms {
			out = append(out, &Query{Sel: &Select{Items: []Item{{E: pe}}, From: f}, Limit: -1, Offset: -1})
		}
	}
	return out
}

// readsRows reports whether node e reads a row: a column, a subquery or
// an aggregate.
func readsRows(e *Expr) bool { return e.Leaf == colLeaf || e.Sub != nil || e.Agg }

// hasDerived reports whether q reads a derived table, in its FROM or in
// a subquery's (a scalar subquery probed alone, say).
func hasDerived(q *Query) bool {
	found := false
	q.walk(nil, nil, func(f *From) { found = found || f.Sub != nil }, nil)
	return found
}

// hasSubquery reports whether e holds a subquery; hasAggregate whether it
// holds an aggregate.
func hasSubquery(e *Expr) bool  { return holds(e, func(x *Expr) bool { return x.Sub != nil }) }
func hasAggregate(e *Expr) bool { return holds(e, func(x *Expr) bool { return x.Agg }) }

// holds reports whether a node of e satisfies f.
func holds(e *Expr, f func(*Expr) bool) bool {
	found := false
	walkExpr(e, func(x *Expr) { found = found || f(x) })
	return found
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
