package difftest

import (
	"slices"
	"strconv"
	"strings"
)

// column is something an expression may reference.
type column struct {
	ref  string // its SQL: "r1.c0", a merged USING column "c0", or a grouped expression's text
	name string // its name as an output column
	t    Type
	// bare is set on plain column references, which correlated
	// subqueries may use (a grouped expression may not be split up).
	bare bool
}

// scope is what an expression may use.
type scope struct {
	cols []column // row-level references
	// aggregates allows aggregates, whose arguments range over agg (a
	// grouped or global aggregate query's input rows).
	aggregates bool
	agg        []column
	outer      []column // columns of enclosing queries (correlation)
	// subqueries allows scalar, IN, EXISTS and ANY subqueries.
	subqueries bool
}

// production is one way to build an expression: ok says whether it can
// build one of type t in scope sc, build builds it with depth d left.
type production struct {
	weight int
	ok     func(t Type, sc *scope) bool
	build  func(g *gen, t Type, sc *scope, d int) *Expr
}

// expr returns a random expression of type t over sc, nested at most d
// deep.
func (g *gen) expr(t Type, sc *scope, d int) *Expr {
	if d <= 0 || g.r.IntN(3) == 0 {
		return g.leaf(t, sc)
	}
	total := 0
	for i := range productions {
		if p := &productions[i]; p.ok(t, sc) {
			total += p.weight
		}
	}
	n := g.r.IntN(total)
	for i := range productions {
		if p := &productions[i]; p.ok(t, sc) {
			if n -= p.weight; n < 0 {
				return p.build(g, t, sc, d-1)
			}
		}
	}
	panic("unreachable")
}

// leaf returns a column, an aggregate (where allowed), a literal or a
// NULL of type t. Without a column of type t, it often derives one from a
// column of another type: a cast, or a comparison for a bool.
func (g *gen) leaf(t Type, sc *scope) *Expr {
	var own, outer, other []column
	for _, c := range sc.cols {
		switch {
		case c.t == t:
			own = append(own, c)
		case t == Bool || slices.Contains(castSources[t], c.t) && (c.t != Text || t == Text):
			other = append(other, c)
		}
	}
	for _, c := range sc.outer {
		if c.t == t {
			outer = append(outer, c)
		}
	}
	weights := []int{8 * min(len(own), 1), 2 * min(len(outer), 1), 0, 2, 1, 4 * min(len(other), 1)}
	if sc.aggregates {
		weights[2] = 6
	}
	switch g.choose(weights...) {
	case 0:
		return leaf(t, colLeaf, pick(g.r, own).ref)
	case 1:
		return leaf(t, colLeaf, pick(g.r, outer).ref)
	case 2:
		return g.aggregate(t, sc, 1)
	case 3:
		return g.literal(t)
	case 4:
		return nullOf(t)
	}
	c := pick(g.r, other)
	col := leaf(c.t, colLeaf, c.ref)
	if t == Bool {
		op := pick(g.r, []string{"=", "<>", "<", ">="})
		return mk(t, op, "($ "+op+" $)", col, g.literal(c.t))
	}
	return mk(t, "cast "+c.t.String()+" to "+t.String(), "CAST($ AS "+t.String()+")", col)
}

// literal returns a constant of type t.
func (g *gen) literal(t Type) *Expr {
	v, _ := g.value(t, false)
	return leaf(t, litLeaf, literalSQL(t, v))
}

// choose returns an index into weights, picked in proportion to them.
func (g *gen) choose(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range weights {
		if n -= w; n < 0 {
			return i
		}
	}
	panic("choose: no positive weight")
}

// Conditions of productions.
func always(Type, *scope) bool     { return true }
func number(t Type, _ *scope) bool { return t.isNumber() }
func is(ts ...Type) func(Type, *scope) bool {
	return func(t Type, _ *scope) bool {
		for _, x := range ts {
			if t == x {
				return true
			}
		}
		return false
	}
}

// productions are the ways to build expressions, by result type. They
// are set in init: they call expr, which reads them.
var productions []production

func init() {
	productions = []production{
		// Arithmetic: operand types whose promotion is t.
		{12, number, func(g *gen, t Type, sc *scope, d int) *Expr {
			a, b := g.operandTypes(t)
			ops := []string{"+", "-", "*", "/", "%"}
			if t == Float8 {
				ops = ops[:4]
			}
			op := pick(g.r, ops)
			return mk(t, op, "($ "+op+" $)", g.expr(a, sc, d), g.expr(b, sc, d))
		}},
		{2, is(Int2, Int4, Int8, Numeric, Float8, Interval), func(g *gen, t Type, sc *scope, d int) *Expr {
			x := g.expr(t, sc, d)
			if x.Leaf == litLeaf {
				// PostgreSQL folds a minus into a number literal and types
				// the result anew: - (-2147483648) is an int8.
				x = mk(t, "cast", "CAST($ AS "+t.String()+")", x)
			}
			return mk(t, "neg", "(- $)", x)
		}},
		{3, number, func(g *gen, t Type, sc *scope, d int) *Expr {
			return call(t, "abs", g.expr(t, sc, d))
		}},
		{3, is(Numeric, Float8), func(g *gen, t Type, sc *scope, d int) *Expr {
			name := pick(g.r, []string{"round", "trunc", "ceil", "floor", "sign"})
			if t == Numeric && (name == "round" || name == "trunc") && g.r.IntN(2) == 0 {
				return call(t, name, g.expr(t, sc, d), g.literal4(-2, 4))
			}
			return call(t, name, g.expr(t, sc, d))
		}},
		{1, is(Float8), func(g *gen, t Type, sc *scope, d int) *Expr {
			return call(t, "sqrt", g.expr(t, sc, d))
		}},
		{3, is(Int4), func(g *gen, t Type, sc *scope, d int) *Expr {
			switch g.r.IntN(4) {
			case 0:
				return call(t, "length", g.expr(Text, sc, d))
			case 1:
				return mk(t, "position", "position($ in $)", g.expr(Text, sc, d), g.expr(Text, sc, d))
			case 2:
				return call(t, "strpos", g.expr(Text, sc, d), g.expr(Text, sc, d))
			default:
				return mk(t, "date-date", "($ - $)", g.expr(Date, sc, d), g.expr(Date, sc, d))
			}
		}},
		{2, is(Numeric, Float8), func(g *gen, t Type, sc *scope, d int) *Expr {
			src := pick(g.r, []Type{Date, Timestamp, Interval})
			field := pick(g.r, extractFields[src])
			if t == Float8 {
				return mk(t, "date_part", "date_part('"+field+"', $)", g.expr(src, sc, d))
			}
			return mk(t, "extract", "EXTRACT("+field+" FROM $)", g.expr(src, sc, d))
		}},
		// Casts, in both spellings.
		{5, func(t Type, _ *scope) bool { return len(castSources[t]) > 0 }, func(g *gen, t Type, sc *scope, d int) *Expr {
			src := pick(g.r, castSources[t])
			if in := g.typeIn(sc); slices.Contains(castSources[t], in) {
				src = in
			}
			kind := "cast " + src.String() + " to " + t.String()
			x := g.expr(src, sc, d)
			if src == Text && t != Text && g.r.IntN(5) > 0 {
				// Most texts are no valid input of t: cast one that is.
				x = leaf(Text, litLeaf, quote(pick(g.r, ordinaryValues[t])))
			}
			if g.r.IntN(2) == 0 {
				return mk(t, kind, "CAST($ AS "+t.String()+")", x)
			}
			return mk(t, kind, "($)::"+t.String(), x)
		}},
		// Conditionals.
		{4, always, func(g *gen, t Type, sc *scope, d int) *Expr {
			if g.r.IntN(3) == 0 {
				c := g.typeIn(sc)
				return mk(t, "case simple", "CASE $ WHEN $ THEN $ ELSE $ END", g.expr(c, sc, d), g.expr(c, sc, d), g.expr(t, sc, d), g.expr(t, sc, d))
			}
			if g.r.IntN(3) == 0 {
				return mk(t, "case", "CASE WHEN $ THEN $ END", g.expr(Bool, sc, d), g.expr(t, sc, d))
			}
			return mk(t, "case", "CASE WHEN $ THEN $ WHEN $ THEN $ ELSE $ END", g.expr(Bool, sc, d), g.expr(t, sc, d), g.expr(Bool, sc, d), g.expr(t, sc, d), g.expr(t, sc, d))
		}},
		{4, always, func(g *gen, t Type, sc *scope, d int) *Expr {
			name := pick(g.r, []string{"coalesce", "coalesce", "nullif", "greatest", "least"})
			args := []*Expr{g.expr(t, sc, d), g.expr(t, sc, d)}
			if name != "nullif" && g.r.IntN(3) == 0 {
				args = append(args, g.expr(t, sc, d))
			}
			return call(t, name, args...)
		}},
		// Text.
		{8, is(Text), func(g *gen, t Type, sc *scope, d int) *Expr {
			s := func() *Expr { return g.expr(Text, sc, d) }
			switch g.r.IntN(12) {
			case 0:
				return mk(t, "||", "($ || $)", s(), s())
			case 1:
				// text || anything else.
				return mk(t, "||", "($ || $)", s(), g.expr(g.typeIn(sc), sc, d))
			case 2:
				return call(t, pick(g.r, []string{"upper", "lower", "initcap", "reverse", "md5", "btrim", "ltrim", "rtrim"}), s())
			case 3:
				if g.r.IntN(2) == 0 {
					return call(t, "substr", s(), g.literal4(-2, 5))
				}
				return call(t, "substr", s(), g.literal4(-2, 5), g.literal4(-1, 4))
			case 4:
				return call(t, "replace", s(), g.literal(Text), g.literal(Text))
			case 5:
				return call(t, pick(g.r, []string{"lpad", "rpad"}), s(), g.literal4(-1, 8), g.literal(Text))
			case 6:
				return call(t, "repeat", s(), g.literal4(-1, 3))
			case 7:
				return call(t, pick(g.r, []string{"left", "right"}), s(), g.literal4(-3, 4))
			case 8:
				return call(t, "split_part", s(), leaf(Text, litLeaf, quote(pick(g.r, []string{",", "a", ""}))), g.literal4(-2, 3))
			case 9:
				return call(t, "concat", g.expr(g.typeIn(sc), sc, d), g.expr(g.typeIn(sc), sc, d))
			case 10:
				return call(t, "concat_ws", leaf(Text, litLeaf, "','"), g.expr(g.typeIn(sc), sc, d), g.expr(g.typeIn(sc), sc, d))
			default:
				return call(t, "translate", s(), g.literal(Text), g.literal(Text))
			}
		}},
		// Dates, timestamps and intervals.
		{6, is(Date), func(g *gen, t Type, sc *scope, d int) *Expr {
			op := pick(g.r, []string{"+", "-"})
			return mk(t, "date"+op+"int", "($ "+op+" $)", g.expr(Date, sc, d), g.expr(Int4, sc, d))
		}},
		{6, is(Timestamp), func(g *gen, t Type, sc *scope, d int) *Expr {
			switch g.r.IntN(3) {
			case 0:
				return mk(t, "date_trunc", "date_trunc('"+pick(g.r, []string{"year", "month", "day", "hour", "minute"})+"', $)", g.expr(Timestamp, sc, d))
			default:
				op := pick(g.r, []string{"+", "-"})
				src := pick(g.r, []Type{Date, Timestamp})
				return mk(t, src.String()+op+"interval", "($ "+op+" $)", g.expr(src, sc, d), g.expr(Interval, sc, d))
			}
		}},
		{6, is(Interval), func(g *gen, t Type, sc *scope, d int) *Expr {
			switch g.r.IntN(5) {
			case 0:
				return mk(t, "ts-ts", "($ - $)", g.expr(Timestamp, sc, d), g.expr(Timestamp, sc, d))
			case 1:
				op := pick(g.r, []string{"+", "-"})
				return mk(t, "interval"+op+"interval", "($ "+op+" $)", g.expr(Interval, sc, d), g.expr(Interval, sc, d))
			case 2:
				op := pick(g.r, []string{"*", "/"})
				return mk(t, "interval"+op+"number", "($ "+op+" $)", g.expr(Interval, sc, d), g.expr(pick(g.r, []Type{Int4, Float8}), sc, d))
			case 3:
				return call(t, "age", g.expr(Timestamp, sc, d), g.expr(Timestamp, sc, d))
			default:
				return call(t, pick(g.r, []string{"justify_days", "justify_hours", "justify_interval"}), g.expr(Interval, sc, d))
			}
		}},
		// Predicates.
		{14, is(Bool), func(g *gen, t Type, sc *scope, d int) *Expr {
			a, b := g.comparableTypes(sc)
			switch g.r.IntN(10) {
			case 0, 1, 2:
				op := pick(g.r, []string{"=", "<>", "<", "<=", ">", ">="})
				return mk(t, op, "($ "+op+" $)", g.expr(a, sc, d), g.expr(b, sc, d))
			case 3:
				kw := pick(g.r, []string{"IS NULL", "IS NOT NULL"})
				return mk(t, kw, "($ "+kw+")", g.expr(a, sc, d))
			case 4:
				kw := pick(g.r, []string{"IS DISTINCT FROM", "IS NOT DISTINCT FROM"})
				return mk(t, kw, "($ "+kw+" $)", g.expr(a, sc, d), g.expr(b, sc, d))
			case 5:
				kw := pick(g.r, []string{"BETWEEN", "NOT BETWEEN", "BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC"})
				return mk(t, kw, "($ "+kw+" $ AND $)", g.expr(a, sc, d), g.expr(b, sc, d), g.expr(a, sc, d))
			case 6:
				kw := pick(g.r, []string{"IN", "NOT IN"})
				n := 1 + g.r.IntN(3)
				args := []*Expr{g.expr(a, sc, d)}
				for range n {
					args = append(args, g.expr(a, sc, d))
				}
				return mk(t, kw, "($ "+kw+" ("+strings.TrimSuffix(strings.Repeat("$, ", n), ", ")+"))", args...)
			case 7:
				kw := pick(g.r, []string{"LIKE", "NOT LIKE", "ILIKE"})
				pat := leaf(Text, litLeaf, quote(pick(g.r, likePatterns)))
				return mk(t, kw, "($ "+kw+" $)", g.expr(Text, sc, d), pat)
			default:
				kw := pick(g.r, []string{"IS TRUE", "IS NOT TRUE", "IS FALSE", "IS UNKNOWN"})
				return mk(t, kw, "($ "+kw+")", g.expr(Bool, sc, d))
			}
		}},
		{8, is(Bool), func(g *gen, t Type, sc *scope, d int) *Expr {
			switch g.r.IntN(3) {
			case 0:
				return mk(t, "NOT", "(NOT $)", g.expr(Bool, sc, d))
			case 1:
				return mk(t, "AND", "($ AND $)", g.expr(Bool, sc, d), g.expr(Bool, sc, d))
			default:
				return mk(t, "OR", "($ OR $)", g.expr(Bool, sc, d), g.expr(Bool, sc, d))
			}
		}},
		// Subqueries.
		{3, func(t Type, sc *scope) bool { return sc.subqueries }, func(g *gen, t Type, sc *scope, d int) *Expr {
			return g.scalarSubquery(t, sc)
		}},
		{4, func(t Type, sc *scope) bool { return t == Bool && sc.subqueries }, func(g *gen, t Type, sc *scope, d int) *Expr {
			outer := correlated(sc)
			switch g.r.IntN(3) {
			case 0:
				kw := pick(g.r, []string{"EXISTS", "NOT EXISTS"})
				q, _ := g.selectBlock(selOpts{outer: outer})
				e := subquery(t, kw, "("+kw+" (", q)
				e.Parts[1] = "))"
				return e
			case 1:
				a := g.typeIn(sc)
				kw := pick(g.r, []string{"IN", "NOT IN"})
				q, _ := g.selectBlock(selOpts{want: []Type{a}, outer: outer})
				return mk(t, kw+" subquery", "($ "+kw+" $)", g.expr(a, sc, d), subquery(a, "subquery", "(", q))
			default:
				a := g.typeIn(sc)
				op := pick(g.r, []string{"=", "<>", "<", ">="}) + " " + pick(g.r, []string{"ANY", "ALL"})
				q, _ := g.selectBlock(selOpts{want: []Type{a}, outer: outer})
				return mk(t, op, "($ "+op+" $)", g.expr(a, sc, d), subquery(a, "subquery", "(", q))
			}
		}},
	}
}

// extractFields are the EXTRACT fields PostgreSQL accepts per type.
var extractFields = map[Type][]string{
	Date:      {"year", "month", "day", "dow", "doy", "quarter", "epoch", "week"},
	Timestamp: {"year", "month", "day", "hour", "minute", "second", "epoch", "dow", "microseconds"},
	Interval:  {"year", "month", "day", "hour", "minute", "second", "epoch"},
}

// castSources are the types with a cast to each type.
var castSources = [numTypes][]Type{
	Int2:      {Int4, Int8, Numeric, Float8},
	Int4:      {Int2, Int8, Numeric, Float8, Bool, Text},
	Int8:      {Int2, Int4, Numeric, Float8},
	Numeric:   {Int2, Int4, Int8, Float8, Text},
	Float8:    {Int2, Int4, Int8, Numeric},
	Text:      {Int2, Int4, Int8, Numeric, Float8, Bool, Date, Timestamp, Interval},
	Bool:      {Int4, Text},
	Date:      {Timestamp, Text},
	Timestamp: {Date},
	Interval:  {Text},
}

// likePatterns are LIKE patterns (no escapes).
var likePatterns = []string{"a%", "%b%", "_", "%", "", "A%", "%,%", "_b%"}

// operandTypes returns the operand types of an arithmetic operator with
// result type t.
func (g *gen) operandTypes(t Type) (Type, Type) {
	var other Type
	switch t {
	case Int2:
		return Int2, Int2
	case Int4:
		other = Type(g.r.IntN(2)) // int2 or int4
	case Int8:
		other = Type(g.r.IntN(3))
	case Numeric:
		other = Type(g.r.IntN(4))
	default:
		other = Type(g.r.IntN(5))
	}
	if g.r.IntN(2) == 0 {
		return t, other
	}
	return other, t
}

// comparableTypes returns two types PostgreSQL compares directly: the same
// type mostly, else two of one family (numbers; dates and timestamps).
func (g *gen) comparableTypes(sc *scope) (Type, Type) {
	a := g.typeIn(sc)
	switch {
	case g.r.IntN(3) > 0:
		return a, a
	case a.isNumber():
		return a, Type(g.r.IntN(5))
	case a == Date || a == Timestamp:
		return a, pick(g.r, []Type{Date, Timestamp})
	}
	return a, a
}

// anyType returns a random type.
func (g *gen) anyType() Type { return Type(g.r.IntN(int(numTypes))) }

// typeIn returns mostly the type of a column sc reads, so that
// expressions read the data rather than constants, else any type.
func (g *gen) typeIn(sc *scope) Type {
	cols := slices.Concat(sc.cols, sc.agg, sc.outer)
	if len(cols) == 0 || g.r.IntN(4) == 0 {
		return g.anyType()
	}
	return pick(g.r, cols).t
}

// literal4 returns an int4 literal in [lo, hi].
func (g *gen) literal4(lo, hi int) *Expr {
	return leaf(Int4, litLeaf, parenNeg(strconv.Itoa(lo+g.r.IntN(hi-lo+1))))
}

// aggregate returns an aggregate call of result type t, its arguments over
// sc.agg, sometimes with DISTINCT or FILTER. The arguments never reference
// outer columns: an aggregate of outer columns only would belong to the
// outer query.
func (g *gen) aggregate(t Type, sc *scope, d int) *Expr {
	in := &scope{cols: sc.agg}
	sig := pick(g.r, aggregatesOf(t))
	name := sig.name
	distinct := ""
	if g.r.IntN(5) == 0 {
		distinct = "DISTINCT "
	}
	var e *Expr
	switch {
	case name == "count(*)":
		e = mk(t, "count(*)", "count(*)")
	case name == "count":
		e = mk(t, "count", "count("+distinct+"$)", g.expr(g.typeIn(in), in, d))
	case name == "string_agg":
		x := g.expr(Text, in, d)
		if x.Leaf == litLeaf {
			// An untyped literal would not match itself in ORDER BY.
			x = mk(Text, "cast", "CAST($ AS text)", x)
		}
		sep := pick(g.r, []string{"','", "''", "', '"})
		// The same expression orders the values, so the result is determined.
		e = mk(t, "string_agg", "string_agg("+distinct+"$, "+sep+" ORDER BY $)", x, x)
	default:
		e = mk(t, name, name+"("+distinct+"$)", g.expr(sig.arg, in, d))
	}
	if g.r.IntN(5) == 0 {
		e.Parts[len(e.Parts)-1] += " FILTER (WHERE "
		e.Args = append(e.Args, g.expr(Bool, in, d))
		e.Parts = append(e.Parts, ")")
	}
	e.Agg = true
	return e
}

// aggregateSig is an aggregate taking an argument of type arg.
type aggregateSig struct {
	name string
	arg  Type
}

// aggregatesOf returns the aggregates with result type t, with PostgreSQL's
// result types (sum(int4) is int8, avg(int) numeric, ...); every type has
// some.
func aggregatesOf(t Type) []aggregateSig {
	var out []aggregateSig
	if t != Bool {
		out = append(out, aggregateSig{"min", t}, aggregateSig{"max", t})
	}
	switch t {
	case Int8:
		out = append(out, aggregateSig{"count(*)", t}, aggregateSig{"count", t}, aggregateSig{"sum", Int2}, aggregateSig{"sum", Int4})
	case Numeric:
		out = append(out, aggregateSig{"sum", Int8}, aggregateSig{"sum", Numeric}, aggregateSig{"avg", Int2}, aggregateSig{"avg", Int4}, aggregateSig{"avg", Int8}, aggregateSig{"avg", Numeric})
	case Float8, Interval:
		out = append(out, aggregateSig{"sum", t}, aggregateSig{"avg", t})
	case Bool:
		out = append(out, aggregateSig{"bool_and", Bool}, aggregateSig{"bool_or", Bool})
	case Text:
		out = append(out, aggregateSig{"string_agg", Text})
	}
	return out
}

// correlated returns the columns a subquery in sc may reference from its
// enclosing queries: plain columns only, never grouped expressions.
func correlated(sc *scope) []column {
	var out []column
	for _, c := range append(sc.cols[:len(sc.cols):len(sc.cols)], sc.outer...) {
		if c.bare && strings.Contains(c.ref, ".") {
			out = append(out, c)
		}
	}
	return out
}

// scalarSubquery returns a subquery of one row and one column of type t:
// a global aggregate (sometimes an unaggregated one, which fails with
// 21000 when it finds two rows), correlated with sc's columns.
func (g *gen) scalarSubquery(t Type, sc *scope) *Expr {
	mode := modeGlobal
	if g.r.IntN(10) == 0 {
		mode = modePlain
	}
	q, _ := g.selectBlock(selOpts{want: []Type{t}, outer: correlated(sc), mode: mode})
	return subquery(t, "scalar subquery", "(", q)
}
