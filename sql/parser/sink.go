package parser

// CreateSink is CREATE SINK [IF NOT EXISTS] name {FROM relation | AS
// query} WITH (option = value, ...) [FORMAT format ENCODE encode
// [(option = value, ...)]], as RisingWave spells it.
type CreateSink struct {
	Name        ObjectName
	IfNotExists bool
	// From is the relation whose changes the sink delivers, unless Query
	// is set.
	From  ObjectName
	Query *Statement
	// With holds the options, keys lowercased, with the FORMAT clause's
	// as "format", "encode" and "encode.<option>".
	With map[string]string
}

// createSink parses the rest of CREATE SINK.
func (p *uparser) createSink() (any, error) {
	cs := &CreateSink{IfNotExists: p.ifNotExists()}
	var err error
	if cs.Name, err = p.objectName(); err != nil {
		return nil, err
	}
	switch {
	case p.accept("from"):
		if cs.From, err = p.objectName(); err != nil {
			return nil, err
		}
	case p.accept("as"):
		// The query runs up to the last WITH ( at its top level: the
		// options end the statement.
		end := p.trailingOptions()
		if end < 0 {
			return nil, p.syntaxErr(len(p.toks) - 1)
		}
		if cs.Query, err = p.definingQuery(end); err != nil {
			return nil, err
		}
		p.i = end
	default:
		return nil, p.syntaxErr(p.i)
	}
	if err := p.expect("with"); err != nil {
		return nil, err
	}
	if cs.With, err = p.options(); err != nil {
		return nil, err
	}
	if p.accept("format") {
		format, encode, opts, err := p.formatEncode()
		if err != nil {
			return nil, err
		}
		cs.With["format"], cs.With["encode"] = format, encode
		for k, v := range opts {
			cs.With["encode."+k] = v
		}
	}
	return cs, nil
}

// formatEncode parses the rest of RisingWave's FORMAT format ENCODE
// encode [(option = value, ...)], names lowercased.
func (p *uparser) formatEncode() (format, encode string, opts map[string]string, err error) {
	if format, err = p.ident(); err != nil {
		return
	}
	if err = p.expect("encode"); err != nil {
		return
	}
	if encode, err = p.ident(); err != nil {
		return
	}
	if p.peek().isPunct("(") {
		opts, err = p.options()
	}
	return
}

// trailingOptions returns the index of the WITH of a trailing WITH (...)
// at the top level of the statement's remaining tokens, -1 if none.
func (p *uparser) trailingOptions() int {
	at, depth := -1, 0
	for i := p.i; p.at(i).kind != tkEOF; i++ {
		tk := p.at(i)
		switch {
		case tk.isPunct("("):
			depth++
		case tk.isPunct(")"):
			depth--
		case depth == 0 && tk.is("with") && p.at(i+1).isPunct("("):
			at = i
		}
	}
	return at
}
