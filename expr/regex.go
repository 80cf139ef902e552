package expr

import (
	"regexp"
	"regexp/syntax"
	"sync"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// RegexMatch is PostgreSQL's ~, ~*, !~ and !~* on text. Patterns are Go
// (RE2) regular expressions run with PostgreSQL's flags (see compileRegex),
// which agree with PostgreSQL's for the common syntax; back-references and
// lookaround are not supported.
type RegexMatch struct {
	Op   string
	L, R Expr
	re   *regexp.Regexp // compiled at construction when R is constant
}

// NewRegexMatch returns a regular-expression match operator. A constant
// pattern, or similar_to_escape of constants (x SIMILAR TO 'pattern'), is
// compiled once here; similar_to_escape's errors come here too, as from
// PostgreSQL's constant folding, while a pattern's come at the first row.
func NewRegexMatch(op string, l, r Expr) (Expr, error) {
	if !l.Type().IsString() || !r.Type().IsString() {
		return nil, undefinedOperator(op, l.Type(), r.Type())
	}
	if f, ok := r.(*Func); ok && f.Name == "similar_to_escape" && allConst(f.Args) {
		v, err := f.Eval(nil, nil)
		if err != nil {
			return nil, err
		}
		r = NewConst(v, f.T)
	}
	e := &RegexMatch{Op: op, L: l, R: r}
	if c, ok := r.(*Const); ok && !c.V.IsNull() {
		e.re, _ = compileRegex(c.V.Str(), e.flags())
	}
	return e, nil
}

// allConst reports whether every expression of es is a constant.
func allConst(es []Expr) bool {
	for _, e := range es {
		if _, ok := e.(*Const); !ok {
			return false
		}
	}
	return true
}

// flags are the regular expression flags of the operator.
func (e *RegexMatch) flags() string {
	if e.Op == "~*" || e.Op == "!~*" {
		return "i"
	}
	return ""
}

// regexCache holds compiled patterns by flags and pattern; patterns are
// usually constants.
var regexCache sync.Map

type regexKey struct{ pattern, flags string }

// compileRegex compiles a PostgreSQL pattern with PostgreSQL's option
// letters (regexp_match's flags): i and c turn case sensitivity on and off;
// by default (s) . matches a newline and ^ and $ only the ends of the text;
// n (or m) makes the text a set of lines for both, p for . only and w for ^
// and $ only (bracket expressions still match newlines); q takes the
// pattern literally. As in PostgreSQL, a match is the longest at its start
// unless the pattern has a non-greedy quantifier (Go's leftmost-longest
// then, leftmost-first otherwise). Errors are PostgreSQL's.
func compileRegex(pattern, flags string) (*regexp.Regexp, error) {
	key := regexKey{pattern, flags}
	if re, ok := regexCache.Load(key); ok {
		return re.(*regexp.Regexp), nil
	}
	insensitive, dotNL, lines, literal := false, true, false, false
	for _, f := range flags {
		switch f {
		case 'i':
			insensitive = true
		case 'c':
			insensitive = false
		case 's':
			dotNL, lines = true, false
		case 'n', 'm':
			dotNL, lines = false, true
		case 'p':
			dotNL, lines = false, false
		case 'w':
			dotNL, lines = true, true
		case 'q':
			literal = true
		case 't':
		case 'b', 'e', 'x':
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "regular expression option %q is not supported", string(f)).
				WithHint("Write the pattern as an extended regular expression without the option.")
		default:
			return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "invalid regular expression option: %q", string(f))
		}
	}
	if literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	prefix := ""
	if insensitive {
		prefix += "i"
	}
	if dotNL {
		prefix += "s"
	}
	if lines {
		prefix += "m"
	}
	if prefix != "" {
		pattern = "(?" + prefix + ")" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, pgerror.New("2201B", "invalid regular expression: %v", err)
	}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil && !nonGreedy(parsed) {
		re.Longest()
	}
	regexCache.Store(key, re)
	return re, nil
}

// nonGreedy reports whether re has a non-greedy quantifier.
func nonGreedy(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if re.Flags&syntax.NonGreedy != 0 {
			return true
		}
	}
	for _, s := range re.Sub {
		if nonGreedy(s) {
			return true
		}
	}
	return false
}

// Type implements Expr.
func (e *RegexMatch) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *RegexMatch) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	l, err := e.L.Eval(c, row)
	if err != nil {
		return types.Null, err
	}
	r, err := e.R.Eval(c, row)
	if err != nil || l.IsNull() || r.IsNull() {
		return types.Null, err
	}
	re := e.re
	if re == nil {
		if re, err = compileRegex(r.Str(), e.flags()); err != nil {
			return types.Null, err
		}
	}
	m := re.MatchString(l.Str())
	if e.Op[0] == '!' {
		m = !m
	}
	return types.NewBool(m), nil
}

// String implements Expr.
func (e *RegexMatch) String() string {
	return "(" + e.L.String() + " " + e.Op + " " + e.R.String() + ")"
}

// Children implements Expr.
func (e *RegexMatch) Children() []Expr { return []Expr{e.L, e.R} }

// WithChildren implements Expr.
func (e *RegexMatch) WithChildren(ch []Expr) Expr {
	c := &RegexMatch{Op: e.Op, L: ch[0], R: ch[1]}
	if ch[1] == e.R {
		c.re = e.re
	}
	return c
}
