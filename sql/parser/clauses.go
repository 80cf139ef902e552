package parser

import (
	"slices"
	"strconv"
	"strings"
)

// This file holds the keyword-driven parts of the translator: clause
// keywords, FROM items, WITH, VALUES, LIMIT/OFFSET/FETCH, ORDER BY ...
// NULLS, and the heads of INSERT, UPDATE and DELETE.

// word translates the word at token i.
func (t *translator) word(s *seq, i int) (int, error) {
	tk := t.at(i)
	v, next := tk.val, t.at(i+1)
	if !reserved[v] || s.mode == modeWindow && windowWords[v] {
		return t.softWord(s, i)
	}
	switch v {
	case "select":
		s.clause = "select"
	case "distinct":
		if next.is("on") {
			if !t.at(i + 2).isPunct("(") {
				return i + 2, t.syntaxErr(i + 2)
			}
			u, j, err := t.marker("pg_distinct_on", tk.pos, i+2)
			if err != nil {
				return j, err
			}
			s.add(u)
			s.add(wordUnit(",", tk.pos))
			return j, nil
		}
	case "from":
		if s.mode == modeQuery || s.mode == modeFrom {
			switch s.clause {
			case "set":
				return i, notSupportedAt(t.src, tk.pos, "UPDATE ... FROM is not supported").WithHint("use a subquery in SET or WHERE")
			case "select", "":
				s.clause, s.fromItem = "from", true
			}
		}
	case "where", "having", "window", "group":
		if s.mode == modeQuery {
			s.clause = v
		}
	case "order":
		if next.is("by") {
			s.add(wordUnit("order", tk.pos))
			s.add(wordUnit("by", next.pos))
			s.orderStart = len(s.units)
			if s.mode == modeQuery {
				s.clause = "order"
			}
			return i + 2, nil
		}
	case "limit", "offset", "fetch":
		s.orderStart = -1
		return t.limitClause(s, i)
	case "for":
		if s.mode == modeQuery && next.is("system_time") && s.clause == "from" {
			return t.systemTime(s, i)
		}
		if s.mode == modeQuery {
			return i, notSupportedAt(t.src, tk.pos, "SELECT ... FOR UPDATE/SHARE is not supported")
		}
	case "union", "intersect", "except":
		s.orderStart, s.clause = -1, ""
		j := i + 1
		if t.at(j).is("all") || t.at(j).is("distinct") {
			j++
		}
		if t.at(j).is("corresponding") && s.mode == modeQuery {
			for k := i; k < j; k++ {
				s.add(wordUnit(t.at(k).val, t.at(k).pos))
			}
			return t.corresponding(s, v, j)
		}
	case "join":
		s.fromItem = s.clause == "from"
	case "natural", "full":
		natural := v == "natural"
		j := i + 1
		if natural {
			if !next.is("full") {
				break
			}
			j++
		}
		if t.at(j).is("outer") {
			j++
		}
		if !t.at(j).is("join") {
			return j, t.syntaxErr(j)
		}
		s.add(unit{kind: uWord, word: "join", frags: []frag{{text: "STRAIGHT_JOIN", src: tk.pos}}})
		// NATURAL FULL JOIN item becomes STRAIGHT_JOIN item ON pg_natural().
		s.fullJoin, s.naturalJoin, s.fromItem = !natural, natural, s.clause == "from"
		return j + 1, nil
	case "using":
		if s.fullJoin {
			// STRAIGHT_JOIN takes no USING: carry the column list as the
			// marker condition ON pg_using(a, b).
			s.add(unit{kind: uWord, word: "on", frags: []frag{{text: "ON pg_using", src: tk.pos}}})
			return i + 1, nil
		}
		if s.clause == "delete" {
			return i, notSupportedAt(t.src, tk.pos, "DELETE ... USING is not supported").WithHint("use a subquery in WHERE")
		}
	case "on":
		if next.is("conflict") {
			return t.onConflict(s, i)
		}
		s.fullJoin = false
	case "and":
		if s.betweens > 0 {
			s.betweens--
			s.add(opUnit("AND", lvlLike, rwNone, tk.pos, i+1))
		} else {
			s.add(opUnit("AND", lvlAnd, rwNone, tk.pos, i+1))
		}
		return i + 1, nil
	case "or":
		s.add(opUnit("OR", lvlOr, rwNone, tk.pos, i+1))
		return i + 1, nil
	case "not":
		if next.is("like") || next.is("ilike") || next.is("in") || next.is("between") || next.is("similar") {
			return t.likeOp(s, i+1, "NOT ")
		}
		s.add(opUnit("NOT", lvlNot, rwNone, tk.pos, i+1))
		return i + 1, nil
	case "like", "ilike", "in", "between", "similar":
		return t.likeOp(s, i, "")
	case "is":
		return t.isOp(s, i)
	case "isnull", "notnull":
		text := map[string]string{"isnull": "IS NULL", "notnull": "IS NOT NULL"}[v]
		s.add(opUnit(text, lvlIs, rwNone, tk.pos, i+1))
		return i + 1, nil
	case "overlaps":
		return i, notSupportedAt(t.src, tk.pos, "OVERLAPS is not supported")
	case "tablesample":
		return i, notSupportedAt(t.src, tk.pos, "TABLESAMPLE is not supported")
	case "returning":
		return i, notSupportedAt(t.src, tk.pos, "RETURNING is only supported at the end of INSERT, UPDATE and DELETE")
	case "into":
		if s.clause == "select" {
			return i, notSupportedAt(t.src, tk.pos, "SELECT ... INTO is not supported").WithHint("use CREATE TABLE and INSERT ... SELECT")
		}
	case "as":
		s.add(wordUnit("as", tk.pos))
		if next.kind == tkIdent || next.kind == tkQIdent {
			s.add(primaryOf(identFrag(next, false)))
			return i + 2, nil
		}
		return i + 1, nil
	case "with":
		return t.withClause(s, i)
	case "values":
		return t.values(s, i)
	case "default":
		if next.is("values") {
			s.add(unit{kind: uWord, word: "values", frags: []frag{{text: "( ) VALUES ( )", src: tk.pos}}})
			return i + 2, nil
		}
		return t.primaryStep(s, i)
	case "all", "any", "some":
		// A quantifier (x = ALL (array)) follows an operator; elsewhere ALL
		// is the set quantifier of SELECT ALL (x) or sum(ALL (x)).
		if next.isPunct("(") && (v != "all" || s.last().kind == uOp) {
			return t.primaryStep(s, i)
		}
	case "null", "true", "false", "cast", "extract", "case", "exists", "row", "array", "left", "right":
		if (v == "left" || v == "right") && !next.isPunct("(") {
			break
		}
		return t.primaryStep(s, i)
	default:
		if sqlValueFunctions[v] {
			return t.primaryStep(s, i)
		}
	}
	s.add(wordUnit(v, tk.pos))
	return i + 1, nil
}

// softWord translates a non-reserved word at token i: a keyword its
// context makes one, or else an operand.
func (t *translator) softWord(s *seq, i int) (int, error) {
	tk := t.at(i)
	v, next := tk.val, t.at(i+1)
	switch {
	case s.mode == modeWindow && windowWords[v]:
		switch v {
		case "rows", "range", "groups":
			s.orderStart = -1
		case "preceding", "following":
			if err := t.frameOffset(s); err != nil {
				return i, err
			}
		}
	case v == "by" && s.last().isWord("group") && s.mode == modeQuery:
		return t.groupBy(s, i)
	case v == "by" && (s.last().isWord("group") || s.last().isWord("partition")):
	case v == "nulls" && (next.is("first") || next.is("last")) && s.orderStart >= 0:
		return t.nullsOrder(s, i)
	case v == "operator" && next.isPunct("("):
		return t.qualifiedOperator(s, i)
	case v == "escape" && s.last().kind == uPrimary && likeBefore(s.units):
		s.add(opUnit("ESCAPE", lvlLike, rwNone, tk.pos, i+1))
		return i + 1, nil
	case s.mode == modeQuery && (s.clause == "" || s.clause == "with") && v == "insert" && next.is("into"):
		return t.dmlHead(s, i, "into")
	case s.mode == modeQuery && (s.clause == "" || s.clause == "with") && v == "update":
		return t.dmlHead(s, i, "set")
	case s.mode == modeQuery && (s.clause == "" || s.clause == "with") && v == "delete" && next.is("from"):
		return t.dmlHead(s, i, "delete")
	default:
		return t.primaryStep(s, i)
	}
	s.add(wordUnit(v, tk.pos))
	return i + 1, nil
}

// frameOffset turns the offset before PRECEDING or FOLLOWING into a side
// expression unless it is an unsigned number, the only offset TiDB's
// grammar takes.
func (t *translator) frameOffset(s *seq) error {
	k := len(s.units)
	for k > 0 {
		u := s.units[k-1]
		if u.kind == uWord || u.kind == uOp && (u.op == "BETWEEN" || u.op == "AND" && u.level == lvlLike) {
			break
		}
		k--
	}
	off := s.units[k:]
	if len(off) == 0 || len(off) == 1 && len(off[0].frags) == 1 && isUnsignedNumber(off[0].frags[0].text) {
		return nil
	}
	folded, err := t.fold(append([]unit(nil), off...))
	if err != nil {
		return err
	}
	side := t.side(appendUnits(nil, folded), off[0].frags[0].src)
	s.units = append(s.units[:k], unit{kind: uPrimary, frags: side})
	return nil
}

// isUnsignedNumber reports whether text is an integer or decimal literal.
func isUnsignedNumber(text string) bool {
	digits := false
	for i, c := range text {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c != '.' || strings.IndexByte(text[i+1:], '.') >= 0:
			return false
		}
	}
	return digits
}

// qualifiedOperator translates OPERATOR([schema.]op) at token i (psql
// writes OPERATOR(pg_catalog.~)) as the operator itself.
func (t *translator) qualifiedOperator(s *seq, i int) (int, error) {
	j := i + 2
	if k := t.at(j); (k.kind == tkIdent || k.kind == tkQIdent) && t.at(j+1).isPunct(".") {
		j += 2
	}
	if t.at(j).kind != tkOp || !t.at(j+1).isPunct(")") {
		return j, t.syntaxErr(j)
	}
	t.operator(s, j)
	return j + 2, nil
}

// likeBefore reports whether the current operand follows a LIKE, ILIKE or
// SIMILAR TO, so that ESCAPE is theirs.
func likeBefore(us []unit) bool {
	for k := len(us) - 1; k >= 0; k-- {
		switch u := us[k]; {
		case u.kind == uOp && (u.op == "LIKE" || u.op == "ILIKE" || u.op == "NOT LIKE" || u.op == "NOT ILIKE" || u.rw == rwSimilar):
			return true
		case u.kind == uWord || u.kind == uOp && u.level < lvlLike:
			return false
		}
	}
	return false
}

// likeOp translates LIKE, ILIKE, IN, BETWEEN and SIMILAR TO at token i,
// with prefix "NOT " when negated.
func (t *translator) likeOp(s *seq, i int, not string) (int, error) {
	tk := t.at(i)
	j := i + 1
	switch tk.val {
	case "similar":
		if !t.at(j).is("to") {
			return j, t.syntaxErr(j)
		}
		start := tk.pos
		if not != "" {
			start = t.at(i - 1).pos
		}
		u := opUnit(not+"SIMILAR TO", lvlLike, rwSimilar, start, j+1)
		u.op = map[string]string{"": "~", "NOT ": "!~"}[not]
		s.add(u)
		return j + 1, nil
	case "between":
		if t.at(j).is("symmetric") {
			start := tk.pos
			if not != "" {
				start = t.at(i - 1).pos
			}
			u := opUnit(not+"BETWEEN SYMMETRIC", lvlLike, rwSymmetric, start, j+1)
			u.op = strings.TrimSpace(not)
			s.add(u)
			s.betweens++
			return j + 1, nil
		}
		if t.at(j).is("asymmetric") {
			j++
		}
		s.betweens++
	}
	start := tk.pos
	if not != "" {
		start = t.at(i - 1).pos
	}
	s.add(opUnit(not+strings.ToUpper(tk.val), lvlLike, rwNone, start, j))
	return j, nil
}

// isOp translates IS [NOT] {NULL|TRUE|FALSE|UNKNOWN|DISTINCT FROM} at token i.
func (t *translator) isOp(s *seq, i int) (int, error) {
	tk := t.at(i)
	j := i + 1
	not := t.at(j).is("not")
	if not {
		j++
	}
	w := t.at(j)
	switch {
	case w.is("distinct") && t.at(j+1).is("from"):
		rw := rwDistinct
		if not {
			rw = rwNotDistinct
		}
		s.add(opUnit("IS DISTINCT FROM", lvlIs, rw, tk.pos, j+2))
		return j + 2, nil
	case w.is("null") || w.is("true") || w.is("false") || w.is("unknown"):
		text := "IS " + strings.ToUpper(w.val)
		if not {
			text = "IS NOT " + strings.ToUpper(w.val)
		}
		s.add(opUnit(text, lvlIs, rwNone, tk.pos, j+1))
		return j + 1, nil
	case w.is("document") || w.is("normalized") || w.is("json") || w.is("of"):
		return j, notSupportedAt(t.src, w.pos, "IS %s is not supported", strings.ToUpper(w.val))
	}
	return j, t.syntaxErr(j)
}

// nullsOrder wraps the current ORDER BY item's expression, at NULLS
// FIRST|LAST (token i), into pg_nulls_first(expr) or pg_nulls_last(expr),
// keeping ASC or DESC after the call.
func (t *translator) nullsOrder(s *seq, i int) (int, error) {
	end := len(s.units)
	if end > s.orderStart && (s.last().isWord("asc") || s.last().isWord("desc")) {
		end--
	}
	if end == s.orderStart {
		return i, t.syntaxErr(i)
	}
	expr, err := t.fold(append([]unit(nil), s.units[s.orderStart:end]...))
	if err != nil {
		return i, err
	}
	name := "pg_nulls_" + t.at(i+1).val + "("
	src := expr[0].frags[0].src
	fs := append([]frag{{text: name, src: src}}, appendUnits(nil, expr)...)
	fs = append(fs, frag{text: ")", src: t.at(i).pos})
	tail := append([]unit(nil), s.units[end:]...)
	s.units = append(append(s.units[:s.orderStart], unit{kind: uPrimary, frags: fs}), tail...)
	return i + 2, nil
}

// limitClause translates a run of LIMIT, OFFSET and FETCH clauses at
// token i into TiDB's LIMIT count [OFFSET offset].
func (t *translator) limitClause(s *seq, i int) (int, error) {
	var count, offset []frag
	src := t.at(i).pos
	for {
		tk := t.at(i)
		var err error
		switch {
		case tk.is("limit") && t.at(i+1).is("all"):
			count, i = nil, i+2
		case tk.is("limit"):
			if count, i, err = t.limitValue(i + 1); err != nil {
				return i, err
			}
		case tk.is("offset"):
			if offset, i, err = t.limitValue(i + 1); err != nil {
				return i, err
			}
			if t.at(i).is("row") || t.at(i).is("rows") {
				i++
			}
		case tk.is("fetch"):
			if count, i, err = t.fetch(i + 1); err != nil {
				return i, err
			}
		default:
			fs := []frag{{text: "LIMIT", src: src}}
			switch {
			case count != nil:
				fs = append(fs, count...)
			case offset != nil:
				fs = append(fs, t.side(nil, src)...)
			default:
				return i, nil
			}
			if offset != nil {
				fs = append(append(fs, frag{text: "OFFSET", src: src}), offset...)
			}
			s.add(unit{kind: uWord, word: "limit", frags: fs})
			return i, nil
		}
	}
}

// fetch translates FIRST|NEXT [n] ROW|ROWS ONLY|WITH TIES at token i into
// a count: pg_with_ties(n) for WITH TIES.
func (t *translator) fetch(i int) ([]frag, int, error) {
	if !t.at(i).is("first") && !t.at(i).is("next") {
		return nil, i, t.syntaxErr(i)
	}
	i++
	count := []frag{{text: "1", src: t.at(i).pos}}
	if !t.at(i).is("row") && !t.at(i).is("rows") {
		var err error
		if count, i, err = t.limitValue(i); err != nil {
			return nil, i, err
		}
	}
	if !t.at(i).is("row") && !t.at(i).is("rows") {
		return nil, i, t.syntaxErr(i)
	}
	i++
	switch {
	case t.at(i).is("only"):
		return count, i + 1, nil
	case t.at(i).is("with") && t.at(i+1).is("ties"):
		src := t.at(i).pos
		wrap := func(fs []frag) []frag {
			if fs == nil {
				fs = []frag{{text: "NULL", src: src}}
			}
			return slices.Concat([]frag{{text: "pg_with_ties(", src: src}}, fs, []frag{{text: ")", src: src}})
		}
		if len(count) == 1 && count[0].side > 0 {
			// Already a side expression: wrap it where it is.
			t.sides[count[0].side-1] = wrap(t.sides[count[0].side-1])
			return count, i + 2, nil
		}
		return t.side(wrap(count), src), i + 2, nil
	}
	return nil, i, t.syntaxErr(i)
}

// limitValue translates a LIMIT, OFFSET or FETCH count at token i, an
// expression as in PostgreSQL. TiDB's grammar takes only an integer or `?`
// there: an integer literal within bigint stays, anything else ($n, an
// expression, a literal beyond bigint) becomes a side expression. LIMIT
// NULL is no limit.
func (t *translator) limitValue(i int) ([]frag, int, error) {
	end := t.limitValueEnd(i)
	tk := t.at(i)
	switch {
	case end == i:
		return nil, i, t.syntaxErr(i)
	case end == i+1 && tk.is("null"):
		return nil, end, nil
	case end == i+1 && tk.kind == tkInt && fitsInt64(tk.val):
		return []frag{{text: tk.val, src: tk.pos}}, end, nil
	}
	fs, err := t.translate(i, end, modeExpr)
	if err != nil {
		return nil, end, err
	}
	return t.side(fs, tk.pos), end, nil
}

// limitValueEnd returns the index of the token after the LIMIT, OFFSET or
// FETCH count starting at token i.
func (t *translator) limitValueEnd(i int) int {
	for ; ; i++ {
		tk := t.at(i)
		switch {
		case tk.kind == tkEOF, tk.isPunct(")"), tk.isPunct(";"):
			return i
		case tk.kind == tkIdent && limitValueStops[tk.val]:
			return i
		case t.match[i] >= 0:
			i = t.match[i]
		}
	}
}

// limitValueStops are the words that end a LIMIT, OFFSET or FETCH count.
var limitValueStops = map[string]bool{
	"limit": true, "offset": true, "fetch": true, "row": true, "rows": true, "for": true,
	"union": true, "intersect": true, "except": true, "returning": true,
}

// fitsInt64 reports whether the decimal digits s fit in a bigint.
func fitsInt64(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// fromItem translates one FROM item at token i: a table, a derived table,
// a parenthesized join or a table function, with its alias.
func (t *translator) fromItem(s *seq, i int) (int, error) {
	s.fromItem = false
	tk := t.at(i)
	switch {
	case tk.is("lateral"):
		s.add(wordUnit("lateral", tk.pos))
		t.laterals = append(t.laterals, false)
		s.lateral, s.fromItem = true, true
		return i + 1, nil
	case tk.is("only"):
		s.fromItem = true
		return i + 1, nil
	case tk.is("rows") && t.at(i+1).is("from"):
		return i, notSupportedAt(t.src, tk.pos, "ROWS FROM is not supported")
	}
	lateral := s.lateral
	s.lateral = false
	var body []frag
	j := i
	kind := "table"
	switch {
	case tk.isPunct("("):
		m := t.groupMode(s, i)
		kind = "derived"
		if m != modeQuery {
			m, kind = modeFrom, "join"
		}
		g, k, err := t.group(i, m)
		if err != nil {
			return k, err
		}
		body, j = g.frags, k
	case tk.kind == tkQIdent || tk.kind == tkIdent && !reserved[tk.val]:
		name := i
		for t.at(name+1).isPunct(".") && (t.at(name+2).kind == tkIdent || t.at(name+2).kind == tkQIdent) {
			name += 2
		}
		if t.at(name + 1).isPunct("(") {
			u, k, err := t.call(i, name)
			if err != nil {
				return k, err
			}
			kind, body, j = "function", u.frags, k
			break
		}
		body, j = t.nameFrags(i, name), name+1
	default:
		return i, t.syntaxErr(i)
	}
	ordinality := t.at(j).is("with") && t.at(j+1).is("ordinality")
	if ordinality {
		if kind != "function" {
			return j, t.syntaxErr(j)
		}
		j += 2
	}
	alias, cols, j, err := t.alias(s, j)
	if err != nil {
		return j, err
	}
	var fs []frag
	switch kind {
	case "join":
		if alias != nil {
			return j, notSupportedAt(t.src, alias[len(alias)-1].src, "an alias on a parenthesized join is not supported")
		}
		fs = body
	case "function":
		if !lateral {
			fs = append(fs, keyword("lateral", tk.pos))
			t.laterals = append(t.laterals, false)
		}
		if alias == nil {
			alias = []frag{keyword("as", tk.pos), identFrag(token{val: t.funcAlias(i), pos: tk.pos}, false)}
		}
		fs = append(fs, frag{text: "(SELECT pg_table_function(", src: tk.pos})
		fs = append(fs, body...)
		if ordinality {
			fs = append(fs, frag{text: ", 'ordinality'", src: tk.pos, glue: true})
		}
		fs = append(fs, frag{text: "))", src: tk.pos})
	case "table", "derived":
		if cols != nil && !lateral {
			fs = append(fs, keyword("lateral", tk.pos))
			t.laterals = append(t.laterals, true)
		}
		if cols != nil && kind == "table" {
			fs = append(fs, frag{text: "(SELECT * FROM", src: tk.pos})
			fs = append(fs, body...)
			fs = append(fs, frag{text: ")", src: tk.pos})
		} else {
			fs = append(fs, body...)
		}
	}
	fs = append(append(fs, alias...), cols...)
	if s.naturalJoin {
		fs = append(fs, keyword("on", tk.pos), frag{text: "pg_natural()", src: tk.pos})
		s.naturalJoin = false
	}
	s.add(unit{kind: uPrimary, frags: fs})
	return j, nil
}

// funcAlias returns the default alias of the function called in FROM at
// token i: its (last) name, as in PostgreSQL, but for the time windows
// TUMBLE(t, ...) and HOP(t, ...) the name of the relation t they read, as
// in RisingWave and Flink (FROM HOP(bid, ...) is addressed as bid).
func (t *translator) funcAlias(i int) string {
	for t.at(i + 1).isPunct(".") {
		i += 2
	}
	fn := t.at(i)
	if !fn.is("tumble") && !fn.is("hop") {
		return fn.val
	}
	rel := i + 2
	if k := t.at(rel).kind; k != tkIdent && k != tkQIdent {
		return fn.val
	}
	for t.at(rel+1).isPunct(".") && (t.at(rel+2).kind == tkIdent || t.at(rel+2).kind == tkQIdent) {
		rel += 2
	}
	return t.at(rel).val
}

// nameFrags renders the qualified name spanning tokens [i, last].
func (t *translator) nameFrags(i, last int) []frag {
	var fs []frag
	for k := i; k <= last; k += 2 {
		if k > i {
			fs = append(fs, frag{text: ".", src: t.at(k - 1).pos, glue: true})
		}
		fs = append(fs, identFrag(t.at(k), k > i))
	}
	return fs
}

// alias translates an optional [AS] alias [(column, ...)] at token j.
func (t *translator) alias(s *seq, j int) (alias, cols []frag, next int, err error) {
	tk := t.at(j)
	switch {
	case tk.is("as"):
		n := t.at(j + 1)
		if n.kind != tkIdent && n.kind != tkQIdent {
			return nil, nil, j + 1, t.syntaxErr(j + 1)
		}
		alias, j = []frag{keyword("as", tk.pos), identFrag(n, false)}, j+2
	case tk.kind == tkQIdent || tk.kind == tkIdent && !reserved[tk.val] && !(tk.val == "set" && s.clause == "set"):
		alias, j = []frag{keyword("as", tk.pos), identFrag(tk, false)}, j+1
	default:
		return nil, nil, j, nil
	}
	if t.at(j).isPunct("(") {
		cols, j, err = t.identList(j)
	}
	return alias, cols, j, err
}

// identList translates a parenthesized list of column names at token j.
func (t *translator) identList(j int) ([]frag, int, error) {
	fs := []frag{{text: "(", src: t.at(j).pos}}
	for k := j + 1; ; k += 2 {
		n := t.at(k)
		if n.kind != tkIdent && n.kind != tkQIdent {
			return nil, k, t.syntaxErr(k)
		}
		fs = append(fs, identFrag(n, false))
		switch d := t.at(k + 1); {
		case d.isPunct(")"):
			return append(fs, frag{text: ")", src: d.pos}), k + 2, nil
		case !d.isPunct(","):
			return nil, k + 1, t.syntaxErr(k + 1)
		}
		fs = append(fs, frag{text: ",", src: t.at(k + 1).pos, glue: true})
	}
}

// withClause translates WITH [RECURSIVE] name [(cols)] AS [[NOT]
// MATERIALIZED] (query), ... at token i.
func (t *translator) withClause(s *seq, i int) (int, error) {
	fs := []frag{keyword("with", t.at(i).pos)}
	j := i + 1
	if t.at(j).is("recursive") {
		fs = append(fs, keyword("recursive", t.at(j).pos))
		j++
	}
	for {
		name := t.at(j)
		if name.kind != tkQIdent && (name.kind != tkIdent || reserved[name.val]) {
			return j, t.syntaxErr(j)
		}
		fs = append(fs, identFrag(name, false))
		j++
		if t.at(j).isPunct("(") {
			cols, k, err := t.identList(j)
			if err != nil {
				return k, err
			}
			fs, j = append(fs, cols...), k
		}
		if !t.at(j).is("as") {
			return j, t.syntaxErr(j)
		}
		fs = append(fs, keyword("as", t.at(j).pos))
		j++
		if t.at(j).is("not") && t.at(j+1).is("materialized") {
			j += 2
		} else if t.at(j).is("materialized") {
			j++
		}
		if !t.at(j).isPunct("(") {
			return j, t.syntaxErr(j)
		}
		g, k, err := t.group(j, modeQuery)
		if err != nil {
			return k, err
		}
		fs, j = append(fs, g.frags...), k
		if !t.at(j).isPunct(",") {
			break
		}
		fs = append(fs, frag{text: ",", src: t.at(j).pos, glue: true})
		j++
	}
	if t.at(j).is("search") || t.at(j).is("cycle") {
		return j, notSupportedAt(t.src, t.at(j).pos, "SEARCH and CYCLE clauses are not supported")
	}
	s.add(unit{kind: uWord, word: "with", frags: fs})
	s.clause = "with"
	return j, nil
}

// values translates VALUES (row), ... at token i. In INSERT the rows stay
// as they are; as a query TiDB needs VALUES ROW(...), ROW(...).
func (t *translator) values(s *seq, i int) (int, error) {
	if s.clause == "into" {
		s.add(wordUnit("values", t.at(i).pos))
		return i + 1, nil
	}
	fs := []frag{keyword("values", t.at(i).pos)}
	j := i + 1
	for {
		if !t.at(j).isPunct("(") {
			return j, t.syntaxErr(j)
		}
		g, k, err := t.group(j, modeExpr)
		if err != nil {
			return k, err
		}
		fs = append(append(fs, keyword("row", t.at(j).pos)), g.frags...)
		j = k
		if !t.at(j).isPunct(",") {
			break
		}
		fs = append(fs, frag{text: ",", src: t.at(j).pos, glue: true})
		j++
	}
	s.add(unit{kind: uWord, word: "values", frags: fs})
	s.clause = "values"
	return j, nil
}

// dmlHead translates INSERT INTO t [AS a], UPDATE [ONLY] t [[AS] a] SET
// or DELETE FROM [ONLY] t [[AS] a] at token i; clause is the clause that
// follows ("into", "set" or "delete").
func (t *translator) dmlHead(s *seq, i int, clause string) (int, error) {
	tk := t.at(i)
	fs := []frag{keyword(tk.val, tk.pos)}
	j := i + 1
	if clause != "set" {
		fs = append(fs, keyword(t.at(j).val, t.at(j).pos))
		j++
	}
	if t.at(j).is("only") && clause != "into" {
		j++
	}
	if n := t.at(j); n.kind != tkQIdent && (n.kind != tkIdent || reserved[n.val]) {
		return j, t.syntaxErr(j)
	}
	last := j
	for t.at(last+1).isPunct(".") && (t.at(last+2).kind == tkIdent || t.at(last+2).kind == tkQIdent) {
		last += 2
	}
	fs = append(fs, t.nameFrags(j, last)...)
	j = last + 1
	s.clause = clause
	if clause == "into" && t.at(j).is("as") {
		name := t.at(j + 1)
		if name.kind != tkQIdent && (name.kind != tkIdent || reserved[name.val]) {
			return j + 1, t.syntaxErr(j + 1)
		}
		t.insertAlias, j = name.val, j+2
	} else if clause != "into" {
		alias, cols, k, err := t.alias(s, j)
		if err != nil {
			return k, err
		}
		if cols != nil {
			return k, t.syntaxErr(j)
		}
		fs, j = append(fs, alias...), k
	}
	if clause == "set" {
		if !t.at(j).is("set") {
			return j, t.syntaxErr(j)
		}
		fs = append(fs, keyword("set", t.at(j).pos))
		j++
	}
	s.add(unit{kind: uWord, word: clause, frags: fs})
	return j, nil
}

// systemTime translates FOR SYSTEM_TIME AS OF PROCTIME() [[AS] alias]
// after a table name in FROM (a processing-time temporal join's right
// side) into TiDB's [AS alias] AS OF TIMESTAMP proctime(), the alias
// first as TiDB's grammar has it. Other times than PROCTIME() are 0A000.
func (t *translator) systemTime(s *seq, i int) (int, error) {
	pos := t.at(i).pos
	if !t.at(i+2).is("as") || !t.at(i+3).is("of") {
		return i + 2, t.syntaxErr(i + 2)
	}
	if !t.at(i+4).is("proctime") || !t.at(i+5).isPunct("(") || !t.at(i+6).isPunct(")") {
		return i + 4, notSupportedAt(t.src, t.at(i+4).pos, "FOR SYSTEM_TIME AS OF is supported with PROCTIME() only")
	}
	j := i + 7
	var fs []frag
	as := t.at(j).is("as")
	if as {
		j++
	}
	if a := t.at(j); a.kind == tkQIdent || a.kind == tkIdent && (as || !reserved[a.val]) {
		fs = append(fs, frag{text: "AS", src: a.pos}, identFrag(a, false))
		j++
	} else if as {
		return j, t.syntaxErr(j)
	}
	fs = append(fs, frag{text: "AS OF TIMESTAMP proctime()", src: pos})
	s.add(unit{kind: uWord, word: "as", frags: fs})
	return j, nil
}
