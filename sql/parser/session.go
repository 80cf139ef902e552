package parser

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// set parses SET [SESSION|LOCAL] name {TO|=} {value, ...|DEFAULT} and the
// special forms SET TIME ZONE, SET NAMES and SET SCHEMA.
func (p *uparser) set() (any, error) {
	p.i++
	sv := &SetVar{}
	if p.accept("local") {
		sv.Local = true
	} else {
		p.accept("session")
	}
	switch {
	case p.accept("time", "zone"):
		sv.Name = "timezone"
		if p.accept("local") || p.accept("default") {
			sv.Default = true
			return sv, nil
		}
		// A number or an INTERVAL counts hours east of Greenwich (ISO),
		// unlike a string's POSIX offset: it becomes a zone named as
		// PostgreSQL names it, <+05:30>-05:30.
		iso := p.accept("interval")
		if tk := p.peek(); tk.isPunct("-") || tk.isPunct("+") || tk.kind == tkInt || tk.kind == tkNumeric || tk.kind == tkFloat {
			iso = true
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if iso {
			_ = p.accept("hour", "to", "minute") || p.accept("hour")
			if v, err = types.ISOZone(v); err != nil {
				return nil, err
			}
		}
		sv.Values = []string{v}
		return sv, nil
	case p.accept("names"):
		sv.Name = "client_encoding"
	case p.accept("schema"):
		sv.Name = "search_path"
	case p.accept("transaction"):
		st := &SetTransaction{}
		return st, p.txModes(&st.Modes, true)
	case !sv.Local && p.accept("characteristics", "as", "transaction"):
		st := &SetTransaction{Session: true}
		return st, p.txModes(&st.Modes, true)
	case p.accept("role"):
		// SET ROLE name | NONE, and the setting's own SET role TO name.
		sv.Name = "role"
		if !p.acceptPunct("=") {
			p.accept("to")
		}
	case p.peek().is("characteristics") || p.peek().is("session"):
		return nil, p.notSupported(p.i, "SET "+strings.ToUpper(p.peek().val))
	default:
		name, err := p.settingName()
		if err != nil {
			return nil, err
		}
		sv.Name = name
		if !p.acceptPunct("=") {
			if err := p.expect("to"); err != nil {
				return nil, err
			}
		}
	}
	if p.accept("default") {
		sv.Default = true
		return sv, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		sv.Values = append(sv.Values, v)
		if !p.acceptPunct(",") {
			return sv, nil
		}
	}
}

// settingName consumes a possibly dotted setting name, lowercased.
func (p *uparser) settingName() (string, error) {
	var parts []string
	for {
		tk := p.peek()
		if tk.kind != tkIdent && tk.kind != tkQIdent {
			return "", p.syntaxErr(p.i)
		}
		parts = append(parts, strings.ToLower(tk.val))
		p.i++
		if !p.acceptPunct(".") {
			return strings.Join(parts, "."), nil
		}
	}
}

// reset parses RESET {name|ALL|TIME ZONE}.
func (p *uparser) reset() (any, error) {
	p.i++
	if p.accept("time", "zone") {
		return &ResetVar{Name: "timezone"}, nil
	}
	name, err := p.settingName()
	return &ResetVar{Name: name}, err
}

// show parses SHOW {name|ALL|TIME ZONE|TRANSACTION ISOLATION LEVEL} and
// SHOW {TABLES|MATERIALIZED VIEWS|VIEWS|SOURCES|SINKS}.
func (p *uparser) show() (any, error) {
	p.i++
	switch {
	case p.accept("time", "zone"):
		return &ShowVar{Name: "timezone"}, nil
	case p.accept("transaction", "isolation", "level"):
		return &ShowVar{Name: "transaction_isolation"}, nil
	case p.accept("materialized", "views"):
		return &ShowObjects{Kind: "MATERIALIZED VIEWS"}, nil
	case p.peek().is("create") && p.at(p.i+1).kind != tkEOF:
		p.i++
		sc := &ShowCreate{Kind: p.objectKind("MATERIALIZED VIEW", "TABLE", "VIEW", "SOURCE")}
		if sc.Kind == "" {
			return nil, p.errUnsupportedKind("SHOW CREATE", p.i)
		}
		var err error
		sc.Name, err = p.objectName()
		return sc, err
	}
	switch tk := p.peek(); {
	case tk.is("tables"), tk.is("views"), tk.is("sources"), tk.is("sinks"), tk.is("subscriptions"):
		if p.at(p.i+1).kind == tkEOF {
			p.i++
			return &ShowObjects{Kind: strings.ToUpper(tk.val)}, nil
		}
	}
	name, err := p.settingName()
	return &ShowVar{Name: name}, err
}

// txControl parses BEGIN, START TRANSACTION, COMMIT, END, ROLLBACK, ABORT.
func (p *uparser) txControl() (any, error) {
	tk := p.peek()
	p.i++
	tx := &TxControl{}
	switch tk.val {
	case "begin":
		tx.Op = "BEGIN"
		_ = p.accept("work") || p.accept("transaction")
		return tx, p.txModes(&tx.Modes, false)
	case "start":
		tx.Op, tx.Start = "BEGIN", true
		if err := p.expect("transaction"); err != nil {
			return nil, err
		}
		return tx, p.txModes(&tx.Modes, false)
	case "commit", "end":
		tx.Op = "COMMIT"
	default:
		tx.Op = "ROLLBACK"
		if p.peek().is("to") {
			return nil, p.notSupported(p.i, "ROLLBACK TO SAVEPOINT")
		}
	}
	_ = p.accept("work") || p.accept("transaction")
	if p.accept("and", "chain") {
		return nil, p.notSupported(p.i-2, "AND CHAIN")
	}
	p.accept("and", "no", "chain")
	return tx, nil
}

// txModes parses transaction modes after BEGIN, START TRANSACTION or SET
// TRANSACTION, where at least one is required.
func (p *uparser) txModes(m *TxModes, required bool) error {
	if required && p.peek().kind == tkEOF {
		return p.syntaxErr(p.i)
	}
	for n := 0; p.peek().kind != tkEOF; n++ {
		if n > 0 {
			p.acceptPunct(",")
		}
		switch {
		case p.accept("isolation", "level"):
			switch {
			case p.accept("serializable"):
				m.Isolation = "serializable"
			case p.accept("repeatable", "read"):
				m.Isolation = "repeatable read"
			case p.accept("read", "committed"):
				m.Isolation = "read committed"
			case p.accept("read", "uncommitted"):
				m.Isolation = "read uncommitted"
			default:
				return p.syntaxErr(p.i)
			}
		case p.accept("read", "only"):
			m.Access = "read only"
		case p.accept("read", "write"):
			m.Access = "read write"
		case p.accept("deferrable"), p.accept("not", "deferrable"):
		default:
			return p.syntaxErr(p.i)
		}
	}
	return nil
}
