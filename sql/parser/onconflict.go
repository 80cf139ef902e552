package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// onConflict translates INSERT's ON CONFLICT [(col, ...)] DO NOTHING at
// token i (ON) into the TiDB form ON DUPLICATE KEY UPDATE
// pg_on_conflict = pg_conflict_do_nothing(col, ...), and ON CONFLICT
// (col, ...) DO UPDATE SET a = x, ... into ON DUPLICATE KEY UPDATE
// pg_on_conflict = pg_conflict_do_update(col, ...), a = x, ...;
// the binder reads the marker back. ON CONSTRAINT is refused.
func (t *translator) onConflict(s *seq, i int) (int, error) {
	on := t.at(i)
	j := i + 2
	var cols []string
	if t.at(j).isPunct("(") {
		end := t.match[j]
		for k := j + 1; k < end; k += 2 {
			name := t.at(k)
			if name.kind != tkIdent && name.kind != tkQIdent {
				return k, t.syntaxErr(k)
			}
			cols = append(cols, identFrag(name, false).text)
			if sep := t.at(k + 1); k+1 < end && !sep.isPunct(",") {
				return k + 1, t.syntaxErr(k + 1)
			}
		}
		j = end + 1
	} else if t.at(j).is("on") {
		return j, notSupportedAt(t.src, t.at(j).pos, "ON CONFLICT ON CONSTRAINT is not supported").WithHint("name the key columns: ON CONFLICT (col, ...)")
	}
	if !t.at(j).is("do") {
		return j, t.syntaxErr(j)
	}
	switch k := j + 1; {
	case t.at(k).is("nothing"):
		s.add(unit{kind: uWord, word: "on", frags: []frag{{
			text: "ON DUPLICATE KEY UPDATE pg_on_conflict = pg_conflict_do_nothing(" + strings.Join(cols, ", ") + ")", src: on.pos}}})
		return k + 1, nil
	case t.at(k).is("update") && t.at(k+1).is("set"):
		if len(cols) == 0 {
			return k, pgerror.New(pgerror.CodeSyntaxError, "ON CONFLICT DO UPDATE requires inference specification or constraint name").
				WithHint("For example, ON CONFLICT (column_name).").WithPosition(charPos(t.src, on.pos))
		}
		// The assignments follow as TiDB's, after the marker.
		s.add(unit{kind: uWord, word: "on", frags: []frag{{
			text: "ON DUPLICATE KEY UPDATE pg_on_conflict = pg_conflict_do_update(" + strings.Join(cols, ", ") + "),", src: on.pos}}})
		return k + 2, nil
	}
	return j + 1, t.syntaxErr(j + 1)
}
