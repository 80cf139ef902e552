package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Like is x [NOT] LIKE/ILIKE pattern [ESCAPE e]. The default escape is '\'.
type Like struct {
	E, Pattern      Expr
	Escape          Expr // nil for the default
	CaseInsensitive bool
	Not             bool
}

// Type implements Expr.
func (e *Like) Type() types.T { return types.TBool }

// Eval implements Expr.
func (e *Like) Eval(c *Ctx, row []types.Datum) (types.Datum, error) {
	x, err := e.E.Eval(c, row)
	if err != nil {
		return types.Null, err
	}
	p, err := e.Pattern.Eval(c, row)
	if err != nil || x.IsNull() || p.IsNull() {
		return types.Null, err
	}
	esc := '\\'
	if e.Escape != nil {
		ev, err := e.Escape.Eval(c, row)
		if err != nil || ev.IsNull() {
			return types.Null, err
		}
		switch utf8.RuneCountInString(ev.Str()) {
		case 0:
			esc = -1
		case 1:
			esc, _ = utf8.DecodeRuneInString(ev.Str())
		default:
			return types.Null, pgerror.New(pgerror.CodeInvalidEscapeSequence, "invalid escape string").
				WithHint("Escape string must be empty or one character.")
		}
	}
	s, pat := x.Str(), p.Str()
	if e.CaseInsensitive {
		s, pat = strings.ToLower(s), strings.ToLower(pat)
	}
	m, err := likeMatch(s, pat, esc)
	if err != nil {
		return types.Null, err
	}
	return types.NewBool(m != e.Not), nil
}

// likeMatch matches s against a LIKE pattern with escape rune esc (-1: none).
func likeMatch(s, pat string, esc rune) (bool, error) {
	for len(pat) > 0 {
		r, n := utf8.DecodeRuneInString(pat)
		switch {
		case r == esc:
			pat = pat[n:]
			if len(pat) == 0 {
				return false, pgerror.New(pgerror.CodeInvalidEscapeSequence, "LIKE pattern must not end with escape character")
			}
			r, n = utf8.DecodeRuneInString(pat)
			sr, sn := utf8.DecodeRuneInString(s)
			if len(s) == 0 || sr != r {
				return false, nil
			}
			s, pat = s[sn:], pat[n:]
		case r == '%':
			for len(pat) > 0 && pat[0] == '%' {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true, nil
			}
			for {
				m, err := likeMatch(s, pat, esc)
				if m || err != nil {
					return m, err
				}
				if len(s) == 0 {
					return false, nil
				}
				_, sn := utf8.DecodeRuneInString(s)
				s = s[sn:]
			}
		case r == '_':
			if len(s) == 0 {
				return false, nil
			}
			_, sn := utf8.DecodeRuneInString(s)
			s, pat = s[sn:], pat[n:]
		default:
			sr, sn := utf8.DecodeRuneInString(s)
			if len(s) == 0 || sr != r {
				return false, nil
			}
			s, pat = s[sn:], pat[n:]
		}
	}
	return len(s) == 0, nil
}

// String implements Expr.
func (e *Like) String() string {
	op := " LIKE "
	if e.CaseInsensitive {
		op = " ILIKE "
	}
	if e.Not {
		op = " NOT" + op
	}
	s := e.E.String() + op + e.Pattern.String()
	if e.Escape != nil {
		s += " ESCAPE " + e.Escape.String()
	}
	return s
}

// Children implements Expr.
func (e *Like) Children() []Expr {
	ch := []Expr{e.E, e.Pattern}
	if e.Escape != nil {
		ch = append(ch, e.Escape)
	}
	return ch
}

// WithChildren implements Expr.
func (e *Like) WithChildren(ch []Expr) Expr {
	c := *e
	c.E, c.Pattern = ch[0], ch[1]
	if len(ch) > 2 {
		c.Escape = ch[2]
	}
	return &c
}
