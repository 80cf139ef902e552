package parser

// havingFirst moves the HAVING clause of each SELECT without FROM in the
// query units us to right after the select list: TiDB's grammar takes it
// only there (SELECT list HAVING cond WHERE cond GROUP BY list), while
// PostgreSQL's comes after WHERE and GROUP BY. HAVING before WHERE or
// GROUP BY, which TiDB would take there, is PostgreSQL's syntax error.
func (t *translator) havingFirst(us []unit) ([]unit, error) {
	for lo := 0; lo < len(us); lo++ {
		if !us[lo].isWord("select") {
			continue
		}
		hi := lo + 1
		for hi < len(us) && !us[hi].isWord("union") && !us[hi].isWord("intersect") && !us[hi].isWord("except") {
			hi++
		}
		block, err := t.blockHavingFirst(us[lo:hi])
		if err != nil {
			return nil, err
		}
		copy(us[lo:hi], block)
		lo = hi
	}
	return us, nil
}

// blockHavingFirst reorders one SELECT block (see havingFirst).
func (t *translator) blockHavingFirst(us []unit) ([]unit, error) {
	listEnd, having, havingEnd := -1, -1, len(us)
	for i, u := range us {
		switch {
		case u.isWord("from"):
			return us, nil
		case u.isWord("where") || u.isWord("group"):
			if having >= 0 {
				return nil, t.syntaxErrAt(u.frags[0].src)
			}
			if listEnd < 0 {
				listEnd = i
			}
		case u.isWord("having"):
			having = i
		case having >= 0 && havingEnd == len(us) &&
			(u.isWord("window") || u.isWord("order") || u.isWord("limit") || u.isWord("for") || u.isWord("into")):
			havingEnd = i
		}
	}
	if listEnd < 0 || having < 0 {
		return us, nil
	}
	out := make([]unit, 0, len(us))
	out = append(out, us[:listEnd]...)
	out = append(out, us[having:havingEnd]...)
	out = append(out, us[listEnd:having]...)
	return append(out, us[havingEnd:]...), nil
}
