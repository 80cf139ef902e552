package parser

import (
	"slices"
	"strings"
)

// translator turns the PostgreSQL tokens of one query or DML statement
// into text for the TiDB parser (see the package doc for the contract).
// It walks the tokens once, building per parenthesized group a sequence of
// units (operands, operators, words), rewriting PostgreSQL-only forms as it
// goes; fold then fixes operators whose precedence TiDB does not share.
type translator struct {
	cursor
	match     []int // for ( [ and CASE: the index of the matching ) ] END
	numParams int
	// laterals records, in text order, each LATERAL emitted: true when the
	// translator added it only to carry a column alias list.
	laterals []bool
	// insertAlias is the alias of INSERT INTO t AS alias, which TiDB's
	// grammar lacks: it goes on the target's ast.TableSource after parsing.
	insertAlias string
	// sides are expressions where TiDB's grammar takes only an integer or
	// `?` (LIMIT and OFFSET): each is emitted as a `?`, parsed on its own
	// after the statement and put back by fixup. A nil side stands for no
	// LIMIT count (OFFSET alone).
	sides [][]frag
}

// side emits a `?` standing for the translated expression fs (nil: no
// count).
func (t *translator) side(fs []frag, src int) []frag {
	t.sides = append(t.sides, fs)
	return []frag{{text: "?", src: src, side: len(t.sides)}}
}

// mode says what a token sequence is.
type mode uint8

const (
	modeExpr   mode = iota // expressions, argument lists
	modeQuery              // a query or DML statement
	modeFrom               // a parenthesized join: FROM items
	modeWindow             // a window specification
)

// seq is the state of translating one token sequence.
type seq struct {
	mode  mode
	units []unit
	// clause is the current clause keyword of a query: select, from,
	// where, group, having, window, order, into, set, with, or "".
	clause string
	// orderStart is the index in units where the current ORDER BY item
	// starts, -1 outside ORDER BY.
	orderStart int
	fromItem   bool // the next tokens start a FROM item
	lateral    bool // the user wrote LATERAL before the coming FROM item
	fullJoin   bool // a FULL JOIN waits for its ON
	// naturalJoin is set from NATURAL FULL JOIN to the end of its right
	// item, which gets ON pg_natural().
	naturalJoin bool
	betweens    int // BETWEENs waiting for their AND
}

func (s *seq) add(u unit) { s.units = append(s.units, u) }

func (s *seq) last() unit {
	if len(s.units) == 0 {
		return unit{kind: uWord}
	}
	return s.units[len(s.units)-1]
}

// newTranslator prepares toks (ending with tkEOF) for translation.
func newTranslator(src string, toks []token) (*translator, error) {
	t := &translator{cursor: cursor{src: src, toks: toks}, match: make([]int, len(toks))}
	var stack []int
	for i, tk := range toks {
		t.match[i] = -1
		switch {
		case tk.isPunct("(") || tk.isPunct("[") || tk.is("case"):
			stack = append(stack, i)
		case tk.isPunct(")") || tk.isPunct("]") || tk.is("end"):
			if len(stack) == 0 {
				if tk.is("end") {
					continue // END outside CASE: left to the grammar
				}
				return nil, t.syntaxErr(i)
			}
			open := stack[len(stack)-1]
			want := map[string]string{"(": ")", "[": "]", "case": "end"}[toks[open].val]
			if tk.val != want {
				return nil, t.syntaxErr(i)
			}
			stack = stack[:len(stack)-1]
			t.match[open] = i
		}
	}
	if len(stack) > 0 {
		return nil, t.syntaxErr(len(toks) - 1)
	}
	return t, nil
}

// translate translates tokens [lo, hi) in mode m into folded units' frags.
func (t *translator) translate(lo, hi int, m mode) ([]frag, error) {
	s := &seq{mode: m, orderStart: -1}
	if m == modeFrom {
		s.clause, s.fromItem = "from", true
	}
	for i := lo; i < hi; {
		var err error
		if i, err = t.step(s, i); err != nil {
			return nil, err
		}
	}
	us := s.units
	if m == modeQuery {
		var err error
		if us, err = t.havingFirst(us); err != nil {
			return nil, err
		}
	}
	us, err := t.fold(us)
	if err != nil {
		return nil, err
	}
	return appendUnits(nil, us), nil
}

// step translates the construct starting at token i and returns the index
// after it.
func (t *translator) step(s *seq, i int) (int, error) {
	if s.fromItem {
		return t.fromItem(s, i)
	}
	tk := t.at(i)
	switch tk.kind {
	case tkIdent:
		return t.word(s, i)
	case tkOp:
		t.operator(s, i)
		return i + 1, nil
	case tkPunct:
		switch tk.val {
		case "(":
			return t.primaryStep(s, i)
		case ",":
			s.add(wordUnit(",", tk.pos))
			if s.orderStart >= 0 {
				s.orderStart = len(s.units)
			}
			s.fromItem = s.clause == "from"
			return i + 1, nil
		}
		return i, t.syntaxErr(i)
	}
	return t.primaryStep(s, i)
}

// primaryStep translates an operand with its postfix forms.
func (t *translator) primaryStep(s *seq, i int) (int, error) {
	u, j, err := t.primary(s, i)
	if err != nil {
		return j, err
	}
	s.add(u)
	return j, nil
}

// primary translates the operand at token i, followed by its postfix
// forms (::type, COLLATE, AT TIME ZONE).
func (t *translator) primary(s *seq, i int) (unit, int, error) {
	u, j, err := t.operand(s, i)
	if err != nil {
		return u, j, err
	}
	return t.postfix(u, j)
}

// operand translates the operand at token i without postfix forms.
func (t *translator) operand(s *seq, i int) (unit, int, error) {
	tk := t.at(i)
	switch tk.kind {
	case tkString:
		if i > 0 && t.at(i-1).kind == tkString {
			// Same-line adjacent strings are an error in PostgreSQL, while
			// TiDB would concatenate them.
			return unit{}, i, t.syntaxErr(i)
		}
		return primaryOf(frag{text: quoteString(tk.val), src: tk.pos}), i + 1, nil
	case tkInt:
		return primaryOf(frag{text: tk.val, src: tk.pos}), i + 1, nil
	case tkNumeric:
		text := tk.val
		if text[0] == '.' {
			text = "0" + text
		}
		return primaryOf(frag{text: text, src: tk.pos}), i + 1, nil
	case tkFloat:
		return castOf(tk.pos, []frag{{text: quoteString(tk.val), src: tk.pos}}, "numeric"), i + 1, nil
	case tkParam:
		n := atoi(tk.val)
		t.numParams = max(t.numParams, n)
		return primaryOf(frag{text: "pg_param(" + tk.val + ")", src: tk.pos}), i + 1, nil
	case tkQIdent:
		return t.identOrCall(i)
	case tkPunct:
		if tk.val == "(" {
			return t.group(i, t.groupMode(s, i))
		}
	case tkIdent:
		if !reserved[tk.val] {
			if u, j, ok := t.typedLiteral(i); ok {
				return u, j, nil
			}
			return t.identOrCall(i)
		}
		return t.keywordOperand(s, i)
	}
	return unit{}, i, t.syntaxErr(i)
}

// keywordOperand translates an operand that starts with a reserved word.
func (t *translator) keywordOperand(s *seq, i int) (unit, int, error) {
	tk := t.at(i)
	next := t.at(i + 1)
	switch v := tk.val; {
	case v == "null" || v == "true" || v == "false" || v == "default":
		return primaryOf(keyword(v, tk.pos)), i + 1, nil
	case sqlValueFunctions[v]:
		if next.isPunct("(") {
			return t.call(i, i)
		}
		return primaryOf(frag{text: v + "()", src: tk.pos}), i + 1, nil
	case v == "cast" && next.isPunct("("):
		return t.cast(i)
	case v == "extract" && next.isPunct("("):
		return t.extract(i)
	case v == "case":
		return t.caseExpr(i)
	case v == "left" || v == "right":
		if next.isPunct("(") {
			return t.call(i, i)
		}
	case (v == "any" || v == "some" || v == "all") && next.isPunct("(") && t.groupMode(s, i+1) != modeQuery:
		// x op ANY (array) → x op pg_any(array); a subquery stays TiDB's.
		marker := map[string]string{"any": "pg_any", "some": "pg_any", "all": "pg_all"}[v]
		return t.marker(marker, tk.pos, i+1)
	case v == "row" && next.isPunct("("):
		return t.marker("pg_row", tk.pos, i+1)
	case (v == "exists" || v == "any" || v == "some" || v == "all") && next.isPunct("("):
		g, j, err := t.group(i+1, t.groupMode(s, i+1))
		if err != nil {
			return g, j, err
		}
		return unit{kind: uPrimary, frags: append([]frag{keyword(v, tk.pos)}, g.frags...)}, j, nil
	case v == "array" && next.isPunct("["):
		return t.arrayBrackets(tk.pos, i+1)
	case v == "array" && next.isPunct("(") && t.groupMode(s, i+1) == modeQuery:
		// ARRAY(query) → pg_array_query((query)).
		g, j, err := t.group(i+1, modeQuery)
		if err != nil {
			return g, j, err
		}
		fs := append([]frag{{text: "pg_array_query(", src: tk.pos}}, g.frags...)
		return unit{kind: uPrimary, frags: append(fs, frag{text: ")", src: t.at(j - 1).pos})}, j, nil
	}
	return unit{}, i, t.syntaxErr(i)
}

// arrayBrackets translates the bracketed list of ARRAY[...] opening at
// token open into pg_array(list), or, when it holds bracketed sub-lists
// (ARRAY[[1,2],[3,4]]), into pg_array of their translations.
func (t *translator) arrayBrackets(src, open int) (unit, int, error) {
	end := t.match[open]
	if !t.at(open + 1).isPunct("[") {
		return t.marker("pg_array", src, open)
	}
	fs := []frag{{text: "pg_array(", src: src}}
	for k := open + 1; ; {
		if !t.at(k).isPunct("[") {
			return unit{}, k, t.syntaxErr(k)
		}
		sub, next, err := t.arrayBrackets(t.at(k).pos, k)
		if err != nil {
			return unit{}, next, err
		}
		if k > open+1 {
			fs = append(fs, frag{text: ",", src: t.at(k - 1).pos, glue: true})
		}
		fs = append(fs, sub.frags...)
		switch {
		case next == end:
			fs = append(fs, frag{text: ")", src: t.at(end).pos})
			return unit{kind: uPrimary, frags: fs}, end + 1, nil
		case t.at(next).isPunct(","):
			k = next + 1
		default:
			return unit{}, next, t.syntaxErr(next)
		}
	}
}

// postfix applies ::type, subscripts, COLLATE, AT TIME ZONE and field
// selection to the operand u, the next token being j.
func (t *translator) postfix(u unit, j int) (unit, int, error) {
	for {
		tk := t.at(j)
		switch {
		case tk.isPunct("::"):
			typ, k, err := t.typeName(j + 1)
			if err != nil {
				return u, k, err
			}
			u, j = castOf(u.frags[0].src, u.frags, typ), k
		case tk.isPunct("["):
			var err error
			if u, j, err = t.subscript(u, j); err != nil {
				return u, j, err
			}
		case tk.is("collate"):
			// streamdb compares strings bytewise (the "C" collation).
			k, err := t.skipName(j + 1)
			if err != nil {
				return u, k, err
			}
			j = k
		case tk.is("at") && t.at(j+1).is("time") && t.at(j+2).is("zone"):
			zone, k, err := t.operand(nil, j+3)
			if err != nil {
				return u, k, err
			}
			if zone, k, err = t.castsOnly(zone, k); err != nil {
				return u, k, err
			}
			fs := append([]frag{{text: "timezone(", src: u.frags[0].src}}, zone.frags...)
			fs = append(fs, frag{text: ",", src: tk.pos, glue: true})
			fs = append(fs, u.frags...)
			u, j = unit{kind: uPrimary, frags: append(fs, frag{text: ")", src: tk.pos})}, k
		case tk.isPunct(".") && u.frags[len(u.frags)-1].text == ")":
			// (x).name → pg_field(x, 'name'); (x).* → pg_field(x, '*').
			name := t.at(j + 1)
			field := name.val
			switch {
			case name.isPunct("*"):
				field = "*"
			case name.kind != tkIdent && name.kind != tkQIdent:
				return u, j + 1, t.syntaxErr(j + 1)
			}
			fs := append([]frag{{text: "pg_field(", src: u.frags[0].src}}, u.frags...)
			fs = append(fs, frag{text: ",", src: tk.pos, glue: true}, frag{text: quoteString(field), src: name.pos}, frag{text: ")", src: name.pos})
			u, j = unit{kind: uPrimary, frags: fs}, j+2
		default:
			return u, j, nil
		}
	}
}

// marker translates the bracketed or parenthesized list opening at token
// open into the marker call name(list).
func (t *translator) marker(name string, src, open int) (unit, int, error) {
	end := t.match[open]
	inner, err := t.translate(open+1, end, modeExpr)
	if err != nil {
		return unit{}, end, err
	}
	fs := append([]frag{{text: name + "(", src: src}}, inner...)
	fs = append(fs, frag{text: ")", src: t.at(end).pos})
	return unit{kind: uPrimary, frags: fs}, end + 1, nil
}

// subscript translates u[i] into pg_subscript(u, i) and the slice u[lo:hi]
// into pg_slice(u, lo, hi), an omitted bound being 1 or 2147483647 (the
// arrays' lower bound is always 1, and slices stop at the upper one).
func (t *translator) subscript(u unit, open int) (unit, int, error) {
	end := t.match[open]
	colon := -1
	for k := open + 1; k < end; k++ {
		if t.match[k] > 0 {
			k = t.match[k]
		} else if t.at(k).isPunct(":") {
			colon = k
			break
		}
	}
	src := t.at(open).pos
	bound := func(lo, hi int, omitted string) ([]frag, error) {
		if lo == hi {
			return []frag{{text: omitted, src: src}}, nil
		}
		return t.translate(lo, hi, modeExpr)
	}
	name, args := "pg_subscript(", [][]frag{u.frags}
	if colon < 0 {
		if end == open+1 {
			return u, end, t.syntaxErr(end)
		}
		i, err := t.translate(open+1, end, modeExpr)
		if err != nil {
			return u, end, err
		}
		args = append(args, i)
	} else {
		lo, err := bound(open+1, colon, "1")
		if err != nil {
			return u, end, err
		}
		hi, err := bound(colon+1, end, "2147483647")
		if err != nil {
			return u, end, err
		}
		name, args = "pg_slice(", append(args, lo, hi)
	}
	fs := []frag{{text: name, src: u.frags[0].src}}
	for k, a := range args {
		if k > 0 {
			fs = append(fs, frag{text: ",", src: src, glue: true})
		}
		fs = append(fs, a...)
	}
	return unit{kind: uPrimary, frags: append(fs, frag{text: ")", src: t.at(end).pos})}, end + 1, nil
}

// castsOnly applies only ::type postfixes (the AT TIME ZONE operand binds
// looser than ::).
func (t *translator) castsOnly(u unit, j int) (unit, int, error) {
	for t.at(j).isPunct("::") {
		typ, k, err := t.typeName(j + 1)
		if err != nil {
			return u, k, err
		}
		u, j = castOf(u.frags[0].src, u.frags, typ), k
	}
	return u, j, nil
}

// skipName skips a possibly qualified name at token i.
func (t *translator) skipName(i int) (int, error) {
	for {
		if k := t.at(i).kind; k != tkIdent && k != tkQIdent {
			return i, t.syntaxErr(i)
		}
		if !t.at(i + 1).isPunct(".") {
			return i + 1, nil
		}
		i += 2
	}
}

// groupMode returns the mode of the parenthesized group at token i.
func (t *translator) groupMode(s *seq, i int) mode {
	j := i + 1
	for t.at(j).isPunct("(") {
		j++
	}
	if tk := t.at(j); tk.is("select") || tk.is("with") || tk.is("values") || tk.is("table") {
		return modeQuery
	}
	if s != nil && s.clause == "window" {
		return modeWindow
	}
	return modeExpr
}

// group translates the parenthesized group at token i.
func (t *translator) group(i int, m mode) (unit, int, error) {
	if m == modeWindow {
		return t.windowSpec(i)
	}
	end := t.match[i]
	inner, err := t.translate(i+1, end, m)
	if err != nil {
		return unit{}, end, err
	}
	fs := append([]frag{{text: "(", src: t.at(i).pos}}, inner...)
	fs = append(fs, frag{text: ")", src: t.at(end).pos})
	return unit{kind: uPrimary, frags: fs}, end + 1, nil
}

// identOrCall translates a possibly qualified identifier, t.*, or a
// function call with its OVER clause.
func (t *translator) identOrCall(i int) (unit, int, error) {
	start := i
	var fs []frag
	for {
		tk := t.at(i)
		if t.at(i + 1).isPunct("(") {
			return t.call(start, i)
		}
		fs = append(fs, identFrag(tk, len(fs) > 0))
		if !t.at(i + 1).isPunct(".") {
			return unit{kind: uPrimary, frags: fs}, i + 1, nil
		}
		fs = append(fs, frag{text: ".", src: t.at(i + 1).pos, glue: true})
		switch n := t.at(i + 2); {
		case n.kind == tkIdent || n.kind == tkQIdent:
			i += 2
		case n.isPunct("*"):
			fs = append(fs, frag{text: "*", src: n.pos, glue: true})
			return unit{kind: uPrimary, frags: fs}, i + 3, nil
		default:
			return unit{}, i + 2, t.syntaxErr(i + 2)
		}
	}
}

// identFrag renders an identifier token backquoted with its final case.
func identFrag(tk token, glue bool) frag {
	return frag{text: "`" + strings.ReplaceAll(tk.val, "`", "``") + "`", src: tk.pos, glue: glue}
}

// call translates the function call whose qualified name spans tokens
// [start, name] and whose argument list opens at name+1.
func (t *translator) call(start, name int) (unit, int, error) {
	var fs []frag
	for k := start; k < name; k += 2 {
		if t.at(k).val != "pg_catalog" || t.at(k).kind != tkIdent {
			fs = append(fs, identFrag(t.at(k), k > start), frag{text: ".", src: t.at(k + 1).pos, glue: true})
		}
	}
	tk := t.at(name)
	fn := tk.val
	if tk.kind == tkQIdent || backquotedFuncs[fn] {
		fn = identFrag(tk, false).text
	}
	first := name + 2
	// agg(DISTINCT args) of an aggregate TiDB does not know becomes
	// pg_distinct(agg(args)).
	distinct := t.at(first).is("distinct") && tk.kind == tkIdent && !tidbDistinctAggs[tk.val]
	if distinct {
		first++
	}
	j := t.match[name+1]
	// agg(args ORDER BY keys) becomes pg_agg_order(agg(args), keys).
	orderBy := t.aggOrderBy(first, j)
	over, filtered := t.at(j+1).is("over"), t.filterAt(j+1)
	if filtered {
		over = t.at(t.match[j+2] + 1).is("over")
	}
	if tk.kind == tkIdent && (windowOnlyFuncs[fn] && filtered || (fn == "first_value" || fn == "last_value") && !over) {
		// RisingWave's aggregates, which TiDB's grammar takes for window
		// functions, and window functions under FILTER (an error the
		// binder reports) go as generic calls.
		fn = identFrag(tk, false).text
	}
	var args []frag
	var keywords bool
	var err error
	switch {
	case tk.kind == tkIdent && fn == "substring":
		args, keywords, err = t.keywordArgs(first, orderBy, 2, "similar", "escape")
	case tk.kind == tkIdent && fn == "overlay":
		args, keywords, err = t.keywordArgs(first, orderBy, 2, "placing", "from", "for")
	}
	// f(x IGNORE NULLS) OVER (...), RisingWave's form, becomes TiDB's
	// f(x) IGNORE NULLS OVER (...).
	argsEnd, nulls := orderBy, ""
	if over && argsEnd-first > 2 && (t.at(argsEnd-2).is("ignore") || t.at(argsEnd-2).is("respect")) && t.at(argsEnd-1).is("nulls") {
		nulls, argsEnd = t.at(argsEnd-2).val, argsEnd-2
	}
	if !keywords && over && (fn == "lag" || fn == "lead") {
		args, keywords, err = t.shiftArgs(first, argsEnd)
	}
	if !keywords {
		args, err = t.translate(first, argsEnd, modeExpr)
	}
	if err != nil {
		return unit{}, name, err
	}
	fs = append(fs, frag{text: fn + "(", src: tk.pos, glue: len(fs) > 0})
	fs = append(fs, args...)
	fs = append(fs, frag{text: ")", src: t.at(j).pos})
	if nulls != "" {
		fs = append(fs, keyword(nulls, t.at(argsEnd).pos), keyword("nulls", t.at(argsEnd+1).pos))
	}
	j++
	if distinct {
		if t.at(j).is("over") {
			return unit{}, j, notSupportedAt(t.src, t.at(j).pos, "DISTINCT is not implemented for window functions")
		}
		fs = append(append([]frag{{text: "pg_distinct(", src: tk.pos}}, fs...), frag{text: ")", src: t.at(j - 1).pos})
	}
	if orderBy < j-1 {
		if t.at(j).is("over") {
			return unit{}, j, notSupportedAt(t.src, t.at(j).pos, "aggregate ORDER BY is not implemented for window functions")
		}
		keys, err := t.aggOrderKeys(orderBy+2, j-1)
		if err != nil {
			return unit{}, j, err
		}
		fs = append(append([]frag{{text: "pg_agg_order(", src: t.at(orderBy).pos}}, fs...), keys...)
		fs = append(fs, frag{text: ")", src: t.at(j - 1).pos})
	}
	if n := t.at(j); n.is("within") && t.at(j+1).is("group") && t.at(j+2).isPunct("(") {
		// agg(args) WITHIN GROUP (ORDER BY keys) → pg_within_group(agg(args), keys).
		switch end := t.match[j+2]; {
		case distinct:
			return unit{}, j, syntaxErrorAt(t.src, n.pos, "cannot use DISTINCT with WITHIN GROUP")
		case orderBy < j-1:
			return unit{}, j, syntaxErrorAt(t.src, n.pos, "cannot use multiple ORDER BY clauses with WITHIN GROUP")
		case !t.at(j+3).is("order") || !t.at(j+4).is("by"):
			return unit{}, j + 3, t.syntaxErr(j + 3)
		default:
			keys, err := t.aggOrderKeys(j+5, end)
			if err != nil {
				return unit{}, j, err
			}
			fs = append(append([]frag{{text: "pg_within_group(", src: n.pos}}, fs...), keys...)
			fs = append(fs, frag{text: ")", src: t.at(end).pos})
			j = end + 1
		}
		if t.at(j).is("over") {
			return unit{}, j, notSupportedAt(t.src, tk.pos, "OVER is not supported for ordered-set aggregate %s", tk.val)
		}
	}
	filtered = t.filterAt(j)
	if n := t.at(j); filtered {
		// agg(...) FILTER (WHERE cond) → pg_filter(agg(...), cond).
		cond, err := t.translate(j+3, t.match[j+1], modeExpr)
		if err != nil {
			return unit{}, j, err
		}
		fs = append([]frag{{text: "pg_filter(", src: n.pos}}, fs...)
		fs = append(append(append(fs, frag{text: ",", src: n.pos, glue: true}), cond...), frag{text: ")", src: t.at(t.match[j+1]).pos})
		j = t.match[j+1] + 1
	}
	if t.at(j).is("over") && (filtered || tk.kind != tkIdent || !tidbWindowFuncs[fn]) {
		// A call TiDB takes no OVER after is carried by a window function.
		fs = append(append([]frag{{text: "first_value(pg_window_agg(", src: tk.pos}}, fs...), frag{text: "))", src: t.at(j - 1).pos})
	}
	switch n := t.at(j); {
	case n.is("over") && t.at(j+1).isPunct("("):
		w, k, err := t.group(j+1, modeWindow)
		if err != nil {
			return w, k, err
		}
		fs = append(append(fs, keyword("over", n.pos)), w.frags...)
		j = k
	case n.is("over") && (t.at(j+1).kind == tkIdent || t.at(j+1).kind == tkQIdent):
		fs = append(fs, keyword("over", n.pos), identFrag(t.at(j+1), false))
		j += 2
	}
	return unit{kind: uPrimary, frags: fs}, j, nil
}

// filterAt reports whether FILTER (WHERE starts at token i.
func (t *translator) filterAt(i int) bool {
	return t.at(i).is("filter") && t.at(i+1).isPunct("(") && t.at(i+2).is("where")
}

var windowOnlyNames = []string{"row_number", "rank", "dense_rank", "cume_dist", "percent_rank",
	"ntile", "lead", "lag", "first_value", "last_value", "nth_value"}

// windowOnlyFuncs are the window functions TiDB's grammar takes only
// with OVER.
var windowOnlyFuncs = wordSet(windowOnlyNames...)

// tidbWindowFuncs are the functions TiDB's grammar takes OVER after and
// the binder reads as PostgreSQL's of the same name.
var tidbWindowFuncs = wordSet(slices.Concat(windowOnlyNames, []string{"count", "sum", "avg",
	"min", "max", "bit_and", "bit_or", "bit_xor", "stddev_pop", "stddev_samp", "var_pop", "var_samp"})...)

// keywordArgs translates the arguments, tokens [lo, hi), of a call whose
// standard syntax separates them by keywords (substring(s SIMILAR p ESCAPE
// e), overlay(s PLACING r FROM n [FOR m])) into a plain argument list;
// the keywords after the first need are optional. ok is false when the
// first keyword is absent: the arguments are another form.
func (t *translator) keywordArgs(lo, hi, need int, words ...string) (fs []frag, ok bool, err error) {
	cuts := []int{lo - 1}
	for k := lo; k < hi && len(cuts) <= len(words); k++ {
		switch {
		case t.match[k] > 0:
			k = t.match[k]
		case t.at(k).is(words[len(cuts)-1]):
			cuts = append(cuts, k)
		}
	}
	switch {
	case len(cuts) == 1:
		return nil, false, nil
	case len(cuts) <= need:
		return nil, true, t.syntaxErr(hi)
	}
	cuts = append(cuts, hi)
	for k := 1; k < len(cuts); k++ {
		from, to := cuts[k-1]+1, cuts[k]
		if from == to {
			return nil, true, t.syntaxErr(to)
		}
		arg, err := t.translate(from, to, modeExpr)
		if err != nil {
			return nil, true, err
		}
		if k > 1 {
			fs = append(fs, frag{text: ",", src: t.at(from - 1).pos, glue: true})
		}
		fs = append(fs, arg...)
	}
	return fs, true, nil
}

// tidbDistinctAggs are the aggregates whose DISTINCT TiDB's grammar takes.
var tidbDistinctAggs = wordSet("count", "sum", "avg", "min", "max")

// backquotedFuncs are PostgreSQL function names TiDB rejects or gives a
// special syntax when bare; backquoted, TiDB parses them as generic calls.
var backquotedFuncs = wordSet("int2", "int4", "int8", "float4", "float8", "numeric",
	"decimal", "text", "bool", "boolean", "varchar", "key", "range", "index", "mode",
	"cardinality", "against", "match", "convert", "div", "date_add", "date_sub", "std",
	"nextval", "lastval", "setval", "stddev", "variance")

// cast translates CAST(expr AS type) at token i into pg_cast(expr, 'type').
func (t *translator) cast(i int) (unit, int, error) {
	open, end := i+1, t.match[i+1]
	as := -1
	for k := open + 1; k < end; k++ {
		if t.match[k] > 0 {
			k = t.match[k]
			continue
		}
		if t.at(k).is("as") {
			as = k
			break
		}
	}
	if as < 0 {
		return unit{}, end, t.syntaxErr(end)
	}
	expr, err := t.translate(open+1, as, modeExpr)
	if err != nil {
		return unit{}, as, err
	}
	typ, k, err := t.typeName(as + 1)
	if err != nil {
		return unit{}, k, err
	}
	if k != end {
		return unit{}, k, t.syntaxErr(k)
	}
	return castOf(t.at(i).pos, expr, typ), end + 1, nil
}

// extract translates EXTRACT(field FROM expr) at token i into
// pg_extract('field', expr), which the binder resolves to the
// extract built-in (TiDB reserves the name extract for its own syntax).
func (t *translator) extract(i int) (unit, int, error) {
	open, end := i+1, t.match[i+1]
	field := t.at(open + 1)
	switch field.kind {
	case tkIdent, tkQIdent, tkString:
	default:
		return unit{}, open + 1, t.syntaxErr(open + 1)
	}
	name := field.val
	if field.kind == tkString {
		name = asciiLower(name)
	}
	if !t.at(open + 2).is("from") {
		return unit{}, open + 2, t.syntaxErr(open + 2)
	}
	expr, err := t.translate(open+3, end, modeExpr)
	if err != nil {
		return unit{}, open + 3, err
	}
	if len(expr) == 0 {
		return unit{}, end, t.syntaxErr(end)
	}
	fs := []frag{{text: "pg_extract(", src: t.at(i).pos}, {text: quoteString(name) + ",", src: field.pos, glue: true}}
	fs = append(fs, expr...)
	fs = append(fs, frag{text: ")", src: t.at(end).pos})
	return unit{kind: uPrimary, frags: fs}, end + 1, nil
}

// caseExpr translates CASE ... END at token i.
func (t *translator) caseExpr(i int) (unit, int, error) {
	end := t.match[i]
	inner, err := t.translate(i+1, end, modeExpr)
	if err != nil {
		return unit{}, i, err
	}
	fs := append([]frag{keyword("case", t.at(i).pos)}, inner...)
	fs = append(fs, keyword("end", t.at(end).pos))
	return unit{kind: uPrimary, frags: fs}, end + 1, nil
}

// typedLiteral translates type 'string' (DATE '...', INTERVAL '1' HOUR,
// int '1', ...) at token i into pg_cast('string', 'type').
func (t *translator) typedLiteral(i int) (unit, int, bool) {
	typ, j, err := t.typeName(i)
	if err != nil || t.at(j).kind != tkString {
		return unit{}, i, false
	}
	str := t.at(j)
	val := str.val
	j++
	if typ == "interval" {
		// The fields and precision go into the type, whose range gives a
		// bare number its unit ('1' year) and drops the fields right of
		// it, as PostgreSQL's interval_in with a typmod.
		if f := t.at(j); f.kind == tkIdent && intervalFields[f.val] {
			typ += " " + f.val
			j++
			if t.at(j).is("to") && t.at(j+1).kind == tkIdent && intervalFields[t.at(j+1).val] {
				typ += " to " + t.at(j+1).val
				j += 2
			}
			if t.at(j).isPunct("(") && t.at(j+1).kind == tkInt && t.at(j+2).isPunct(")") {
				typ += "(" + t.at(j+1).val + ")"
				j += 3
			}
		}
	}
	return castOf(t.at(i).pos, []frag{{text: quoteString(val), src: str.pos}}, typ), j, true
}

// castOf returns pg_cast(expr, 'typ').
func castOf(src int, expr []frag, typ string) unit {
	fs := make([]frag, 0, len(expr)+2)
	fs = append(fs, frag{text: "pg_cast(", src: src})
	fs = append(fs, expr...)
	fs = append(fs, frag{text: ",", src: src, glue: true}, frag{text: quoteString(typ) + ")", src: src})
	return unit{kind: uPrimary, frags: fs}
}

func primaryOf(f frag) unit { return unit{kind: uPrimary, frags: []frag{f}} }

func keyword(w string, src int) frag { return frag{text: strings.ToUpper(w), src: src} }

func wordUnit(w string, src int) unit {
	return unit{kind: uWord, word: w, frags: []frag{keyword(w, src)}}
}

func opUnit(op string, level int, rw rewrite, src, next int) unit {
	return unit{kind: uOp, op: op, level: level, rw: rw, next: next, frags: []frag{{text: op, src: src}}}
}

// operator translates the operator token i.
func (t *translator) operator(s *seq, i int) {
	tk := t.at(i)
	switch tk.val {
	case "=", "<", ">", "<=", ">=", "<>", "!=":
		s.add(opUnit(tk.val, lvlCmp, rwNone, tk.pos, i+1))
	case "+", "-":
		s.add(opUnit(tk.val, lvlAdd, rwNone, tk.pos, i+1))
	case "*":
		if s.last().kind == uPrimary {
			s.add(opUnit("*", lvlMul, rwNone, tk.pos, i+1))
		} else {
			s.add(primaryOf(frag{text: "*", src: tk.pos}))
		}
	case "/", "%":
		s.add(opUnit(tk.val, lvlMul, rwNone, tk.pos, i+1))
	case "^":
		s.add(opUnit("^", lvlExp, rwNone, tk.pos, i+1))
	case "~~", "!~~", "~~*", "!~~*":
		like := map[string]string{"~~": "LIKE", "!~~": "NOT LIKE", "~~*": "ILIKE", "!~~*": "NOT ILIKE"}[tk.val]
		u := opUnit(tk.val, lvlOther, rwLike, tk.pos, i+1)
		u.op = like
		s.add(u)
	default:
		s.add(opUnit(tk.val, lvlOther, rwPgOp, tk.pos, i+1))
	}
}

// windowSpec translates the window specification in parentheses at token
// i. RisingWave's session frame SESSION WITH GAP g, which TiDB's grammar
// lacks, becomes RANGE BETWEEN pg_session_gap(g) PRECEDING AND
// pg_session_gap(g) FOLLOWING, each offset a side expression, which the
// binder reads back as the session frame.
func (t *translator) windowSpec(i int) (unit, int, error) {
	end := t.match[i]
	k := t.topLevel(i+1, end, func(k int) bool {
		return t.at(k).is("session") && t.at(k+1).is("with") && t.at(k+2).is("gap")
	})
	inner, err := t.windowFrame(i+1, k)
	if err != nil {
		return unit{}, end, err
	}
	fs := append([]frag{{text: "(", src: t.at(i).pos}}, inner...)
	if k == end {
		return unit{kind: uPrimary, frags: append(fs, frag{text: ")", src: t.at(end).pos})}, end + 1, nil
	}
	if k+3 == end {
		return unit{}, end, t.syntaxErr(end)
	}
	gap, err := t.translate(k+3, end, modeExpr)
	if err != nil {
		return unit{}, end, err
	}
	src := t.at(k).pos
	offset := func() []frag {
		return t.side(append(append([]frag{{text: "pg_session_gap(", src: src}}, gap...), frag{text: ")", src: src}), src)
	}
	fs = append(fs, keyword("range", src), keyword("between", src))
	fs = append(append(fs, offset()...), keyword("preceding", src), keyword("and", src))
	fs = append(append(fs, offset()...), keyword("following", src), frag{text: ")", src: t.at(end).pos})
	return unit{kind: uPrimary, frags: fs}, end + 1, nil
}

// shiftArgs translates the arguments, tokens [lo, hi), of a lag or lead
// call whose offset is not an integer literal, the only offset TiDB's
// grammar takes besides a marker: the offset becomes a side expression.
// ok is false when the call needs no change.
func (t *translator) shiftArgs(lo, hi int) (args []frag, ok bool, err error) {
	comma := func(i int) bool { return t.at(i).isPunct(",") }
	c1 := t.topLevel(lo, hi, comma)
	if c1 == hi {
		return nil, false, nil
	}
	c2 := t.topLevel(c1+1, hi, comma)
	if c2 == c1+2 && t.at(c1+1).kind == tkInt {
		return nil, false, nil
	}
	if args, err = t.translate(lo, c1, modeExpr); err != nil {
		return nil, false, err
	}
	off, err := t.translate(c1+1, c2, modeExpr)
	if err != nil {
		return nil, false, err
	}
	args = append(append(args, frag{text: ",", src: t.at(c1).pos, glue: true}), t.side(off, t.at(c1+1).pos)...)
	if c2 < hi {
		rest, err := t.translate(c2+1, hi, modeExpr)
		if err != nil {
			return nil, false, err
		}
		args = append(append(args, frag{text: ",", src: t.at(c2).pos, glue: true}), rest...)
	}
	return args, true, nil
}
