package difftest

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Expr is a typed SQL expression: its text is Parts[0] Args[0] Parts[1]
// ... Args[n-1] Parts[n], or Parts[0] (Sub) Parts[1] for a subquery. The
// uniform shape lets the reducer replace any node by a simpler one of the
// same type without knowing what the node is.
type Expr struct {
	T    Type
	Kind string // what the node is ("+", "upper", "cast int4", "sum"...), for shapes and features
	// Parts is the text around the arguments (len(Args)+1 strings), or
	// the text of a leaf.
	Parts []string
	Args  []*Expr
	Sub   *Query // a subquery, between Parts[0] and Parts[1]
	// Leaf is set on columns, literals and NULLs.
	Leaf leafKind
	// Agg marks an aggregate call.
	Agg bool
}

// leafKind tells leaves apart, for normalized shapes.
type leafKind uint8

const (
	notLeaf leafKind = iota
	colLeaf
	litLeaf
	nullLeaf
)

// mk returns a node of type t whose text is template with its "$" holes
// filled by args: mk(t, "+", "($ + $)", a, b).
func mk(t Type, kind, template string, args ...*Expr) *Expr {
	parts := strings.Split(template, "$")
	if len(parts) != len(args)+1 {
		panic(fmt.Sprintf("difftest: template %q takes %d arguments, not %d", template, len(parts)-1, len(args)))
	}
	return &Expr{T: t, Kind: kind, Parts: parts, Args: args}
}

// call returns name(args...).
func call(t Type, name string, args ...*Expr) *Expr {
	tmpl := name + "(" + strings.TrimSuffix(strings.Repeat("$, ", len(args)), ", ") + ")"
	return mk(t, name, tmpl, args...)
}

// leaf returns a column, literal or NULL.
func leaf(t Type, k leafKind, text string) *Expr {
	kind := map[leafKind]string{colLeaf: "col", litLeaf: "lit", nullLeaf: "null"}[k]
	return &Expr{T: t, Kind: kind, Parts: []string{text}, Leaf: k}
}

// nullOf returns a NULL of type t.
func nullOf(t Type) *Expr { return leaf(t, nullLeaf, "CAST(NULL AS "+t.String()+")") }

// subquery returns (q) of type t.
func subquery(t Type, kind, open string, q *Query) *Expr {
	return &Expr{T: t, Kind: kind, Parts: []string{open, ")"}, Sub: q}
}

// Query is a SELECT or a set operation, with an optional ORDER BY (by
// output column ordinals), LIMIT and OFFSET.
type Query struct {
	Sel *Select // a simple SELECT; else SetOp over Left and Right
	// SetOp is "UNION", "UNION ALL", "INTERSECT", ...
	SetOp       string
	Left, Right *Query
	OrderBy     []Order
	Limit       int // -1: none
	Offset      int // -1: none
}

// Order is one ORDER BY key: an output column's ordinal (from 1).
type Order struct {
	Ordinal int
	Desc    bool
	Nulls   string // "", "NULLS FIRST" or "NULLS LAST"
}

// Select is one SELECT block.
type Select struct {
	Distinct bool
	Star     string // "*" or "alias.*": Items are then what it stands for
	Items    []Item
	From     *From // nil: no FROM
	Where    *Expr
	GroupBy  []*Expr
	Having   *Expr
}

// Item is one output expression with its alias ("" for none).
type Item struct {
	E     *Expr
	Alias string
}

// From is a FROM item: a relation, a derived table or a join.
type From struct {
	Rel   string // a table or view
	Sub   *Query // a derived table
	Alias string // of Rel or Sub
	// A join of L and R: Join is "JOIN", "LEFT JOIN", "RIGHT JOIN",
	// "FULL JOIN" or "CROSS JOIN"; at most one of On, Using, Natural.
	Join    string
	Natural bool
	L, R    *From
	On      *Expr
	Using   []string
}

// totalOrder reports whether the ORDER BY orders every output column, so
// that rows that tie are equal and the order is determined.
func (q *Query) totalOrder() bool {
	n := q.width()
	if n == 0 || len(q.OrderBy) == 0 {
		return false
	}
	seen := map[int]bool{}
	for _, o := range q.OrderBy {
		seen[o.Ordinal] = true
	}
	for i := 1; i <= n; i++ {
		if !seen[i] {
			return false
		}
	}
	return true
}

// width is the number of output columns.
func (q *Query) width() int {
	if q.Sel == nil {
		return q.Left.width()
	}
	return len(q.Sel.Items)
}

// printer renders the AST as SQL, or, normalized, as its shape: columns,
// literals, names and aliases replaced by their types or placeholders.
type printer struct {
	b    strings.Builder
	norm bool
}

// SQL returns the query's SQL text.
func (q *Query) SQL() string {
	var p printer
	p.query(q)
	return p.b.String()
}

// Shape returns the query with names and values abstracted away: two
// queries with one shape differ only in which columns and constants of a
// type they use.
func (q *Query) Shape() string {
	p := printer{norm: true}
	p.query(q)
	return p.b.String()
}

// SQL returns the expression's SQL text.
func (e *Expr) SQL() string {
	var p printer
	p.expr(e)
	return p.b.String()
}

// shape returns the expression with names and values abstracted.
func (e *Expr) shape() string {
	p := printer{norm: true}
	p.expr(e)
	return p.b.String()
}

func (p *printer) w(s ...string) {
	for _, x := range s {
		p.b.WriteString(x)
	}
}

func (p *printer) query(q *Query) {
	if q.Sel != nil {
		p.sel(q.Sel)
	} else {
		p.setArm(q.Left)
		p.w(" ", q.SetOp, " ")
		p.setArm(q.Right)
	}
	for i, o := range q.OrderBy {
		if i == 0 {
			p.w(" ORDER BY ")
		} else {
			p.w(", ")
		}
		p.w(strconv.Itoa(o.Ordinal))
		if o.Desc {
			p.w(" DESC")
		}
		if o.Nulls != "" {
			p.w(" ", o.Nulls)
		}
	}
	if q.Limit >= 0 {
		p.w(" LIMIT ", strconv.Itoa(q.Limit))
	}
	if q.Offset >= 0 {
		p.w(" OFFSET ", strconv.Itoa(q.Offset))
	}
}

// setArm renders one side of a set operation, in parentheses when it has
// clauses of its own.
func (p *printer) setArm(q *Query) {
	if q.Sel != nil && len(q.OrderBy) == 0 && q.Limit < 0 && q.Offset < 0 {
		p.query(q)
		return
	}
	p.w("(")
	p.query(q)
	p.w(")")
}

func (p *printer) sel(s *Select) {
	p.w("SELECT ")
	if s.Distinct {
		p.w("DISTINCT ")
	}
	switch {
	case s.Star != "" && p.norm:
		p.w("*")
	case s.Star != "":
		p.w(s.Star)
	default:
		for i, it := range s.Items {
			if i > 0 {
				p.w(", ")
			}
			p.expr(it.E)
			if it.Alias != "" && !p.norm {
				p.w(" AS ", it.Alias)
			}
		}
	}
	if s.From != nil {
		p.w(" FROM ")
		p.from(s.From)
	}
	if s.Where != nil {
		p.w(" WHERE ")
		p.expr(s.Where)
	}
	for i, g := range s.GroupBy {
		if i == 0 {
			p.w(" GROUP BY ")
		} else {
			p.w(", ")
		}
		p.expr(g)
	}
	if s.Having != nil {
		p.w(" HAVING ")
		p.expr(s.Having)
	}
}

func (p *printer) from(f *From) {
	switch {
	case f.Rel != "":
		if p.norm {
			p.w("T")
			return
		}
		p.w(f.Rel, " AS ", f.Alias)
	case f.Sub != nil:
		p.w("(")
		p.query(f.Sub)
		p.w(")")
		if !p.norm {
			p.w(" AS ", f.Alias)
		}
	default:
		p.w("(")
		p.from(f.L)
		p.w(" ")
		if f.Natural {
			p.w("NATURAL ")
		}
		p.w(f.Join, " ")
		p.from(f.R)
		if f.On != nil {
			p.w(" ON ")
			p.expr(f.On)
		}
		if len(f.Using) > 0 {
			if p.norm {
				p.w(" USING (", strconv.Itoa(len(f.Using)), ")")
			} else {
				p.w(" USING (", strings.Join(f.Using, ", "), ")")
			}
		}
		p.w(")")
	}
}

func (p *printer) expr(e *Expr) {
	if p.norm {
		switch e.Leaf {
		case colLeaf:
			p.w("c:", e.T.String())
			return
		case litLeaf:
			p.w("l:", e.T.String())
			return
		}
	}
	if e.Sub != nil {
		p.w(e.Parts[0])
		p.query(e.Sub)
		p.w(e.Parts[1])
		return
	}
	for i, part := range e.Parts {
		p.w(part)
		if i < len(e.Args) {
			p.expr(e.Args[i])
		}
	}
}

// features returns the sorted, distinct kinds of what q uses: operators,
// functions, casts, join kinds, clauses. A finding whose query has every
// feature of an already reduced finding's shape is likely the same
// difference.
func (q *Query) features() []string {
	set := map[string]bool{}
	q.walk(func(e *Expr) {
		if e.Leaf == notLeaf {
			set[e.Kind] = true
		}
	}, func(s *Select) {
		if s.Distinct {
			set["DISTINCT"] = true
		}
		if len(s.GroupBy) > 0 {
			set["GROUP BY"] = true
		}
		if s.Having != nil {
			set["HAVING"] = true
		}
	}, func(f *From) {
		switch {
		case f.Natural:
			set["NATURAL "+f.Join] = true
		case len(f.Using) > 0:
			set[f.Join+" USING"] = true
		case f.Join != "":
			set[f.Join] = true
		}
	}, func(q *Query) {
		if q.SetOp != "" {
			set[q.SetOp] = true
		}
		if q.Limit >= 0 || q.Offset >= 0 {
			set["LIMIT"] = true
		}
	})
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// walk calls the functions on every expression, SELECT block, FROM item
// and query in q, subqueries included (any may be nil).
func (q *Query) walk(fe func(*Expr), fs func(*Select), ff func(*From), fq func(*Query)) {
	var scoped func(*Select, []*From)
	if fs != nil {
		scoped = func(s *Select, _ []*From) { fs(s) }
	}
	q.walkIn(nil, fe, scoped, ff, fq)
}

// walkIn is walk with each SELECT's outers: the FROMs of the queries
// enclosing it (innermost last), whose columns its expressions may read.
// A subquery in an expression sees its SELECT's FROM; a derived table sees
// no sibling, only what its SELECT sees.
func (q *Query) walkIn(outers []*From, fe func(*Expr), fs func(*Select, []*From), ff func(*From), fq func(*Query)) {
	if fq != nil {
		fq(q)
	}
	if q.Sel == nil {
		q.Left.walkIn(outers, fe, fs, ff, fq)
		q.Right.walkIn(outers, fe, fs, ff, fq)
		return
	}
	s := q.Sel
	if fs != nil {
		fs(s, outers)
	}
	inner := append(slices.Clip(outers), s.From)
	var expr func(e *Expr)
	expr = func(e *Expr) {
		if e == nil {
			return
		}
		if fe != nil {
			fe(e)
		}
		for _, a := range e.Args {
			expr(a)
		}
		if e.Sub != nil {
			e.Sub.walkIn(inner, fe, fs, ff, fq)
		}
	}
	var from func(f *From)
	from = func(f *From) {
		if f == nil {
			return
		}
		if ff != nil {
			ff(f)
		}
		if f.Sub != nil {
			f.Sub.walkIn(outers, fe, fs, ff, fq)
		}
		from(f.L)
		from(f.R)
		expr(f.On)
	}
	for _, it := range s.Items {
		expr(it.E)
	}
	from(s.From)
	expr(s.Where)
	for _, g := range s.GroupBy {
		expr(g)
	}
	expr(s.Having)
}
