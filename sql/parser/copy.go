package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// Copy is COPY table [(columns)] {FROM STDIN | TO STDOUT} or COPY (query)
// TO STDOUT, [[WITH] (option, ...)] or with the options in their older
// spelling: rows the client sends, or receives, in text, CSV or binary
// format.
type Copy struct {
	Table   ObjectName
	Columns []string
	// To marks COPY ... TO STDOUT; Query is the text of COPY (query) TO's
	// query ("" for a table).
	To    bool
	Query string
	// Format is "text", "csv" or "binary".
	Format string
	// Delimiter, Null, Quote and Escape are the format's separator, null
	// marker, quote and escape, defaults filled in (Quote and Escape for
	// CSV only); Header skips (FROM) or writes (TO) a first line of
	// column names.
	Delimiter, Null, Quote, Escape string
	Header                         bool
}

// copyStmt parses COPY ... FROM STDIN and COPY ... TO STDOUT.
func (p *uparser) copyStmt() (any, error) {
	p.i++
	c := &Copy{}
	var err error
	if p.peek().isPunct("(") {
		if c.Query, err = p.parenthesized(); err != nil {
			return nil, err
		}
	} else {
		if c.Table, err = p.objectName(); err != nil {
			return nil, err
		}
		if p.peek().isPunct("(") {
			if c.Columns, err = p.identList(); err != nil {
				return nil, err
			}
		}
	}
	switch {
	case p.accept("to"):
		c.To = true
		if !p.accept("stdout") {
			return nil, notSupportedAt(p.src, p.peek().pos, "COPY TO a file or program is not supported").
				WithHint("Receive the rows with COPY ... TO STDOUT (psql's \\copy does).")
		}
	case c.Query != "":
		return nil, p.syntaxErr(p.i)
	default:
		if err := p.expect("from"); err != nil {
			return nil, err
		}
		if !p.accept("stdin") {
			return nil, notSupportedAt(p.src, p.peek().pos, "COPY FROM a file or program is not supported").
				WithHint("Send the rows with COPY ... FROM STDIN (psql's \\copy does).")
		}
	}
	opts, err := p.copyOptions()
	if err != nil {
		return nil, err
	}
	return c, c.apply(opts, p.src)
}

// parenthesized consumes ( ... ) and returns the text between the
// parentheses.
func (p *uparser) parenthesized() (string, error) {
	open := p.peek()
	depth := 0
	for ; p.i < len(p.toks); p.i++ {
		tk := p.peek()
		switch {
		case tk.isPunct("("):
			depth++
		case tk.isPunct(")"):
			if depth--; depth == 0 {
				p.i++
				return strings.TrimSpace(p.src[open.end:tk.pos]), nil
			}
		}
	}
	return "", p.syntaxErr(p.i)
}

// copyOption is one option as written: its lowercased name, its value
// ("" if none) and where it is.
type copyOption struct {
	name, value string
	pos         int
}

// copyOptions parses [WITH] (name [value], ...) or the older spelling:
// BINARY, DELIMITER [AS] 'c', NULL [AS] 's', CSV, HEADER, QUOTE [AS] 'q',
// ESCAPE [AS] 'e'.
func (p *uparser) copyOptions() ([]copyOption, error) {
	p.accept("with")
	var opts []copyOption
	if p.acceptPunct("(") {
		for {
			tk := p.peek()
			if tk.kind != tkIdent {
				return nil, p.syntaxErr(p.i)
			}
			p.i++
			o := copyOption{name: tk.val, pos: tk.pos}
			if !p.peek().isPunct(",") && !p.peek().isPunct(")") {
				if p.peek().isPunct("(") || p.peek().isPunct("*") {
					return nil, notSupportedAt(p.src, tk.pos, "COPY option %s is not supported", strings.ToUpper(tk.val))
				}
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				o.value = v
			}
			opts = append(opts, o)
			if p.acceptPunct(")") {
				return opts, nil
			}
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
	}
	for tk := p.peek(); tk.kind == tkIdent; tk = p.peek() {
		p.i++
		o := copyOption{name: tk.val, pos: tk.pos}
		switch tk.val {
		case "binary", "csv":
			o.name, o.value = "format", tk.val
		case "header":
		case "delimiter", "null", "quote", "escape":
			p.accept("as")
			if p.peek().kind != tkString {
				return nil, p.syntaxErr(p.i)
			}
			o.value = p.peek().val
			p.i++
		default:
			return nil, notSupportedAt(p.src, tk.pos, "COPY option %s is not supported", strings.ToUpper(tk.val))
		}
		opts = append(opts, o)
	}
	return opts, nil
}

// apply sets c's format from opts and checks them as PostgreSQL does.
func (c *Copy) apply(opts []copyOption, src string) error {
	set := map[string]*string{"format": &c.Format, "delimiter": &c.Delimiter, "null": &c.Null, "quote": &c.Quote, "escape": &c.Escape}
	seen := map[string]bool{}
	for _, o := range opts {
		if seen[o.name] {
			return pgerror.New(pgerror.CodeSyntaxError, "conflicting or redundant options").WithPosition(charPos(src, o.pos))
		}
		seen[o.name] = true
		switch o.name {
		case "format", "delimiter", "null", "quote", "escape":
			*set[o.name] = o.value
		case "header":
			switch strings.ToLower(o.value) {
			case "", "true", "on", "1":
				c.Header = true
			case "false", "off", "0":
			default:
				return pgerror.New(pgerror.CodeInvalidParameterValue, "header requires a Boolean value").WithPosition(charPos(src, o.pos))
			}
		case "encoding":
			if n := strings.ToLower(strings.ReplaceAll(o.value, "-", "")); n != "utf8" {
				return notSupportedAt(src, o.pos, "COPY ENCODING %s is not supported", o.value).WithHint("streamdb reads UTF8.")
			}
		default:
			return notSupportedAt(src, o.pos, "COPY option %s is not supported", strings.ToUpper(o.name))
		}
	}
	return c.defaults(seen)
}

// defaults fills in the format's defaults and checks the combination.
func (c *Copy) defaults(given map[string]bool) error {
	c.Format = strings.ToLower(c.Format)
	switch c.Format {
	case "", "text":
		c.Format = "text"
		if !given["delimiter"] {
			c.Delimiter = "\t"
		}
		if !given["null"] {
			c.Null = `\N`
		}
	case "csv":
		if !given["delimiter"] {
			c.Delimiter = ","
		}
		if !given["quote"] {
			c.Quote = `"`
		}
		if !given["escape"] {
			c.Escape = c.Quote
		}
	case "binary":
		for _, o := range []string{"delimiter", "null", "header"} {
			if given[o] {
				return pgerror.New(pgerror.CodeSyntaxError, "cannot specify %s in BINARY mode", strings.ToUpper(o))
			}
		}
	default:
		return pgerror.New(pgerror.CodeInvalidParameterValue, "COPY format %q not recognized", c.Format)
	}
	if c.Format != "csv" && (given["quote"] || given["escape"]) {
		return pgerror.New(pgerror.CodeFeatureNotSupported, "COPY quote and escape are available only in CSV mode")
	}
	if c.Format == "binary" {
		return nil
	}
	switch {
	case len(c.Delimiter) != 1:
		return pgerror.New(pgerror.CodeFeatureNotSupported, "COPY delimiter must be a single one-byte character")
	case c.Delimiter == "\n" || c.Delimiter == "\r":
		return pgerror.New(pgerror.CodeInvalidParameterValue, "COPY delimiter cannot be newline or carriage return")
	case strings.ContainsAny(c.Null, "\r\n"):
		return pgerror.New(pgerror.CodeInvalidParameterValue, "COPY null representation cannot use newline or carriage return")
	case c.Format == "text" && strings.Contains(`\.abcdefghijklmnopqrstuvwxyz0123456789`, c.Delimiter):
		return pgerror.New(pgerror.CodeInvalidParameterValue, "COPY delimiter cannot be %q", c.Delimiter)
	case c.Format == "csv" && (len(c.Quote) != 1 || len(c.Escape) != 1):
		return pgerror.New(pgerror.CodeFeatureNotSupported, "COPY quote and escape must be single one-byte characters")
	case c.Format == "csv" && c.Delimiter == c.Quote:
		return pgerror.New(pgerror.CodeInvalidParameterValue, "COPY delimiter and quote must be different")
	case c.Format == "csv" && strings.Contains(c.Null, c.Quote):
		return pgerror.New(pgerror.CodeInvalidParameterValue, "CSV quote character must not appear in the NULL specification")
	case strings.Contains(c.Null, c.Delimiter):
		return pgerror.New(pgerror.CodeInvalidParameterValue, "COPY delimiter must not appear in the NULL specification")
	}
	return nil
}
