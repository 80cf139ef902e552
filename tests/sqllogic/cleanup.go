package sqllogic

import (
	"regexp"
	"strings"
)

// object is a schema object a test file created, to be dropped after it.
type object struct {
	kind string // TABLE, VIEW, MATERIALIZED VIEW, SOURCE, INDEX or SINK
	name string // as written in the CREATE statement, possibly qualified or quoted
}

const ident = `(?:"(?:[^"]|"")+"|[\pL_][\pL\pN_$]*)`

var createPattern = regexp.MustCompile(`(?is)^create\s+(?:or\s+replace\s+)?(?:(?:temp|temporary|unique|unlogged)\s+)*` +
	`(table|view|materialized\s+view|source|index|sink)\s+(?:concurrently\s+)?(?:if\s+not\s+exists\s+)?` +
	`(` + ident + `(?:\s*\.\s*` + ident + `)*)`)

var aroundDot = regexp.MustCompile(`\s*\.\s*`)

// createdObjects returns the objects the CREATE statements in sql make.
// Statements are split at every ';', which is good enough to find names.
func createdObjects(sql string) []object {
	var out []object
	for _, stmt := range strings.Split(sql, ";") {
		m := createPattern.FindStringSubmatch(stripComments(stmt))
		if m == nil {
			continue
		}
		kind := strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
		name := aroundDot.ReplaceAllString(m[2], ".")
		if kind == "INDEX" && strings.EqualFold(name, "on") { // CREATE INDEX ON t(...)
			continue
		}
		out = append(out, object{kind: kind, name: name})
	}
	return out
}

// stripComments removes leading whitespace and "--" comment lines.
func stripComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		if !strings.HasPrefix(s, "--") {
			return s
		}
		_, s, _ = strings.Cut(s, "\n")
	}
}

// objects lists created objects in creation order, each at most once.
type objects []object

// add records o as created now.
func (objs *objects) add(o object) {
	for i, x := range *objs {
		if x.kind == o.kind && strings.EqualFold(x.name, o.name) {
			*objs = append((*objs)[:i], (*objs)[i+1:]...)
			break
		}
	}
	*objs = append(*objs, o)
}

// drops returns the statements that drop the objects, newest first.
func (objs objects) drops() []string {
	out := make([]string, 0, len(objs))
	for i := len(objs) - 1; i >= 0; i-- {
		out = append(out, "DROP "+objs[i].kind+" IF EXISTS "+objs[i].name)
	}
	return out
}
