package parser

// windowFrame translates the tokens [lo, hi) of a window specification.
// A frame's EXCLUDE clause, which TiDB's grammar lacks, moves into the
// frame's end bound, which becomes pg_frame_exclude('what', 'bound' [,
// offset]) FOLLOWING, a side expression: what is current row, group or
// ties; bound is current row, unbounded preceding, unbounded following,
// preceding or following (these two with the offset). A frame with only a
// start bound gets BETWEEN and the end CURRENT ROW. EXCLUDE NO OTHERS is
// dropped.
func (t *translator) windowFrame(lo, hi int) ([]frag, error) {
	x := t.topLevel(lo, hi, func(k int) bool { return t.at(k).is("exclude") })
	if x == hi {
		return t.translate(lo, hi, modeWindow)
	}
	what, err := t.exclusion(x+1, hi)
	if err != nil {
		return nil, err
	}
	if what == "" {
		return t.translate(lo, x, modeWindow)
	}
	m := -1
	for k := lo; k < x; k++ {
		if t.match[k] > 0 {
			k = t.match[k]
		} else if tk := t.at(k); tk.is("rows") || tk.is("range") || tk.is("groups") {
			m = k
		}
	}
	if m < 0 || m+1 == x {
		return nil, t.syntaxErr(x)
	}
	var fs []frag
	end := x // the end bound is [end, x)
	if t.at(m + 1).is("between") {
		end = t.topLevel(m+2, x, func(k int) bool { return t.at(k).is("and") })
		if end == x {
			return nil, t.syntaxErr(x)
		}
		if fs, err = t.translate(lo, end, modeWindow); err != nil {
			return nil, err
		}
		end++
	} else {
		if fs, err = t.translate(lo, m+1, modeWindow); err != nil {
			return nil, err
		}
		start, err := t.translate(m+1, x, modeWindow)
		if err != nil {
			return nil, err
		}
		fs = append(append(fs, keyword("between", t.at(m+1).pos)), start...)
	}
	src := t.at(x).pos
	bound, err := t.frameEnd(end, x, what)
	if err != nil {
		return nil, err
	}
	fs = append(append(fs, keyword("and", src)), t.side(bound, src)...)
	return append(fs, keyword("following", src)), nil
}

// exclusion reads the words after EXCLUDE, tokens [lo, hi): "current
// row", "group", "ties", or "" for NO OTHERS.
func (t *translator) exclusion(lo, hi int) (string, error) {
	words := map[string][]string{"current": {"row"}, "group": nil, "ties": nil, "no": {"others"}}
	rest, ok := words[t.at(lo).val]
	if lo == hi || !ok || t.at(lo).kind != tkIdent {
		return "", t.syntaxErr(lo)
	}
	for k, w := range rest {
		if lo+1+k == hi || !t.at(lo+1+k).is(w) {
			return "", t.syntaxErr(lo + 1 + k)
		}
	}
	if k := lo + 1 + len(rest); k < hi {
		return "", t.syntaxErr(k)
	}
	switch v := t.at(lo).val; v {
	case "current":
		return "current row", nil
	case "no":
		return "", nil
	default:
		return v, nil
	}
}

// frameEnd returns the pg_frame_exclude call of the frame end bound in
// tokens [lo, hi) (CURRENT ROW when there are none) excluding what.
func (t *translator) frameEnd(lo, hi int, what string) ([]frag, error) {
	src := t.at(hi).pos
	call := func(bound string, offset ...frag) []frag {
		fs := []frag{{text: "pg_frame_exclude(" + quoteString(what) + ", " + quoteString(bound), src: src}}
		if len(offset) > 0 {
			fs = append(append(fs, frag{text: ",", src: src, glue: true}), offset...)
		}
		return append(fs, frag{text: ")", src: src})
	}
	last := t.at(hi - 1)
	switch {
	case lo == hi:
		return call("current row"), nil
	case hi-lo == 2 && t.at(lo).is("current") && last.is("row"),
		hi-lo == 2 && t.at(lo).is("unbounded") && (last.is("preceding") || last.is("following")):
		return call(t.at(lo).val + " " + last.val), nil
	case hi-lo > 1 && (last.is("preceding") || last.is("following")):
		off, err := t.translate(lo, hi-1, modeExpr)
		if err != nil {
			return nil, err
		}
		return call(last.val, off...), nil
	}
	return nil, t.syntaxErr(hi - 1)
}
