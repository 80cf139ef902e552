package difftest

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// relation is a table or view queries may read.
type relation struct {
	name string
	cols []column // names and types
}

// gen generates random SQL from one random source: each expression
// generator returns an expression of a requested type over a scope.
type gen struct {
	r    *rand.Rand
	rels []*relation
	// view restricts queries to what a materialized view may hold: no
	// subqueries in expressions, no ORDER BY without LIMIT, mostly UNION.
	view    bool
	names   int // names given out in the current query (aliases, item names)
	nesting int // how deep the current SELECT is nested in expressions
	// bad are values the servers read differently: never generated.
	bad map[Type]map[string]bool
}

// selMode is the kind of SELECT block.
type selMode uint8

const (
	modeAny     selMode = iota
	modePlain           // no aggregates
	modeGrouped         // GROUP BY
	modeGlobal          // aggregates without GROUP BY: one row
)

// selOpts says what SELECT block to build.
type selOpts struct {
	want  []Type   // the output column types; nil: any
	outer []column // columns it may correlate with
	mode  selMode
	// named gives every output column a distinct name (derived tables,
	// views).
	named bool
}

// topQuery returns a random query: a SELECT or a set operation, with a
// random ORDER BY/LIMIT/OFFSET. Queries for views name their columns and
// order only under a LIMIT.
func (g *gen) topQuery() *Query {
	g.names = 0
	o := selOpts{named: g.view}
	if g.view && g.r.IntN(4) == 0 {
		// Global aggregates, whose one row may be all NULL, for views
		// over views to join.
		o.mode = modeGlobal
	}
	q, _ := g.query(o, true)
	n := q.width()
	if n == 0 {
		return q
	}
	switch k := g.r.IntN(100); {
	case k < 35 && !g.view || k < 12:
		g.orderAll(q, n)
		if g.view || g.r.IntN(2) == 0 {
			q.Limit = g.r.IntN(6)
		}
		if !g.view && g.r.IntN(3) == 0 {
			q.Offset = g.r.IntN(4)
		}
	case k < 50 && !g.view && n > 1:
		// A partial order: the rows compare as a multiset.
		for _, i := range g.r.Perm(n)[:1+g.r.IntN(n-1)] {
			q.OrderBy = append(q.OrderBy, g.order(i+1))
		}
	}
	return q
}

// orderAll orders q by all its n columns in a random order, so the order
// is total.
func (g *gen) orderAll(q *Query, n int) {
	for _, i := range g.r.Perm(n) {
		q.OrderBy = append(q.OrderBy, g.order(i+1))
	}
}

func (g *gen) order(ordinal int) Order {
	o := Order{Ordinal: ordinal, Desc: g.r.IntN(2) == 0}
	if g.r.IntN(3) == 0 {
		o.Nulls = pick(g.r, []string{"NULLS FIRST", "NULLS LAST"})
	}
	return o
}

// query returns a SELECT block or, when setOps allows, sometimes a set
// operation over two, with its output columns.
func (g *gen) query(o selOpts, setOps bool) (*Query, []column) {
	if !setOps || g.r.IntN(100) >= 15 {
		return g.selectBlock(o)
	}
	left, cols := g.query(o, g.r.IntN(4) == 0)
	want := make([]Type, len(cols))
	for i, c := range cols {
		want[i] = c.t
	}
	right, _ := g.selectBlock(selOpts{want: want, outer: o.outer})
	ops := []string{"UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"}
	if g.view && g.r.IntN(10) > 0 {
		ops = ops[:2]
	}
	return &Query{SetOp: pick(g.r, ops), Left: left, Right: right, Limit: -1, Offset: -1}, cols
}

// selectBlock returns one SELECT block and its output columns.
func (g *gen) selectBlock(o selOpts) (*Query, []column) {
	g.nesting++
	defer func() { g.nesting-- }()
	sel := &Select{}
	var fs fromScope
	if o.outer != nil || g.r.IntN(25) > 0 {
		sel.From, fs = g.from(3 - g.nesting)
	}
	row := &scope{cols: fs.visible(), outer: o.outer, subqueries: !g.view && g.nesting < 2}
	if sel.From != nil && g.r.IntN(2) == 0 {
		sel.Where = g.expr(Bool, row, 2+g.r.IntN(2))
	}
	mode := o.mode
	if mode == modeAny {
		mode = []selMode{modePlain, modeGrouped, modeGlobal}[g.choose(55, 25, 20)]
	}
	items := row
	switch mode {
	case modeGrouped:
		var keys []column
		for range 1 + g.r.IntN(2) {
			if len(row.cols) > 0 && g.r.IntN(5) > 0 {
				c := pick(g.r, row.cols)
				sel.GroupBy = append(sel.GroupBy, leaf(c.t, colLeaf, c.ref))
				keys = append(keys, c)
				continue
			}
			t := g.anyType()
			e := g.expr(t, &scope{cols: row.cols}, 1)
			if e.Leaf == litLeaf {
				continue // a constant in GROUP BY is an ordinal or an error
			}
			sel.GroupBy = append(sel.GroupBy, e)
			keys = append(keys, column{ref: e.SQL(), t: t, bare: e.Leaf == colLeaf})
		}
		if len(keys) == 0 {
			mode = modeGlobal
			items = &scope{aggregates: true, agg: row.cols, outer: o.outer, subqueries: row.subqueries}
			break
		}
		items = &scope{cols: keys, aggregates: true, agg: row.cols, outer: o.outer, subqueries: row.subqueries}
	case modeGlobal:
		items = &scope{aggregates: true, agg: row.cols, outer: o.outer, subqueries: row.subqueries}
	}
	var out []column
	if mode == modePlain && o.want == nil && sel.From != nil && g.r.IntN(10) == 0 {
		out = g.star(sel, fs, o.named)
	}
	if out == nil {
		want := o.want
		if want == nil {
			for range 1 + g.r.IntN(3) {
				if len(row.cols) > 0 && g.r.IntN(5) < 3 {
					want = append(want, pick(g.r, row.cols).t)
				} else {
					want = append(want, g.anyType())
				}
			}
		}
		used := map[string]bool{}
		for _, t := range want {
			it := Item{E: g.expr(t, items, 1+g.r.IntN(3))}
			name := "?column?"
			if o.named {
				it.Alias = g.itemName(it.E, used)
				name = it.Alias
			}
			sel.Items = append(sel.Items, it)
			out = append(out, column{name: name, t: t})
		}
	}
	if mode != modePlain && g.r.IntN(10) < 3 {
		sel.Having = g.expr(Bool, items, 2)
	}
	sel.Distinct = g.r.IntN(7) == 0
	return &Query{Sel: sel, Limit: -1, Offset: -1}, out
}

// star makes sel a SELECT * (or alias.*) and returns its columns, or nil
// when named columns are needed and the names are not distinct.
func (g *gen) star(sel *Select, fs fromScope, named bool) []column {
	star, cols := "*", fs.out
	if len(fs.aliases) > 0 && g.r.IntN(2) == 0 {
		a := fs.aliases[g.r.IntN(len(fs.aliases))]
		star, cols = a.alias+".*", a.cols
	}
	seen := map[string]bool{}
	var items []Item
	for _, c := range cols {
		if named && seen[c.name] {
			return nil
		}
		seen[c.name] = true
		items = append(items, Item{E: leaf(c.t, colLeaf, c.ref)})
	}
	sel.Star, sel.Items = star, items
	return cols
}

// itemName names an output column: a plain column keeps its name unless
// taken, anything else gets a fresh one.
func (g *gen) itemName(e *Expr, used map[string]bool) string {
	name := ""
	if e.Leaf == colLeaf {
		name = e.Parts[0][strings.LastIndex(e.Parts[0], ".")+1:]
	}
	for !isIdent(name) || used[name] {
		name = g.fresh("x")
	}
	used[name] = true
	return name
}

// fresh returns a new name with prefix p, distinct within the query.
func (g *gen) fresh(p string) string {
	g.names++
	return p + strconv.Itoa(g.names)
}

// isIdent reports whether s is a lower-case SQL identifier.
func isIdent(s string) bool {
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// fromScope is what a FROM item makes visible.
type fromScope struct {
	quals []column // every column of every relation inside, qualified
	// out are the output columns in order (what * returns): merged USING
	// columns are referenced by their bare name.
	out     []column
	aliases []aliasCols // the relations and derived tables inside, for alias.*
}

// aliasCols is one aliased relation's columns.
type aliasCols struct {
	alias string
	cols  []column
}

// visible returns the columns expressions may reference: the qualified
// ones and the merged USING columns whose name is not ambiguous.
func (fs fromScope) visible() []column {
	out := slices.Clip(fs.quals)
	count := map[string]int{}
	for _, c := range fs.out {
		count[c.name]++
	}
	for _, c := range fs.out {
		if !strings.Contains(c.ref, ".") && count[c.name] == 1 {
			out = append(out, c)
		}
	}
	return out
}

// from returns a FROM item with at most depth levels of joins: a relation,
// a derived table (often an aggregate) or a join.
func (g *gen) from(depth int) (*From, fromScope) {
	switch g.choose(6, 2, 4*max(depth, 0)) {
	case 0:
		return g.relationFrom(pick(g.r, g.rels))
	case 1:
		mode := []selMode{modeAny, modeGrouped, modeGlobal}[g.choose(4, 2, 4)]
		q, items := g.query(selOpts{mode: mode, named: true}, true)
		if n := q.width(); n > 0 && g.r.IntN(8) == 0 {
			g.orderAll(q, n)
			q.Limit = g.r.IntN(4)
		}
		return g.derivedFrom(q, items)
	default:
		return g.join(depth)
	}
}

// relationFrom returns rel under a new alias.
func (g *gen) relationFrom(rel *relation) (*From, fromScope) {
	alias := g.fresh("r")
	var cols []column
	for _, c := range rel.cols {
		cols = append(cols, column{ref: alias + "." + c.name, name: c.name, t: c.t, bare: true})
	}
	return &From{Rel: rel.name, Alias: alias}, fromScope{quals: cols, out: cols, aliases: []aliasCols{{alias, cols}}}
}

// derivedFrom returns q, whose output columns are items, as a derived
// table under a new alias.
func (g *gen) derivedFrom(q *Query, items []column) (*From, fromScope) {
	alias := g.fresh("s")
	var cols []column
	for _, c := range items {
		cols = append(cols, column{ref: alias + "." + c.name, name: c.name, t: c.t, bare: true})
	}
	return &From{Sub: q, Alias: alias}, fromScope{quals: cols, out: cols, aliases: []aliasCols{{alias, cols}}}
}

// join returns a join of two FROM items: INNER, LEFT, RIGHT, FULL or
// CROSS, with ON, USING or NATURAL; often a self-join.
func (g *gen) join(depth int) (*From, fromScope) {
	l, ls := g.from(depth - 1)
	var r *From
	var rs fromScope
	i := slices.IndexFunc(g.rels, func(rel *relation) bool { return rel.name == l.Rel })
	switch self := g.r.IntN(4) == 0; {
	case self && i >= 0:
		r, rs = g.relationFrom(g.rels[i])
	case self && l.Sub != nil:
		// The same derived table again (say a global aggregate, whose one
		// row may be all NULL).
		r, rs = g.derivedFrom(cloner{}.query(l.Sub), ls.out)
	default:
		r, rs = g.from(depth - 1)
	}
	f := &From{Join: []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN"}[g.choose(30, 20, 10, 20, 8)], L: l, R: r}
	fs := fromScope{quals: append(slices.Clip(ls.quals), rs.quals...), aliases: append(slices.Clip(ls.aliases), rs.aliases...)}
	common, all := commonColumns(ls.out, rs.out)
	var merged []string
	if f.Join != "CROSS JOIN" {
		switch g.choose(10, 3*min(len(common), 1), 2*min(len(common), 1)*boolInt(all)) {
		case 0:
			f.On = g.joinCond(f.Join == "FULL JOIN", ls, rs)
		case 1:
			for _, i := range g.r.Perm(len(common))[:1+g.r.IntN(len(common))] {
				merged = append(merged, common[i])
			}
			f.Using = merged
		default:
			f.Natural, merged = true, common
		}
	}
	for _, name := range merged {
		i := slices.IndexFunc(ls.out, func(c column) bool { return c.name == name })
		fs.out = append(fs.out, column{ref: name, name: name, t: ls.out[i].t, bare: true})
	}
	for _, c := range append(slices.Clip(ls.out), rs.out...) {
		if !slices.Contains(merged, c.name) {
			fs.out = append(fs.out, c)
		}
	}
	return f, fs
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// commonColumns returns the names both sides have once each with the same
// type (what USING may name), and whether those are all the names they
// share (so NATURAL is valid).
func commonColumns(l, r []column) (common []string, all bool) {
	count := func(cols []column, name string) (n int, t Type) {
		for _, c := range cols {
			if c.name == name {
				n, t = n+1, c.t
			}
		}
		return n, t
	}
	all = true
	seen := map[string]bool{}
	for _, c := range l {
		if seen[c.name] {
			continue
		}
		seen[c.name] = true
		nl, tl := count(l, c.name)
		nr, tr := count(r, c.name)
		switch {
		case nr == 0:
		case nl == 1 && nr == 1 && tl == tr:
			common = append(common, c.name)
		default:
			all = false
		}
	}
	return common, all
}

// joinCond returns an ON condition over both sides: mostly an equality of
// two columns (a FULL JOIN needs one: PostgreSQL only runs full joins as
// merge or hash joins), sometimes with more, sometimes anything.
func (g *gen) joinCond(full bool, ls, rs fromScope) *Expr {
	sc := &scope{cols: append(slices.Clip(ls.quals), rs.quals...)}
	type pair struct{ l, r column }
	var pairs []pair
	for _, a := range ls.quals {
		for _, b := range rs.quals {
			if a.t.family() == b.t.family() {
				pairs = append(pairs, pair{a, b})
			}
		}
	}
	if !full && (len(pairs) == 0 || g.r.IntN(4) == 0) {
		return g.expr(Bool, sc, 2)
	}
	var eq *Expr
	if len(pairs) > 0 {
		p := pick(g.r, pairs)
		eq = mk(Bool, "=", "($ = $)", leaf(p.l.t, colLeaf, p.l.ref), leaf(p.r.t, colLeaf, p.r.ref))
	} else {
		l, r := pick(g.r, ls.quals), pick(g.r, rs.quals)
		eq = mk(Bool, "=", "(($)::text = ($)::text)", leaf(l.t, colLeaf, l.ref), leaf(r.t, colLeaf, r.ref))
	}
	if g.r.IntN(3) == 0 {
		return mk(Bool, "AND", "($ AND $)", eq, g.expr(Bool, sc, 2))
	}
	return eq
}
