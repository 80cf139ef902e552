package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// uparser is the recursive-descent parser of utility statements: DDL,
// SET/SHOW/RESET, transaction control, cursors, FLUSH, DISCARD, EXPLAIN and
// COPY.
type uparser struct {
	*cursor
	i int
}

// unsupportedStatements are statement kinds recognized only to refuse
// them with 0A000 rather than a syntax error.
var unsupportedStatements = wordSet(
	"prepare", "execute", "deallocate", "listen", "notify", "unlisten", "vacuum", "analyze", "analyse",
	"truncate", "lock", "reindex", "cluster", "checkpoint", "do", "call",
	"savepoint", "release", "refresh", "import", "security", "load",
	"replace", "merge", "reassign", "cancel", "recover", "describe",
)

// parseUtility parses a statement of our own grammar.
func parseUtility(c *cursor) (*Statement, error) {
	st := newStatement(c)
	p := &uparser{cursor: c}
	u, err := p.statement()
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tkEOF {
		return nil, p.syntaxErr(p.i)
	}
	st.Utility = u
	return st, nil
}

func (p *uparser) peek() token { return p.at(p.i) }

// accept consumes the words if the next tokens are they.
func (p *uparser) accept(words ...string) bool {
	for k, w := range words {
		if !p.at(p.i + k).is(w) {
			return false
		}
	}
	p.i += len(words)
	return true
}

// expect consumes the words or fails at the first that differs.
func (p *uparser) expect(words ...string) error {
	for _, w := range words {
		if !p.accept(w) {
			return p.syntaxErr(p.i)
		}
	}
	return nil
}

// acceptPunct consumes punctuation or an operator p if next.
func (p *uparser) acceptPunct(s string) bool {
	if p.peek().isPunct(s) {
		p.i++
		return true
	}
	return false
}

func (p *uparser) expectPunct(s string) error {
	if !p.acceptPunct(s) {
		return p.syntaxErr(p.i)
	}
	return nil
}

// notSupported returns 0A000 "<what> is not supported" at token k.
func (p *uparser) notSupported(k int, what string) error {
	return notSupportedAt(p.src, p.at(k).pos, "%s is not supported", what)
}

// ident consumes an identifier: unquoted (lowercased, not reserved) or quoted.
func (p *uparser) ident() (string, error) {
	tk := p.peek()
	if tk.kind == tkQIdent || tk.kind == tkIdent && !reserved[tk.val] {
		p.i++
		return tk.val, nil
	}
	return "", p.syntaxErr(p.i)
}

// objectName consumes [schema.]name.
func (p *uparser) objectName() (ObjectName, error) {
	name, err := p.ident()
	if err != nil {
		return ObjectName{}, err
	}
	if !p.acceptPunct(".") {
		return ObjectName{Name: name}, nil
	}
	rest, err := p.ident()
	if p.peek().isPunct(".") {
		return ObjectName{}, notSupportedAt(p.src, p.peek().pos, "cross-database references are not supported")
	}
	return ObjectName{Schema: name, Name: rest}, err
}

// identList consumes ( name, ... ).
func (p *uparser) identList() ([]string, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var names []string
	for {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		names = append(names, name)
		if p.acceptPunct(")") {
			return names, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// statement dispatches on the first words.
func (p *uparser) statement() (any, error) {
	tk := p.peek()
	switch {
	case tk.is("create"):
		return p.create()
	case tk.is("drop"):
		return p.drop()
	case tk.is("alter"):
		return p.alter()
	case tk.is("set"):
		return p.set()
	case tk.is("reset"):
		return p.reset()
	case tk.is("show"):
		return p.show()
	case tk.is("begin"), tk.is("start"), tk.is("commit"), tk.is("end"), tk.is("rollback"), tk.is("abort"):
		return p.txControl()
	case tk.is("flush"):
		p.i++
		return &Flush{}, nil
	case tk.is("discard"):
		p.i++
		what := p.peek()
		if !what.is("all") && !what.is("plans") && !what.is("sequences") && !what.is("temp") && !what.is("temporary") {
			return nil, p.syntaxErr(p.i)
		}
		p.i++
		return &Discard{What: what.val}, nil
	case tk.is("explain"):
		return p.explain()
	case tk.is("copy"):
		return p.copyStmt()
	case tk.is("comment"):
		return p.comment()
	case tk.is("declare"):
		return p.declare()
	case tk.is("fetch"), tk.is("move"):
		return p.fetch()
	case tk.is("close"):
		return p.closeCursor()
	case tk.is("subscribe"):
		return p.subscribe()
	case tk.is("grant"), tk.is("revoke"):
		p.i++
		return p.grant(tk.is("revoke"))
	case tk.kind == tkIdent && unsupportedStatements[tk.val]:
		return nil, p.notSupported(p.i, strings.ToUpper(tk.val))
	}
	return nil, p.syntaxErr(p.i)
}

// explain parses EXPLAIN [ANALYZE] [VERBOSE] stmt and EXPLAIN (opt [value], ...) stmt.
func (p *uparser) explain() (any, error) {
	p.i++
	e := &Explain{}
	if p.acceptPunct("(") {
		for {
			opt := p.peek()
			if opt.kind != tkIdent {
				return nil, p.syntaxErr(p.i)
			}
			p.i++
			on := true
			switch v := p.peek(); {
			case v.is("true") || v.is("on") || v.kind == tkInt && v.val == "1":
				p.i++
			case v.is("false") || v.is("off") || v.kind == tkInt && v.val == "0":
				on = false
				p.i++
			case v.kind == tkIdent || v.kind == tkString:
				p.i++ // FORMAT TEXT and the like
			}
			switch opt.val {
			case "analyze", "analyse":
				e.Analyze = on
			case "verbose":
				e.Verbose = on
			}
			if p.acceptPunct(")") {
				break
			}
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
	} else {
		e.Analyze = p.accept("analyze") || p.accept("analyse")
		e.Verbose = p.accept("verbose")
	}
	inner, err := p.rest()
	if err != nil {
		return nil, err
	}
	if _, ok := inner.Utility.(*Explain); ok {
		return nil, p.syntaxErr(p.i)
	}
	e.Statement = inner
	return e, nil
}

// rest parses the remaining tokens as a statement of their own.
func (p *uparser) rest() (*Statement, error) {
	if p.peek().kind == tkEOF {
		return nil, p.syntaxErr(p.i)
	}
	st, err := parseStatement(&cursor{src: p.src, toks: p.toks[p.i:]})
	p.i = len(p.toks) - 1
	return st, err
}

// subCursor returns the tokens [lo, hi) as a statement of their own, ended
// by a terminator that stands for token hi.
func (p *uparser) subCursor(lo, hi int) *cursor {
	end := p.at(hi)
	if end.kind != tkEOF {
		end = token{kind: tkEOF, val: p.src[end.pos:end.end], pos: end.pos, end: end.pos}
	}
	toks := append(append(make([]token, 0, hi-lo+1), p.toks[lo:hi]...), end)
	return &cursor{src: p.src, toks: toks}
}

// text returns the original text of tokens [lo, hi).
func (p *uparser) text(lo, hi int) string {
	return p.src[p.at(lo).pos:p.at(hi-1).end]
}

// selectCursor is subCursor with a leading SELECT, to parse an expression.
func (p *uparser) selectCursor(lo, hi int) *cursor {
	c := p.subCursor(lo, hi)
	sel := token{kind: tkIdent, val: "select", pos: p.at(lo).pos, end: p.at(lo).pos}
	c.toks = append([]token{sel}, c.toks...)
	return c
}

// skipGroup returns the index after the balanced parentheses at token k.
func (p *uparser) skipGroup(k int) int {
	depth := 0
	for ; k < len(p.toks)-1; k++ {
		switch {
		case p.at(k).isPunct("("):
			depth++
		case p.at(k).isPunct(")"):
			depth--
			if depth == 0 {
				return k + 1
			}
		}
	}
	return k
}

// exprEnd returns the end of an expression starting at token k: the first
// token at depth 0 that is a comma, a closing parenthesis or one of stop
// (never the first token).
func (p *uparser) exprEnd(k int, stop map[string]bool) int {
	start := k
	for ; k < len(p.toks)-1; k++ {
		tk := p.at(k)
		switch {
		case tk.isPunct("("):
			k = p.skipGroup(k) - 1
		case tk.isPunct(",") || tk.isPunct(")"):
			return k
		case k > start && tk.kind == tkIdent && stop[tk.val]:
			return k
		}
	}
	return k
}

// options parses WITH ( key = value, ... ); keys are lowercased, dotted
// keys joined with dots, values unquoted.
func (p *uparser) options() (map[string]string, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	opts := make(map[string]string)
	for {
		var key []string
		for {
			tk := p.peek()
			if tk.kind != tkIdent && tk.kind != tkQIdent && tk.kind != tkString {
				return nil, p.syntaxErr(p.i)
			}
			key = append(key, strings.ToLower(tk.val))
			p.i++
			if !p.acceptPunct(".") {
				break
			}
		}
		// A bare name (WITH (snapshot)) turns the option on.
		v := "true"
		if !p.peek().isPunct(",") && !p.peek().isPunct(")") {
			if err := p.expectPunct("="); err != nil {
				return nil, err
			}
			var err error
			if v, err = p.value(); err != nil {
				return nil, err
			}
		}
		opts[strings.Join(key, ".")] = v
		if p.acceptPunct(")") {
			return opts, nil
		}
		if err := p.expectPunct(","); err != nil {
			return nil, err
		}
	}
}

// value consumes a setting value: an identifier or keyword (lowercased), a
// string (unquoted) or a possibly signed number (as text).
func (p *uparser) value() (string, error) {
	tk := p.peek()
	sign := ""
	if tk.isPunct("-") || tk.isPunct("+") {
		if tk.val == "-" {
			sign = "-"
		}
		p.i++
		tk = p.peek()
		if tk.kind != tkInt && tk.kind != tkNumeric && tk.kind != tkFloat {
			return "", p.syntaxErr(p.i)
		}
	}
	switch tk.kind {
	case tkIdent, tkQIdent, tkString, tkInt, tkNumeric, tkFloat:
		p.i++
		return sign + tk.val, nil
	}
	return "", p.syntaxErr(p.i)
}

// errUnsupportedKind is the 0A000 error for CREATE/ALTER/DROP of a kind
// streamdb does not have.
func (p *uparser) errUnsupportedKind(verb string, k int) error {
	what := verb
	for j := k; j < k+2; j++ {
		if tk := p.at(j); tk.kind == tkIdent && !tk.is("if") && !tk.is("not") && !tk.is("exists") {
			what += " " + strings.ToUpper(tk.val)
		}
		if !p.at(j).is("materialized") && !p.at(j).is("foreign") && !p.at(j).is("unique") {
			break
		}
	}
	return pgerror.New(pgerror.CodeFeatureNotSupported, "%s is not supported", what).WithPosition(charPos(p.src, p.at(k-1).pos))
}
