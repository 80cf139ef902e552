package expr

import (
	"regexp"
	"sync"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// RegexMatch is PostgreSQL's ~, ~*, !~ and !~* on text. Patterns are Go
// (RE2) regular expressions, which agree with PostgreSQL's for the common
// syntax; back-references and lookaround are not supported.
type RegexMatch struct {
	Op   string
	L, R Expr
}

// NewRegexMatch returns a regular-expression match operator.
func NewRegexMatch(op string, l, r Expr) (Expr, error) {
	if !l.Type().IsString() || !r.Type().IsString() {
		return nil, undefinedOperator(op, l.Type(), r.Type())
	}
	return &RegexMatch{Op: op, L: l, R: r}, nil
}

// regexCache holds compiled patterns; patterns are usually constants.
var regexCache sync.Map

func compileRegex(pattern string, insensitive bool) (*regexp.Regexp, error) {
	if insensitive {
		pattern = "(?i)" + pattern
	}
	if re, ok := regexCache.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, pgerror.New("2201B", "invalid regular expression: %v", err)
	}
	regexCache.Store(pattern, re)
	return re, nil
}

// Type implements Expr.
func (e *RegexMatch) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *RegexMatch) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	l, err := e.L.Eval(c, row)
	if err != nil || l.IsNull() {
		return types.Null, err
	}
	r, err := e.R.Eval(c, row)
	if err != nil || r.IsNull() {
		return types.Null, err
	}
	re, err := compileRegex(r.Str(), e.Op == "~*" || e.Op == "!~*")
	if err != nil {
		return types.Null, err
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
func (e *RegexMatch) WithChildren(ch []Expr) Expr { return &RegexMatch{Op: e.Op, L: ch[0], R: ch[1]} }
