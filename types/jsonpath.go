package types

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// JSONPath is a parsed SQL/JSON path of the subset streamdb evaluates:
// lax (the default) or strict mode, the root $ and the accessors .key,
// ."key", .*, [*], [i], [last], [last - i], [i to j] and lists of
// subscripts. Filters, item methods, arithmetic and variables are 0A000.
type JSONPath struct {
	strict bool
	steps  []pathStep
}

// pathStep is one accessor: a member (key), any member (anyMember), any
// element (anyElem) or subscripts.
type pathStep struct {
	key       string
	anyMember bool
	anyElem   bool
	subs      []pathRange
}

// pathRange is the subscript from (to to, inclusive).
type pathRange struct{ from, to pathIndex }

// pathIndex is i, or last - i when fromLast.
type pathIndex struct {
	fromLast bool
	i        int
}

func (x pathIndex) resolve(n int) int {
	if x.fromLast {
		return n - 1 - x.i
	}
	return x.i
}

func errPathSyntax(at string) error {
	if at == "" {
		return pgerror.New(pgerror.CodeSyntaxError, "syntax error at end of jsonpath input")
	}
	return pgerror.New(pgerror.CodeSyntaxError, "syntax error at or near %q of jsonpath input", at)
}

func errPathFeature(what string) error {
	return pgerror.New(pgerror.CodeFeatureNotSupported, "jsonpath %s are not supported", what).
		WithHint("streamdb evaluates paths of accessors: $.key, .\"key\", .*, [*], [n], [last], [n to m].")
}

// ParseJSONPath parses a path.
func ParseJSONPath(s string) (JSONPath, error) {
	var p JSONPath
	rest := strings.TrimSpace(s)
	if word, after, ok := strings.Cut(rest, " "); ok && (word == "strict" || word == "lax") {
		p.strict, rest = word == "strict", strings.TrimSpace(after)
	}
	if !strings.HasPrefix(rest, "$") {
		if strings.HasPrefix(rest, "@") {
			return p, pgerror.New(pgerror.CodeSyntaxError, "@ is not allowed in root expressions")
		}
		return p, errPathSyntax(rest)
	}
	rest = rest[1:]
	if rest != "" && (isPathIdentChar(rest[0]) || rest[0] == '"') {
		return p, errPathFeature("variables")
	}
	for {
		rest = strings.TrimLeft(rest, " \t\n")
		if rest == "" {
			return p, nil
		}
		var step pathStep
		var err error
		switch rest[0] {
		case '.':
			step, rest, err = parseMember(rest[1:])
		case '[':
			step, rest, err = parseSubscripts(rest[1:])
		case '?':
			return p, errPathFeature("filter expressions")
		case '+', '-', '*', '/', '%', '=', '<', '>', '!', '&', '|':
			return p, errPathFeature("operators")
		default:
			return p, errPathSyntax(rest)
		}
		if err != nil {
			return p, err
		}
		p.steps = append(p.steps, step)
	}
}

func isPathIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// parseMember parses what follows a '.': *, "key" or key.
func parseMember(s string) (pathStep, string, error) {
	switch {
	case strings.HasPrefix(s, "*"):
		return pathStep{anyMember: true}, s[1:], nil
	case strings.HasPrefix(s, `"`):
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return pathStep{}, s, errPathSyntax(s)
		}
		key, _ := strconv.Unquote(q)
		return pathStep{key: key}, s[len(q):], nil
	}
	n := 0
	for n < len(s) && isPathIdentChar(s[n]) {
		n++
	}
	if n == 0 {
		return pathStep{}, s, errPathSyntax(s)
	}
	if strings.HasPrefix(s[n:], "(") {
		return pathStep{}, s, errPathFeature("item methods")
	}
	return pathStep{key: s[:n]}, s[n:], nil
}

// parseSubscripts parses what follows a '[': * or subscripts, up to ']'.
func parseSubscripts(s string) (pathStep, string, error) {
	s = strings.TrimLeft(s, " ")
	if strings.HasPrefix(s, "*") {
		s = strings.TrimLeft(s[1:], " ")
		if !strings.HasPrefix(s, "]") {
			return pathStep{}, s, errPathSyntax(s)
		}
		return pathStep{anyElem: true}, s[1:], nil
	}
	var step pathStep
	for {
		from, rest, err := parseIndex(s)
		if err != nil {
			return step, s, err
		}
		r := pathRange{from: from, to: from}
		rest = strings.TrimLeft(rest, " ")
		if strings.HasPrefix(rest, "to ") {
			if r.to, rest, err = parseIndex(rest[3:]); err != nil {
				return step, rest, err
			}
			rest = strings.TrimLeft(rest, " ")
		}
		step.subs = append(step.subs, r)
		switch {
		case strings.HasPrefix(rest, ","):
			s = rest[1:]
		case strings.HasPrefix(rest, "]"):
			return step, rest[1:], nil
		default:
			return step, rest, errPathSyntax(rest)
		}
	}
}

// parseIndex parses a subscript: a number (truncated to an integer), last,
// or last - number.
func parseIndex(s string) (pathIndex, string, error) {
	s = strings.TrimLeft(s, " ")
	var x pathIndex
	if strings.HasPrefix(s, "last") {
		x.fromLast, s = true, strings.TrimLeft(s[4:], " ")
		if !strings.HasPrefix(s, "-") {
			return x, s, nil
		}
		s = strings.TrimLeft(s[1:], " ")
	}
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.' || n == 0 && s[n] == '-' && !x.fromLast) {
		n++
	}
	f, err := strconv.ParseFloat(s[:n], 64)
	if n == 0 || err != nil {
		return x, s, errPathSyntax(s)
	}
	x.i = int(f)
	return x, s[n:], nil
}

// Query evaluates the path over j and returns the items it selects, in
// order; in strict mode a structural mismatch is an error (lax mode
// unwraps arrays and skips mismatches, as PostgreSQL does).
func (p JSONPath) Query(j JSON) ([]JSON, error) {
	items := []JSON{j}
	for _, step := range p.steps {
		var next []JSON
		for _, it := range items {
			var err error
			if next, err = p.apply(step, it, next, true); err != nil {
				return nil, err
			}
		}
		items = next
	}
	return items, nil
}

// apply appends to out what step selects of it; unwrap allows lax mode's
// unwrapping of an array for a member accessor (once).
func (p JSONPath) apply(step pathStep, it JSON, out []JSON, unwrap bool) ([]JSON, error) {
	switch {
	case step.key != "" || step.anyMember:
		if !it.IsObject() {
			if it.IsArray() && !p.strict && unwrap {
				for _, e := range it.Elems() {
					var err error
					if out, err = p.apply(step, e, out, false); err != nil {
						return nil, err
					}
				}
				return out, nil
			}
			if !p.strict {
				return out, nil
			}
			if step.anyMember {
				return nil, pgerror.New("2203C", "jsonpath wildcard member accessor can only be applied to an object")
			}
			return nil, pgerror.New("2203A", "jsonpath member accessor can only be applied to an object")
		}
		if step.anyMember {
			for _, k := range it.Keys() {
				v, _ := it.Field(k)
				out = append(out, v)
			}
			return out, nil
		}
		v, ok := it.Field(step.key)
		if !ok {
			if p.strict {
				return nil, pgerror.New("2203A", "JSON object does not contain key %q", step.key)
			}
			return out, nil
		}
		return append(out, v), nil
	case step.anyElem:
		if !it.IsArray() {
			if p.strict {
				return nil, pgerror.New("22039", "jsonpath wildcard array accessor can only be applied to an array")
			}
			return append(out, it), nil
		}
		return append(out, it.Elems()...), nil
	}
	elems := []JSON{it}
	if it.IsArray() {
		elems = it.Elems()
	} else if p.strict {
		return nil, pgerror.New("22039", "jsonpath array accessor can only be applied to an array")
	}
	for _, r := range step.subs {
		from, to := r.from.resolve(len(elems)), r.to.resolve(len(elems))
		if from < 0 || to >= len(elems) || from > to {
			if p.strict {
				return nil, pgerror.New("22033", "jsonpath array subscript is out of bounds")
			}
			from, to = max(from, 0), min(to, len(elems)-1)
		}
		for i := from; i <= to; i++ {
			out = append(out, elems[i])
		}
	}
	return out, nil
}
