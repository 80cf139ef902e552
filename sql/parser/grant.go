package parser

import "strings"

// Grant is GRANT privileges ON objects TO roles, or (Revoke) REVOKE
// privileges ON objects FROM roles.
type Grant struct {
	Revoke bool
	// Privileges are the privileges' names, uppercase (SELECT, INSERT,
	// ...); nil for ALL [PRIVILEGES].
	Privileges []string
	// On is TABLE (also for views, materialized views, sources and the
	// other relations, as PostgreSQL's GRANT ... ON TABLE), SEQUENCE or
	// SCHEMA.
	On string
	// Objects are the relations (or, for SCHEMA, the schemas in Name)
	// named; InSchemas the schemas of ON ALL TABLES|SEQUENCES IN SCHEMA.
	Objects   []ObjectName
	InSchemas []string
	// Roles are the grantees: role names, "public" for PUBLIC, "" for
	// CURRENT_USER, SESSION_USER or CURRENT_ROLE (the session's user).
	Roles []string
}

// AlterOwner is ALTER kind name OWNER TO role (Role "": the session's
// user); Kind is one of objectKinds or SCHEMA.
type AlterOwner struct {
	Kind     string
	Name     ObjectName
	IfExists bool
	Role     string
}

// grant parses GRANT and REVOKE (after the first word).
func (p *uparser) grant(revoke bool) (any, error) {
	g := &Grant{Revoke: revoke}
	if revoke && p.peek().is("grant") && p.at(p.i+1).is("option") {
		return nil, p.notSupported(p.i, "REVOKE GRANT OPTION FOR")
	}
	if p.accept("all") {
		p.accept("privileges")
	} else {
		for {
			tk := p.peek()
			if tk.kind != tkIdent {
				return nil, p.syntaxErr(p.i)
			}
			p.i++
			g.Privileges = append(g.Privileges, strings.ToUpper(tk.val))
			if p.peek().isPunct("(") {
				return nil, notSupportedAt(p.src, p.peek().pos, "column privileges are not supported").
					WithHint("Grant on a view of the columns instead.")
			}
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	if !p.accept("on") {
		if !p.peek().is("to") && !p.peek().is("from") {
			return nil, p.syntaxErr(p.i)
		}
		return nil, notSupportedAt(p.src, p.peek().pos, "GRANT and REVOKE of role membership are not supported").
			WithHint("Grant privileges on objects to each role: GRANT SELECT ON t TO name.")
	}
	if err := p.grantObjects(g); err != nil {
		return nil, err
	}
	if err := p.expect(map[bool]string{false: "to", true: "from"}[revoke]); err != nil {
		return nil, err
	}
	for {
		tk := p.peek()
		switch {
		case tk.kind == tkIdent && (tk.is("current_user") || tk.is("session_user") || tk.is("current_role")):
			p.i++
			g.Roles = append(g.Roles, "")
		case tk.kind == tkIdent && tk.is("public"):
			p.i++
			g.Roles = append(g.Roles, "public")
		default:
			p.accept("group")
			name, err := p.ident()
			if err != nil {
				return nil, err
			}
			g.Roles = append(g.Roles, name)
		}
		if !p.acceptPunct(",") {
			break
		}
	}
	switch {
	case !revoke && p.peek().is("with"):
		return nil, p.notSupported(p.i, "WITH GRANT OPTION")
	case p.peek().is("granted"):
		return nil, p.notSupported(p.i, "GRANTED BY")
	case revoke:
		p.dropBehavior() // no grant options, so nothing depends on a grant
	}
	return g, nil
}

// grantObjects parses what GRANT or REVOKE applies to: [TABLE|SEQUENCE]
// name, ..., SCHEMA name, ..., or ALL {TABLES|SEQUENCES} IN SCHEMA name,
// ....
func (p *uparser) grantObjects(g *Grant) error {
	g.On = "TABLE"
	switch {
	case p.accept("all"):
		switch {
		case p.accept("tables"):
		case p.accept("sequences"):
			g.On = "SEQUENCE"
		default:
			return p.notSupported(p.i, "GRANT ON ALL "+strings.ToUpper(p.peek().val))
		}
		if err := p.expect("in", "schema"); err != nil {
			return err
		}
		for {
			name, err := p.ident()
			if err != nil {
				return err
			}
			g.InSchemas = append(g.InSchemas, name)
			if !p.acceptPunct(",") {
				return nil
			}
		}
	case p.accept("schema"):
		g.On = "SCHEMA"
	case p.accept("sequence"):
		g.On = "SEQUENCE"
	case p.accept("table"):
	case p.peek().is("database") || p.peek().is("function") || p.peek().is("procedure") || p.peek().is("routine") ||
		p.peek().is("language") || p.peek().is("tablespace") || p.peek().is("type") || p.peek().is("domain") ||
		p.peek().is("foreign") || p.peek().is("large"):
		return p.notSupported(p.i, "GRANT ON "+strings.ToUpper(p.peek().val))
	}
	for {
		n, err := p.objectName()
		if err != nil {
			return err
		}
		if g.On == "SCHEMA" && n.Schema != "" {
			return p.syntaxErr(p.i - 1)
		}
		g.Objects = append(g.Objects, n)
		if !p.acceptPunct(",") {
			return nil
		}
	}
}

// ownerTo parses the role of OWNER TO (after those words).
func (p *uparser) ownerTo(a *AlterOwner) (any, error) {
	if tk := p.peek(); tk.kind == tkIdent && (tk.is("current_user") || tk.is("session_user") || tk.is("current_role")) {
		p.i++
		return a, nil
	}
	var err error
	a.Role, err = p.ident()
	return a, err
}
