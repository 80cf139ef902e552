package parser

import (
	"strconv"

	"github.com/streamdb/streamdb/pgerror"
)

// Subscribe is what a subscription reads and how: SUBSCRIBE [TO] {name |
// (query)} [WITH (snapshot [= bool], progress [= bool])] [AS OF epoch],
// or the target of a subscription cursor (DECLARE name SUBSCRIPTION
// CURSOR FOR subscription [SINCE ... | FULL]).
type Subscribe struct {
	// Name is the relation or subscription read; Query the text of a
	// parenthesized query instead ("" for a name).
	Name  ObjectName
	Query string
	// Options are the WITH options as written (lowercased names; a bare
	// name is "true").
	Options map[string]string
	// AsOf is the epoch of AS OF (nil: now).
	AsOf *uint64
	// Cursor marks RisingWave's subscription cursor, whose start is Since:
	// "" (changes from now on), "full" (the contents now, then changes),
	// "begin" (the oldest changes the subscription keeps) or "ms" (the
	// changes from SinceMillis, a Unix time in milliseconds, on).
	Cursor      bool
	Since       string
	SinceMillis int64
}

// CreateSubscription is CREATE SUBSCRIPTION [IF NOT EXISTS] name FROM
// relation [WITH (retention = 'interval')].
type CreateSubscription struct {
	Name, From  ObjectName
	IfNotExists bool
	With        map[string]string
}

// subscribe parses SUBSCRIBE [TO] {name | (query)} [WITH (...)] [AS OF
// epoch].
func (p *uparser) subscribe() (*Subscribe, error) {
	p.i++
	p.accept("to")
	sub := &Subscribe{}
	var err error
	if p.peek().isPunct("(") {
		if sub.Query, err = p.parenthesized(); err != nil {
			return nil, err
		}
	} else if sub.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.accept("with") {
		if sub.Options, err = p.options(); err != nil {
			return nil, err
		}
	}
	if p.accept("as", "of") {
		tk := p.peek()
		epoch, err := strconv.ParseUint(tk.val, 10, 64)
		if tk.kind != tkInt || err != nil {
			return nil, p.syntaxErr(p.i)
		}
		p.i++
		sub.AsOf = &epoch
	}
	return sub, nil
}

// subscriptionCursor parses the rest of DECLARE name SUBSCRIPTION CURSOR
// FOR subscription [SINCE {unix_ms | begin() | now()} | FULL].
func (p *uparser) subscriptionCursor() (*Subscribe, error) {
	if err := p.expect("for"); err != nil {
		return nil, err
	}
	sub := &Subscribe{Cursor: true}
	var err error
	if sub.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	switch {
	case p.accept("full"):
		sub.Since = "full"
	case p.accept("since"):
		switch tk := p.peek(); {
		case tk.kind == tkInt:
			if sub.SinceMillis, err = strconv.ParseInt(tk.val, 10, 64); err != nil {
				return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "SINCE %s is out of range", tk.val).
					WithHint("Give a Unix time in milliseconds.")
			}
			p.i++
			sub.Since = "ms"
		case tk.is("begin"), tk.is("now"):
			p.i++
			if err := p.expectPunct("("); err != nil {
				return nil, err
			}
			if err := p.expectPunct(")"); err != nil {
				return nil, err
			}
			if tk.is("begin") {
				sub.Since = "begin"
			}
		default:
			return nil, p.syntaxErr(p.i)
		}
	}
	return sub, nil
}

// createSubscription parses the rest of CREATE SUBSCRIPTION.
func (p *uparser) createSubscription() (any, error) {
	cs := &CreateSubscription{IfNotExists: p.ifNotExists()}
	var err error
	if cs.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if err := p.expect("from"); err != nil {
		return nil, err
	}
	if cs.From, err = p.objectName(); err != nil {
		return nil, err
	}
	if p.accept("with") {
		if cs.With, err = p.options(); err != nil {
			return nil, err
		}
	}
	return cs, nil
}
