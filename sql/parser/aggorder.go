package parser

// topLevel returns the index of the first token in [lo, hi) outside
// brackets and CASE for which match holds, or hi.
func (t *translator) topLevel(lo, hi int, match func(i int) bool) int {
	for k := lo; k < hi; k++ {
		if t.match[k] > 0 {
			k = t.match[k]
			continue
		}
		if match(k) {
			return k
		}
	}
	return hi
}

// aggOrderBy finds ORDER BY inside the argument list [lo, hi) of a call:
// it returns the index of ORDER (hi when absent).
func (t *translator) aggOrderBy(lo, hi int) int {
	return t.topLevel(lo, hi, func(i int) bool { return t.at(i).is("order") && t.at(i+1).is("by") })
}

// aggOrderKeys translates the items of an aggregate's ORDER BY in [lo,
// hi): each is expr, pg_desc(expr) when DESC, wrapped in pg_nulls_first or
// pg_nulls_last when NULLS FIRST|LAST is given.
func (t *translator) aggOrderKeys(lo, hi int) ([]frag, error) {
	if lo == hi {
		return nil, t.syntaxErr(hi)
	}
	var fs []frag
	for lo < hi {
		end := t.topLevel(lo, hi, func(i int) bool { return t.at(i).isPunct(",") })
		e := end
		nulls := ""
		if e-lo > 2 && t.at(e-2).is("nulls") && (t.at(e-1).is("first") || t.at(e-1).is("last")) {
			nulls, e = t.at(e-1).val, e-2
		}
		desc := e-lo > 1 && t.at(e-1).is("desc")
		if desc || e-lo > 1 && t.at(e-1).is("asc") {
			e--
		}
		if e == lo {
			return nil, t.syntaxErr(e)
		}
		key, err := t.translate(lo, e, modeExpr)
		if err != nil {
			return nil, err
		}
		src := t.at(lo).pos
		if desc {
			key = wrapCall("pg_desc", src, key)
		}
		if nulls != "" {
			key = wrapCall("pg_nulls_"+nulls, src, key)
		}
		fs = append(append(fs, frag{text: ",", src: src, glue: true}), key...)
		lo = end + 1
		if end == hi-1 {
			return nil, t.syntaxErr(hi)
		}
	}
	return fs, nil
}

// wrapCall returns name(inner).
func wrapCall(name string, src int, inner []frag) []frag {
	fs := append([]frag{{text: name + "(", src: src}}, inner...)
	return append(fs, frag{text: ")", src: src})
}
