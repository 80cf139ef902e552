package sql

import (
	"context"
	"fmt"
	"strings"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
)

// Privileges, as PostgreSQL has them: a superuser may do anything; the
// owner of an object (its creator) may change, drop and grant it; others
// need the privileges granted to them or to PUBLIC. Reads and writes of
// relations are checked where statements are bound (planner.Binder
// SetRole), CREATE on a schema where a CREATE chooses its schema
// (createIn), ownership and superuser-only statements here.

// superuser reports whether the session's role is a superuser now (a
// role dropped while its session runs is none).
func (s *Session) superuser() bool { return s.e.Meta.Catalog().IsSuperuser(s.currentRole()) }

// mustBeSuperuser refuses what only superusers may do (42501).
func (s *Session) mustBeSuperuser(what, hint string) error {
	if s.superuser() {
		return nil
	}
	return pgerror.New(pgerror.CodeInsufficientPrivilege, "permission denied to %s", what).WithHint("%s", hint)
}

// mustOwn refuses a change to the relation schema.name (kind's, an index
// for KindIndex) unless the session's role owns it; a relation that does
// not exist passes, for the statement to report.
func (s *Session) mustOwn(cat *meta.Catalog, kind meta.ObjectKind, schema, name string) error {
	t, ok := cat.Table(schema, name)
	if kind == meta.KindIndex {
		t, _, ok = cat.Index(schema, name)
	}
	if !ok || cat.Owns(s.currentRole(), t.OwnerID()) {
		return nil
	}
	return meta.MustOwn(t.Kind.String(), t.Name)
}

// mustOwnSchema refuses a change to the schema name unless the session's
// role owns it.
func (s *Session) mustOwnSchema(cat *meta.Catalog, name string) error {
	sc, ok := cat.SchemaRecord(name)
	if !ok || cat.Owns(s.currentRole(), sc.OwnerID()) {
		return nil
	}
	return meta.MustOwn("schema", name)
}

// superuserOnly refuses the statements that change the cluster rather
// than an object: ALTER ... SET PARALLELISM and ALTER SYSTEM (settings,
// REBALANCE, DRAIN NODE, REMOVE NODE).
func (s *Session) superuserOnly(u any) error {
	const hint = "Only superusers change how the cluster runs jobs: connect as one (for example streamdb)."
	switch x := u.(type) {
	case *parser.AlterParallelism:
		return s.mustBeSuperuser("alter the parallelism of "+x.Name.Name, hint)
	case *parser.AlterSystem, *parser.RemoveNode, *parser.Rebalance:
		return s.mustBeSuperuser("run ALTER SYSTEM", hint)
	}
	return nil
}

// grantObjects returns what a GRANT or REVOKE names, checking that the
// session's role owns each object.
func (s *Session) grantObjects(cat *meta.Catalog, x *parser.Grant) ([]meta.ObjectRef, meta.ObjectKind, error) {
	kind := meta.KindTable
	switch x.On {
	case "SCHEMA":
		kind = meta.KindSchema
	case "SEQUENCE":
		kind = meta.KindSequence
	}
	var refs []meta.ObjectRef
	for _, schema := range x.InSchemas {
		if !cat.HasSchema(schema) {
			return nil, 0, pgerror.New(pgerror.CodeInvalidSchemaName, "schema %q does not exist", schema)
		}
		for _, t := range cat.Tables() {
			if t.Schema == schema && (t.Kind == meta.KindSequence) == (kind == meta.KindSequence) {
				refs = append(refs, meta.ObjectRef{Kind: kind, Schema: t.Schema, Name: t.Name})
			}
		}
	}
	for _, n := range x.Objects {
		if kind == meta.KindSchema {
			if _, ok := cat.SchemaRecord(n.Name); !ok {
				return nil, 0, pgerror.New(pgerror.CodeInvalidSchemaName, "schema %q does not exist", n.Name)
			}
			refs = append(refs, meta.ObjectRef{Kind: kind, Name: n.Name})
			continue
		}
		t, ok := cat.Resolve(s.searchPath(), n.Schema, n.Name)
		if !ok || kind == meta.KindSequence && t.Kind != meta.KindSequence {
			return nil, 0, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", n.Name)
		}
		refs = append(refs, meta.ObjectRef{Kind: kind, Schema: t.Schema, Name: t.Name})
	}
	for _, r := range refs {
		var err error
		if kind == meta.KindSchema {
			err = s.mustOwnSchema(cat, r.Name)
		} else {
			err = s.mustOwn(cat, kind, r.Schema, r.Name)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	return refs, kind, nil
}

// roleOID returns the oid of the role a statement names: name, "" for the
// session's user (CURRENT_USER), meta.Public for "public" when public is
// allowed.
func (s *Session) roleOID(cat *meta.Catalog, name string, public bool) (uint32, error) {
	switch {
	case name == "":
		return s.currentRole(), nil
	case name == "public" && public:
		return meta.Public, nil
	}
	r, ok := cat.Role(name)
	if !ok {
		return 0, pgerror.New(pgerror.CodeUndefinedObject, "role %q does not exist", name).
			WithHint("SELECT rolname FROM pg_roles lists the roles; CREATE ROLE %s creates one.", name)
	}
	return r.ID, nil
}

// grant runs GRANT and REVOKE on relations, sequences and schemas.
func (s *Session) grant(ctx context.Context, x *parser.Grant) (pgwire.Rows, error) {
	cat := s.e.Meta.Catalog()
	refs, kind, err := s.grantObjects(cat, x)
	if err != nil {
		return nil, err
	}
	applicable := meta.Applicable(kind)
	privs := applicable
	if x.Privileges != nil {
		privs = 0
		for _, name := range x.Privileges {
			p, ok := meta.ParsePrivilege(name)
			if !ok {
				return nil, pgerror.New(pgerror.CodeSyntaxError, "unrecognized privilege type %q", name)
			}
			if p&applicable == 0 {
				return nil, pgerror.New(pgerror.CodeInvalidGrantOperation, "invalid privilege type %s for %s", name, kind.String()).
					WithHint("Privileges of a %s: %s.", kind.String(), applicable)
			}
			privs |= p
		}
	}
	grantees := make([]uint32, len(x.Roles))
	for i, name := range x.Roles {
		if grantees[i], err = s.roleOID(cat, name, true); err != nil {
			return nil, err
		}
	}
	if err := s.e.Meta.Grant(ctx, refs, grantees, privs, s.currentRole(), x.Revoke); err != nil {
		return nil, err
	}
	if x.Revoke {
		return done("REVOKE"), nil
	}
	return done("GRANT"), nil
}

// alterOwner runs ALTER ... OWNER TO: the owner may give an object to
// itself again and a superuser to anyone (PostgreSQL also lets an owner
// give it to a role it is a member of; roles have no members here).
func (s *Session) alterOwner(ctx context.Context, x *parser.AlterOwner) (pgwire.Rows, error) {
	cat := s.e.Meta.Catalog()
	owner, err := s.roleOID(cat, x.Role, false)
	if err != nil {
		return nil, err
	}
	ref := meta.ObjectRef{Kind: meta.KindSchema, Name: x.Name.Name}
	if x.Kind == "SCHEMA" {
		if err := s.mustOwnSchema(cat, ref.Name); err != nil {
			return nil, err
		}
	} else {
		kind, err := alterKind(x.Kind)
		if err != nil {
			return nil, err
		}
		if kind == meta.KindIndex {
			return nil, pgerror.New(pgerror.CodeWrongObjectType, "an index has the owner of its table").
				WithHint("Change the table's owner: ALTER TABLE ... OWNER TO %s.", x.Role)
		}
		t, ok := cat.Resolve(s.searchPath(), x.Name.Schema, x.Name.Name)
		if !ok || t.Kind != kind {
			if x.IfExists {
				return done("ALTER " + x.Kind), nil
			}
			return nil, pgerror.New(pgerror.CodeUndefinedTable, "%s %q does not exist", kind.String(), x.Name.Name)
		}
		if err := s.mustOwn(cat, kind, t.Schema, t.Name); err != nil {
			return nil, err
		}
		ref = meta.ObjectRef{Kind: kind, Schema: t.Schema, Name: t.Name}
	}
	if owner != s.currentRole() {
		if err := s.mustBeSuperuser("change the owner of "+x.Name.Name, "Only superusers give objects to other roles."); err != nil {
			return nil, err
		}
	}
	if err := s.e.Meta.AlterOwner(ctx, ref, owner); err != nil {
		return nil, err
	}
	return done("ALTER " + x.Kind), nil
}

// RoleName implements expr.Backend: the name of the role with oid, as
// pg_get_userbyid gives it ("unknown (OID=n)" for none).
func (s *Session) RoleName(oid uint32) string {
	if r, ok := s.e.Meta.Catalog().RoleByID(oid); ok {
		return r.Name
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

// HasPrivilege implements expr.Backend: has_table_privilege and its kin.
func (s *Session) HasPrivilege(kind string, role, object any, privs string) (held, ok bool, err error) {
	cat := s.e.Meta.Catalog()
	id := s.currentRole()
	switch r := role.(type) {
	case string:
		if id, err = s.roleOID(cat, r, true); err != nil {
			return false, false, err
		}
	case uint32:
		if _, found := cat.RoleByID(r); !found {
			return false, false, nil
		}
		id = r
	}
	objKind := map[string]meta.ObjectKind{"table": meta.KindTable, "sequence": meta.KindSequence, "schema": meta.KindSchema}[kind]
	want, err := inquiredPrivileges(privs, kind, objKind)
	if err != nil {
		return false, false, err
	}
	switch kind {
	case "database":
		if name, isName := object.(string); isName && name != DatabaseName || object == uint32(0) {
			return false, false, pgerror.New(pgerror.CodeInvalidCatalogName, "database %q does not exist", object)
		}
		// Everyone may connect and use temporary objects; CREATE
		// (schemas) is the superusers'.
		return want&^meta.PrivCreate != 0 || cat.IsSuperuser(id), true, nil
	case "schema":
		var name string
		switch o := object.(type) {
		case string:
			name = o
			if _, found := cat.SchemaRecord(name); !found && cat.SchemaPrivileges(id, name) == 0 {
				return false, false, pgerror.New(pgerror.CodeInvalidSchemaName, "schema %q does not exist", name)
			}
		case uint32:
			if name, ok = schemaByOID(cat, o); !ok {
				return false, false, nil
			}
		}
		return cat.SchemaPrivileges(id, name)&want != 0, true, nil
	}
	var t *meta.Table
	switch o := object.(type) {
	case string:
		parts := append([]string{""}, planner.SplitQualified(o)...)
		schema, name := parts[len(parts)-2], parts[len(parts)-1]
		var found bool
		t, found = cat.Resolve(s.searchPath(), schema, name)
		switch {
		case !found && len(parts) <= 3 && planner.IsSystemRelation(schema, name):
			// The system catalogs: readable by everyone.
			return want&meta.PrivSelect != 0, true, nil
		case !found || len(parts) > 3:
			return false, false, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", o)
		}
	case uint32:
		if t, ok = cat.TableByID(o); !ok {
			return want&meta.PrivSelect != 0 && o < meta.FirstObjectID, o < meta.FirstObjectID, nil
		}
	}
	if kind == "sequence" && t.Kind != meta.KindSequence {
		return false, false, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a sequence", t.Name)
	}
	return cat.Privileges(id, t)&want != 0 && cat.SchemaPrivileges(id, t.Schema)&meta.PrivUsage != 0, true, nil
}

// inquiredPrivileges parses the privilege list of has_*_privilege
// ("SELECT, INSERT WITH GRANT OPTION"); database privileges (CONNECT,
// TEMPORARY) stand for USAGE.
func inquiredPrivileges(list, kind string, objKind meta.ObjectKind) (meta.Privilege, error) {
	var want meta.Privilege
	for _, item := range strings.Split(list, ",") {
		name := strings.ToUpper(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.ToLower(item)), "with grant option")))
		p, ok := meta.ParsePrivilege(name)
		if kind == "database" {
			p, ok = map[string]meta.Privilege{"CREATE": meta.PrivCreate, "CONNECT": meta.PrivUsage, "TEMPORARY": meta.PrivUsage, "TEMP": meta.PrivUsage}[name]
		} else if ok && p&meta.Applicable(objKind) == 0 {
			ok = false
		}
		if !ok {
			return 0, pgerror.New(pgerror.CodeInvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(item))
		}
		want |= p
	}
	return want, nil
}

// schemaByOID returns the name of the schema with oid (the system
// schemas' included).
func schemaByOID(cat *meta.Catalog, oid uint32) (string, bool) {
	if oid == meta.PublicSchemaID {
		return meta.DefaultSchema, true
	}
	for _, sc := range cat.Schemas() {
		if sc.ID == oid {
			return sc.Name, true
		}
	}
	return "", false
}

// noRole stands for a role that no longer exists: it holds no privilege
// (0 would check none).
const noRole = ^uint32(0)

// currentRole returns the oid of the role whose privileges the session
// has: the one SET ROLE chose, else the session user's.
func (s *Session) currentRole() uint32 {
	name, _ := s.vars.get("role")
	if name == "none" || name == "" {
		return s.login
	}
	if r, ok := s.e.Meta.Catalog().Role(name); ok {
		return r.ID
	}
	return noRole
}

// checkSetRole refuses SET ROLE name unless the session user is a
// superuser or name is its own role (roles have no members here).
func (s *Session) checkSetRole(name string) error {
	if name == "none" {
		return nil
	}
	cat := s.e.Meta.Catalog()
	r, ok := cat.Role(name)
	switch {
	case !ok:
		return pgerror.New(pgerror.CodeInvalidParameterValue, "role %q does not exist", name)
	case r.ID != s.login && !cat.IsSuperuser(s.login):
		return pgerror.New(pgerror.CodeInsufficientPrivilege, "permission denied to set role %q", name).
			WithHint("Only superusers take another role: connect as %s instead.", name)
	}
	return nil
}
