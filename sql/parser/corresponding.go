package parser

import "strings"

// corresponding translates CORRESPONDING [BY (columns)] at token i, after
// the set operator op (union, intersect or except), and the right operand
// that follows into SELECT pg_corresponding('column', ...) FROM
// (operand) AS pg_corresponding.
func (t *translator) corresponding(s *seq, op string, i int) (int, error) {
	kw := t.at(i)
	names := []string{}
	j := i + 1
	if t.at(j).is("by") {
		if !t.at(j + 1).isPunct("(") {
			return j + 1, t.syntaxErr(j + 1)
		}
		end := t.match[j+1]
		for k := j + 2; k < end; k += 2 {
			name := t.at(k)
			if name.kind != tkIdent && name.kind != tkQIdent {
				return k, t.syntaxErr(k)
			}
			names = append(names, quoteString(name.val))
			if sep := t.at(k + 1); k+1 < end && !sep.isPunct(",") {
				return k + 1, t.syntaxErr(k + 1)
			}
		}
		if len(names) == 0 {
			return end, t.syntaxErr(end)
		}
		j = end + 1
	}
	// The operand runs to the next set operator that does not bind
	// tighter (INTERSECT binds tighter than UNION and EXCEPT), or to the
	// ORDER BY, LIMIT, ... of the whole query.
	end := t.topLevel(j, len(t.toks)-1, func(k int) bool {
		tk := t.at(k)
		switch {
		case tk.isPunct(")"), tk.isPunct(";"), tk.is("union"), tk.is("except"):
			return true
		case tk.is("intersect"):
			return op == "intersect"
		}
		return tk.is("order") || tk.is("limit") || tk.is("offset") || tk.is("fetch")
	})
	if end == j {
		return j, t.syntaxErr(j)
	}
	inner, err := t.translate(j, end, modeQuery)
	if err != nil {
		return j, err
	}
	fs := []frag{{text: "SELECT pg_corresponding(" + strings.Join(names, ", ") + ") FROM (", src: kw.pos}}
	fs = append(append(fs, inner...), frag{text: ") AS pg_corresponding", src: kw.pos})
	s.add(unit{kind: uPrimary, frags: fs})
	return end, nil
}
