package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// CreateFunction is CREATE [OR REPLACE] FUNCTION name(args) RETURNS type
// options AS 'body' (or RETURN expr), the options in any order.
type CreateFunction struct {
	Name      ObjectName
	OrReplace bool
	Args      []FuncArg
	// Returns is the result type's text; SetOf marks RETURNS SETOF type
	// and Table RETURNS TABLE (...), whose Returns is empty.
	Returns string
	SetOf   bool
	Table   bool
	// Language is the lowercased LANGUAGE name, "" if not given.
	Language string
	// Volatility is "immutable", "stable", "volatile" or "" (not given).
	Volatility string
	// Strict is set by STRICT and RETURNS NULL ON NULL INPUT.
	Strict bool
	// Body is the text of AS 'body', or of the expression of RETURN expr
	// when Return is set; HasBody reports either.
	Body    string
	Return  bool
	HasBody bool
}

// FuncArg is a parameter of CREATE FUNCTION or an argument type of DROP
// FUNCTION: Name is "" when unnamed, TypeName the type's text, DefaultSQL
// the DEFAULT expression's text ("" for none).
type FuncArg struct {
	Name       string
	TypeName   string
	DefaultSQL string
}

// DropFunction is DROP FUNCTION [IF EXISTS] name[(argtypes)], ...
// [CASCADE|RESTRICT].
type DropFunction struct {
	Functions []FuncRef
	IfExists  bool
	Cascade   bool
}

// FuncRef names a function: Args is nil when no argument list was given.
type FuncRef struct {
	Name ObjectName
	Args []FuncArg
}

// createFunction parses the rest of CREATE [OR REPLACE] FUNCTION.
func (p *uparser) createFunction(orReplace bool) (any, error) {
	cf := &CreateFunction{OrReplace: orReplace}
	var err error
	if cf.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	if cf.Args, err = p.funcArgs(true); err != nil {
		return nil, err
	}
	if err := p.expect("returns"); err != nil {
		return nil, err
	}
	switch {
	case p.peek().is("table"):
		cf.Table = true
		p.i = p.skipGroup(p.i + 1)
	default:
		cf.SetOf = p.accept("setof")
		var j int
		if cf.Returns, j, err = p.typeName(p.i); err != nil {
			return nil, err
		}
		p.i = j
	}
	for p.peek().kind != tkEOF {
		if err := p.functionOption(cf); err != nil {
			return nil, err
		}
	}
	return cf, nil
}

// functionOption parses one option of CREATE FUNCTION into cf.
func (p *uparser) functionOption(cf *CreateFunction) error {
	start := p.i
	redundant := false
	switch tk := p.peek(); {
	case p.accept("language"):
		redundant = cf.Language != ""
		tk := p.peek()
		if tk.kind != tkIdent && tk.kind != tkQIdent && tk.kind != tkString {
			return p.syntaxErr(p.i)
		}
		p.i++
		cf.Language = strings.ToLower(tk.val)
	case p.accept("immutable"), p.accept("stable"), p.accept("volatile"):
		redundant = cf.Volatility != ""
		cf.Volatility = tk.val
	case p.accept("strict"), p.accept("returns", "null", "on", "null", "input"):
		cf.Strict = true
	case p.accept("called", "on", "null", "input"):
		cf.Strict = false
	case p.accept("not", "leakproof"), p.accept("leakproof"), p.accept("security", "invoker"),
		p.accept("external", "security", "invoker"):
	case p.accept("parallel"):
		if !p.accept("safe") && !p.accept("restricted") && !p.accept("unsafe") {
			return p.syntaxErr(p.i)
		}
	case p.accept("as"):
		redundant = cf.HasBody
		if p.peek().kind != tkString {
			return p.syntaxErr(p.i)
		}
		cf.Body, cf.HasBody = p.peek().val, true
		p.i++
		if p.peek().isPunct(",") {
			return p.notSupported(p.i, "a function body of object file and link symbol")
		}
	case p.accept("return"):
		redundant = cf.HasBody
		end := len(p.toks) - 1
		if p.i == end {
			return p.syntaxErr(p.i)
		}
		if _, _, err := expression(p.selectCursor(p.i, end)); err != nil {
			return err
		}
		cf.Body, cf.Return, cf.HasBody = p.text(p.i, end), true, true
		p.i = end
	case tk.is("begin"), tk.is("security"), tk.is("cost"), tk.is("rows"), tk.is("set"), tk.is("support"), tk.is("window"), tk.is("transform"):
		return p.notSupported(p.i, "CREATE FUNCTION ... "+strings.ToUpper(tk.val))
	default:
		return p.syntaxErr(p.i)
	}
	if redundant {
		return pgerror.New(pgerror.CodeSyntaxError, "conflicting or redundant options").WithPosition(charPos(p.src, p.at(start).pos))
	}
	return nil
}

// funcArgs parses ( [IN] [name] type [DEFAULT expr | = expr], ... ); defaults
// only when withDefaults.
func (p *uparser) funcArgs(withDefaults bool) ([]FuncArg, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	args := []FuncArg{}
	for !p.acceptPunct(")") {
		if len(args) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		if tk := p.peek(); tk.is("out") || tk.is("inout") || tk.is("variadic") {
			return nil, p.notSupported(p.i, strings.ToUpper(tk.val)+" parameters")
		}
		p.accept("in")
		var a FuncArg
		typ, j, err := p.typeName(p.i)
		if next := p.at(j); err != nil || !next.isPunct(",") && !next.isPunct(")") && !next.is("default") && !next.isPunct("=") {
			// The first word is the parameter's name.
			if a.Name, err = p.ident(); err != nil {
				return nil, err
			}
			if typ, j, err = p.typeName(p.i); err != nil {
				return nil, err
			}
		}
		a.TypeName, p.i = typ, j
		if withDefaults && (p.accept("default") || p.acceptPunct("=")) {
			end := p.exprEnd(p.i, nil)
			if _, _, err := expression(p.selectCursor(p.i, end)); err != nil {
				return nil, err
			}
			a.DefaultSQL = p.text(p.i, end)
			p.i = end
		}
		args = append(args, a)
	}
	return args, nil
}

// dropFunction parses the rest of DROP FUNCTION.
func (p *uparser) dropFunction() (any, error) {
	d := &DropFunction{IfExists: p.accept("if", "exists")}
	for {
		var ref FuncRef
		var err error
		if ref.Name, err = p.objectName(); err != nil {
			return nil, err
		}
		if p.peek().isPunct("(") {
			if ref.Args, err = p.funcArgs(false); err != nil {
				return nil, err
			}
		}
		d.Functions = append(d.Functions, ref)
		if !p.acceptPunct(",") {
			break
		}
	}
	d.Cascade = p.dropBehavior()
	return d, nil
}
