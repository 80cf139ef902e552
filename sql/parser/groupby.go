package parser

// groupByEnds are the words that end a GROUP BY list.
var groupByEnds = wordSet("having", "window", "order", "limit", "offset", "fetch",
	"union", "intersect", "except", "for", "returning")

// groupBy translates the GROUP BY list after BY (token i) up to the end of
// the clause. Plain expressions stay; GROUPING SETS, ROLLUP, CUBE, the
// empty set () and parenthesized lists become the markers the package doc
// describes, and GROUP BY DISTINCT wraps the list in pg_group_distinct.
func (t *translator) groupBy(s *seq, i int) (int, error) {
	end := t.topLevel(i+1, len(t.toks)-1, func(k int) bool {
		tk := t.at(k)
		return tk.isPunct(")") || tk.isPunct(";") || tk.kind == tkIdent && groupByEnds[tk.val]
	})
	s.add(wordUnit("by", t.at(i).pos))
	j := i + 1
	distinct := t.at(j).is("distinct")
	if distinct || t.at(j).is("all") {
		j++
	}
	fs, err := t.groupingElements(j, end, true)
	if err != nil {
		return end, err
	}
	if distinct {
		fs = wrapCall("pg_group_distinct", t.at(j-1).pos, fs)
	}
	s.add(unit{kind: uPrimary, frags: fs})
	return end, nil
}

// groupingElements translates the comma-separated grouping elements in
// [lo, hi), separated by words (top: the GROUP BY list, whose commas the
// query's text keeps) or by glued commas (inside a marker).
func (t *translator) groupingElements(lo, hi int, top bool) ([]frag, error) {
	if lo == hi {
		return nil, t.syntaxErr(hi)
	}
	var fs []frag
	for lo <= hi {
		end := t.topLevel(lo, hi, func(k int) bool { return t.at(k).isPunct(",") })
		if end == lo {
			return nil, t.syntaxErr(end)
		}
		if len(fs) > 0 {
			fs = append(fs, frag{text: ",", src: t.at(lo - 1).pos, glue: !top})
		}
		e, err := t.groupingElement(lo, end)
		if err != nil {
			return nil, err
		}
		fs = append(fs, e...)
		lo = end + 1
	}
	return fs, nil
}

// groupingElement translates one grouping element spanning [lo, hi).
func (t *translator) groupingElement(lo, hi int) ([]frag, error) {
	tk := t.at(lo)
	switch {
	case tk.kind == tkIdent && (tk.val == "rollup" || tk.val == "cube") && t.spans(lo+1, hi):
		return t.groupingList("pg_"+tk.val, lo+1)
	case tk.is("grouping") && t.at(lo+1).is("sets") && t.spans(lo+2, hi):
		open := lo + 2
		inner, err := t.groupingElements(open+1, t.match[open], false)
		if err != nil {
			return nil, err
		}
		return wrapCall("pg_grouping_sets", tk.pos, inner), nil
	case t.spans(lo, hi) && t.groupMode(nil, lo) == modeExpr && t.isList(lo):
		return t.groupingList("pg_set", lo)
	}
	return t.translate(lo, hi, modeExpr)
}

// groupingList translates the parenthesized list opening at token open,
// each item an expression or a parenthesized list of them, into
// name(items), a list becoming pg_set(expressions).
func (t *translator) groupingList(name string, open int) ([]frag, error) {
	end := t.match[open]
	if name != "pg_set" && end == open+1 {
		return nil, t.syntaxErr(end)
	}
	var fs []frag
	for lo := open + 1; lo < end; {
		k := t.topLevel(lo, end, func(k int) bool { return t.at(k).isPunct(",") })
		if k == lo || k == end-1 && t.at(k).isPunct(",") {
			return nil, t.syntaxErr(k + 1)
		}
		if len(fs) > 0 {
			fs = append(fs, frag{text: ",", src: t.at(lo - 1).pos, glue: true})
		}
		var item []frag
		var err error
		switch {
		case name == "pg_set" || !t.spans(lo, k):
			item, err = t.translate(lo, k, modeExpr)
		case k == lo+2:
			return nil, t.syntaxErr(lo + 1) // () is no ROLLUP or CUBE item
		case t.groupMode(nil, lo) == modeExpr && t.isList(lo):
			item, err = t.groupingList("pg_set", lo)
		default:
			item, err = t.translate(lo, k, modeExpr)
		}
		if err != nil {
			return nil, err
		}
		fs = append(fs, item...)
		lo = k + 1
	}
	return wrapCall(name, t.at(open).pos, fs), nil
}

// spans reports whether the bracket opening at token open closes at hi-1.
func (t *translator) spans(open, hi int) bool {
	return t.at(open).isPunct("(") && t.match[open] == hi-1
}

// isList reports whether the parentheses opening at token open hold a
// list: nothing, or expressions separated by top-level commas.
func (t *translator) isList(open int) bool {
	end := t.match[open]
	return t.topLevel(open+1, end, func(k int) bool { return t.at(k).isPunct(",") }) < end || end == open+1
}
