package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// CreateRole is CREATE {ROLE|USER} name [[WITH] option ...]; CREATE USER
// implies LOGIN.
type CreateRole struct {
	Name    string
	Options RoleOptions
}

// AlterRole is ALTER {ROLE|USER} name [WITH] option ... or ALTER
// {ROLE|USER} name RENAME TO new_name. Name "" stands for CURRENT_USER,
// SESSION_USER or CURRENT_ROLE: the session's user.
type AlterRole struct {
	Name    string
	Options RoleOptions
	NewName string
}

// DropRole is DROP {ROLE|USER} [IF EXISTS] name, ...
type DropRole struct {
	Names    []string
	IfExists bool
}

// RoleOptions are the options of CREATE/ALTER ROLE; nil fields were not
// given.
type RoleOptions struct {
	// Password is the password or SCRAM-SHA-256 verifier of PASSWORD
	// '...', "" for PASSWORD NULL.
	Password  *string
	Superuser *bool
	Login     *bool
}

// roleKind consumes ROLE or USER and reports which (ok false: neither).
func (p *uparser) roleKind() (user, ok bool) {
	switch {
	case p.accept("role"):
		return false, true
	case p.accept("user"):
		return true, true
	}
	return false, false
}

// createRole parses the rest of CREATE ROLE/USER.
func (p *uparser) createRole(user bool) (any, error) {
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	cr := &CreateRole{Name: name}
	if err := p.roleOptions(&cr.Options); err != nil {
		return nil, err
	}
	if cr.Options.Login == nil {
		cr.Options.Login = new(user)
	}
	return cr, nil
}

// alterRole parses the rest of ALTER ROLE/USER.
func (p *uparser) alterRole() (any, error) {
	ar := &AlterRole{}
	if tk := p.peek(); tk.kind == tkIdent && (tk.is("current_user") || tk.is("session_user") || tk.is("current_role")) {
		p.i++
	} else {
		var err error
		if ar.Name, err = p.ident(); err != nil {
			return nil, err
		}
	}
	if p.accept("rename") {
		if err := p.expect("to"); err != nil {
			return nil, err
		}
		var err error
		ar.NewName, err = p.ident()
		return ar, err
	}
	at := p.i
	if err := p.roleOptions(&ar.Options); err != nil {
		return nil, err
	}
	if p.i == at {
		return nil, p.syntaxErr(p.i)
	}
	return ar, nil
}

// dropRole parses the rest of DROP ROLE/USER.
func (p *uparser) dropRole() (any, error) {
	d := &DropRole{IfExists: p.accept("if", "exists")}
	for {
		name, err := p.ident()
		if err != nil {
			return nil, err
		}
		d.Names = append(d.Names, name)
		if !p.acceptPunct(",") {
			return d, nil
		}
	}
}

// roleOptions parses [WITH] option ... into o; a repeated or conflicting
// option is 42601, as in PostgreSQL.
func (p *uparser) roleOptions(o *RoleOptions) error {
	p.accept("with")
	for {
		at := p.i
		var dup bool
		switch {
		case p.accept("password"), p.accept("encrypted", "password"):
			dup = o.Password != nil
			if p.accept("null") {
				o.Password = new("")
				break
			}
			tk := p.peek()
			if tk.kind != tkString {
				return p.syntaxErr(p.i)
			}
			p.i++
			o.Password = new(tk.val)
		case p.accept("superuser"), p.accept("nosuperuser"):
			dup = o.Superuser != nil
			o.Superuser = new(p.at(p.i - 1).is("superuser"))
		case p.accept("login"), p.accept("nologin"):
			dup = o.Login != nil
			o.Login = new(p.at(p.i - 1).is("login"))
		case p.peek().kind == tkIdent && !p.peek().is("rename"):
			return notSupportedAt(p.src, p.peek().pos, "role option %s is not supported", strings.ToUpper(p.peek().val)).
				WithHint("streamdb's roles take PASSWORD, SUPERUSER, NOSUPERUSER, LOGIN and NOLOGIN.")
		default:
			return nil
		}
		if dup {
			return pgerror.New(pgerror.CodeSyntaxError, "conflicting or redundant options").WithPosition(charPos(p.src, p.at(at).pos))
		}
	}
}
