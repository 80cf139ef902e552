package parser

import (
	"math"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/pgerror"
)

// Declare is DECLARE name [BINARY] [ASENSITIVE|INSENSITIVE] [[NO] SCROLL]
// CURSOR [{WITH|WITHOUT} HOLD] FOR {query | SUBSCRIBE ...}, or RisingWave's
// DECLARE name SUBSCRIPTION CURSOR FOR subscription [SINCE ... | FULL].
// Scroll and NoScroll are both unset when the cursor is declared with
// neither. A cursor over a subscription has Subscribe set, Query nil.
type Declare struct {
	Name             string
	Binary, Hold     bool
	Scroll, NoScroll bool
	Query            *Statement
	Subscribe        *Subscribe
}

// FetchKind is the direction of FETCH and MOVE, as PostgreSQL's grammar
// reduces their forms: NEXT is FORWARD 1, PRIOR BACKWARD 1, FIRST
// ABSOLUTE 1, LAST ABSOLUTE -1, ALL FORWARD ALL.
type FetchKind int

// The directions of FETCH and MOVE.
const (
	FetchForward FetchKind = iota
	FetchBackward
	FetchAbsolute
	FetchRelative
)

// FetchAll is the count of FORWARD ALL and BACKWARD ALL.
const FetchAll = math.MaxInt64

// Fetch is FETCH [direction] [FROM|IN] cursor [WITH (timeout = ...)],
// or MOVE with Move set. Timeout is the option's value as written ("":
// none), for a cursor over a subscription.
type Fetch struct {
	Move    bool
	Kind    FetchKind
	Count   int64
	Cursor  string
	Timeout string
}

// CloseCursor is CLOSE name, or CLOSE ALL with Cursor "".
type CloseCursor struct {
	Cursor string
}

// declare parses DECLARE ... CURSOR ... FOR query.
func (p *uparser) declare() (any, error) {
	p.i++
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	d := &Declare{Name: name}
	var asensitive, insensitive bool
	for options := true; options; {
		switch {
		case p.accept("binary"):
			d.Binary = true
		case p.accept("asensitive"):
			asensitive = true
		case p.accept("insensitive"):
			insensitive = true
		case p.accept("scroll"):
			d.Scroll = true
		case p.accept("no", "scroll"):
			d.NoScroll = true
		default:
			options = false
		}
	}
	if p.accept("subscription", "cursor") {
		// A subscription cursor lives until closed, as RisingWave's.
		d.Hold = true
		d.Subscribe, err = p.subscriptionCursor()
		return d, err
	}
	if err := p.expect("cursor"); err != nil {
		return nil, err
	}
	switch {
	case p.accept("with", "hold"):
		d.Hold = true
	case p.accept("without", "hold"):
	}
	if err := p.expect("for"); err != nil {
		return nil, err
	}
	if p.peek().is("subscribe") {
		d.Subscribe, err = p.subscribe()
		return d, err
	}
	start := p.i
	if d.Query, err = p.rest(); err != nil {
		return nil, err
	}
	switch d.Query.AST.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt:
	default:
		return nil, p.syntaxErr(start)
	}
	conflict := func(a, b string) error {
		return pgerror.New(pgerror.CodeInvalidCursorDefinition, "cannot specify both %s and %s", a, b)
	}
	switch {
	case d.Scroll && d.NoScroll:
		return nil, conflict("SCROLL", "NO SCROLL")
	case asensitive && insensitive:
		return nil, conflict("ASENSITIVE", "INSENSITIVE")
	}
	return d, nil
}

// fetch parses FETCH and MOVE with PostgreSQL's directions.
func (p *uparser) fetch() (any, error) {
	f := &Fetch{Move: p.peek().is("move"), Kind: FetchForward, Count: 1}
	p.i++
	// A direction word right before the end is the cursor's name.
	direction := p.at(p.i+1).kind != tkEOF
	switch {
	case !direction:
	case p.accept("next"):
	case p.accept("prior"):
		f.Kind = FetchBackward
	case p.accept("first"):
		f.Kind = FetchAbsolute
	case p.accept("last"):
		f.Kind, f.Count = FetchAbsolute, -1
	case p.accept("absolute"), p.accept("relative"):
		f.Kind = FetchAbsolute
		if p.at(p.i - 1).is("relative") {
			f.Kind = FetchRelative
		}
		n, err := p.signedInt()
		if err != nil {
			return nil, err
		}
		f.Count = n
	case p.accept("all"):
		f.Count = FetchAll
	case p.accept("forward"), p.accept("backward"):
		if p.at(p.i - 1).is("backward") {
			f.Kind = FetchBackward
		}
		if p.accept("all") {
			f.Count = FetchAll
		} else if tk := p.peek(); tk.kind == tkInt || tk.isPunct("-") || tk.isPunct("+") {
			n, err := p.signedInt()
			if err != nil {
				return nil, err
			}
			f.Count = n
		}
	case p.peek().kind == tkInt || p.peek().isPunct("-") || p.peek().isPunct("+"):
		n, err := p.signedInt()
		if err != nil {
			return nil, err
		}
		f.Count = n
	}
	_ = p.accept("from") || p.accept("in")
	name, err := p.ident()
	f.Cursor = name
	if err == nil && !f.Move && p.accept("with") {
		opts, err := p.options()
		if err != nil {
			return nil, err
		}
		for k, v := range opts {
			if k != "timeout" {
				return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "FETCH option %q is not supported", k).
					WithHint("FETCH takes WITH (timeout = 'interval') only.")
			}
			f.Timeout = v
		}
	}
	return f, err
}

// closeCursor parses CLOSE {name | ALL}.
func (p *uparser) closeCursor() (any, error) {
	p.i++
	if p.accept("all") {
		return &CloseCursor{}, nil
	}
	name, err := p.ident()
	return &CloseCursor{Cursor: name}, err
}

// String returns the direction's keyword.
func (k FetchKind) String() string {
	return [...]string{"FORWARD", "BACKWARD", "ABSOLUTE", "RELATIVE"}[k]
}
