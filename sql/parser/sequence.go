package parser

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// CreateSequence is CREATE SEQUENCE [IF NOT EXISTS] name [options].
type CreateSequence struct {
	Name        ObjectName
	IfNotExists bool
	Options     []SeqOption
}

// AlterSequence is ALTER SEQUENCE [IF EXISTS] name options.
type AlterSequence struct {
	Name     ObjectName
	IfExists bool
	Options  []SeqOption
}

// SeqOption is one sequence option as written: Name is "as", "increment",
// "minvalue", "maxvalue", "start", "restart", "cache", "cycle" or
// "owned by".
type SeqOption struct {
	Name string
	// Value is the option's number, nil for NO MINVALUE, NO MAXVALUE, a
	// bare RESTART, [NO] CYCLE.
	Value *int64
	// No marks NO MINVALUE, NO MAXVALUE and NO CYCLE.
	No bool
	// Type is the type name of AS.
	Type string
	// Owner is OWNED BY's [schema.]table.column, nil for OWNED BY NONE.
	Owner []string
}

// createSequence parses the rest of CREATE SEQUENCE.
func (p *uparser) createSequence() (any, error) {
	cs := &CreateSequence{IfNotExists: p.ifNotExists()}
	var err error
	if cs.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	cs.Options, err = p.seqOptions(false, true)
	return cs, err
}

// alterSequence parses the options of ALTER SEQUENCE name.
func (p *uparser) alterSequence(name ObjectName, ifExists bool) (any, error) {
	opts, err := p.seqOptions(true, true)
	if err == nil && len(opts) == 0 {
		return nil, p.syntaxErr(p.i)
	}
	return &AlterSequence{Name: name, IfExists: ifExists, Options: opts}, err
}

// seqOptions parses sequence options up to the first token that starts
// none (RESTART only with restart, OWNED BY only with owned); a repeated
// option is 42601, as in PostgreSQL.
func (p *uparser) seqOptions(restart, owned bool) ([]SeqOption, error) {
	var out []SeqOption
	for {
		at := p.i
		var o SeqOption
		var err error
		switch {
		case p.accept("as"):
			o.Name = "as"
			o.Type, p.i, err = p.typeName(p.i)
		case p.accept("increment"):
			p.accept("by")
			o.Name, o.Value, err = "increment", new(int64(0)), nil
			*o.Value, err = p.signedInt()
		case p.accept("no", "minvalue"), p.accept("no", "maxvalue"), p.accept("no", "cycle"):
			o.Name, o.No = p.at(p.i-1).val, true
		case p.accept("minvalue"), p.accept("maxvalue"), p.accept("cache"):
			o.Name, o.Value = p.at(p.i-1).val, new(int64(0))
			*o.Value, err = p.signedInt()
		case p.accept("start"):
			p.accept("with")
			o.Name, o.Value = "start", new(int64(0))
			*o.Value, err = p.signedInt()
		case restart && p.accept("restart"):
			o.Name = "restart"
			if p.accept("with") || p.peek().kind == tkInt || p.peek().isPunct("-") || p.peek().isPunct("+") {
				o.Value = new(int64(0))
				*o.Value, err = p.signedInt()
			}
		case p.accept("cycle"):
			o.Name = "cycle"
		case owned && p.accept("owned", "by"):
			o.Name = "owned by"
			if !p.accept("none") {
				for {
					part, perr := p.ident()
					if perr != nil {
						return nil, perr
					}
					o.Owner = append(o.Owner, part)
					if !p.acceptPunct(".") {
						break
					}
				}
			}
		default:
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		for _, prev := range out {
			if prev.Name == o.Name {
				return nil, pgerror.New(pgerror.CodeSyntaxError, "conflicting or redundant options").WithPosition(charPos(p.src, p.at(at).pos))
			}
		}
		out = append(out, o)
	}
}

// signedInt parses an optionally signed integer literal.
func (p *uparser) signedInt() (int64, error) {
	sign := ""
	if p.acceptPunct("-") {
		sign = "-"
	} else {
		p.acceptPunct("+")
	}
	tk := p.peek()
	if tk.kind != tkInt {
		return 0, p.syntaxErr(p.i)
	}
	v, err := strconv.ParseInt(sign+tk.val, 10, 64)
	if err != nil {
		return 0, pgerror.New(pgerror.CodeNumericValueOutOfRange, "value \"%s%s\" is out of range for type bigint", sign, tk.val)
	}
	p.i++
	return v, nil
}

// identity parses the rest of GENERATED {ALWAYS | BY DEFAULT} AS
// IDENTITY [(options)] into col.
func (p *uparser) identity(col *ColumnDef) error {
	switch {
	case p.accept("always"):
		col.Identity = "always"
	case p.accept("by", "default"):
		col.Identity = "by default"
	default:
		return p.syntaxErr(p.i)
	}
	if !p.accept("as", "identity") {
		if p.peek().is("as") {
			return p.notSupported(p.i, "GENERATED ... AS (expr) STORED")
		}
		return p.syntaxErr(p.i)
	}
	if !p.acceptPunct("(") {
		return nil
	}
	var err error
	if col.IdentityOptions, err = p.seqOptions(false, false); err != nil {
		return err
	}
	return p.expectPunct(")")
}

// serialTypes map the serial pseudo-types to their integer types.
var serialTypes = map[string]string{
	"smallserial": "smallint", "serial2": "smallint",
	"serial": "integer", "serial4": "integer",
	"bigserial": "bigint", "serial8": "bigint",
}

// SerialType returns the integer type of a serial pseudo-type name, and
// whether name is one.
func SerialType(name string) (string, bool) {
	t, ok := serialTypes[strings.ToLower(name)]
	return t, ok
}
