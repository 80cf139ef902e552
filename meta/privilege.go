package meta

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// Privilege is a set of privileges on a relation or schema, one bit each,
// as PostgreSQL's aclitem holds them.
type Privilege uint16

// The privileges. REFERENCES and TRIGGER are granted and shown for
// compatibility (GRANT ALL); nothing in streamdb needs them.
const (
	PrivSelect Privilege = 1 << iota
	PrivInsert
	PrivUpdate
	PrivDelete
	PrivTruncate
	PrivReferences
	PrivTrigger
	PrivUsage
	PrivCreate
)

// privilegeNames are the privileges' SQL names and aclitem letters, in
// the order PostgreSQL prints aclitems ("arwdDxtUC").
var privilegeNames = []struct {
	p      Privilege
	name   string
	letter byte
}{
	{PrivInsert, "INSERT", 'a'}, {PrivSelect, "SELECT", 'r'}, {PrivUpdate, "UPDATE", 'w'}, {PrivDelete, "DELETE", 'd'},
	{PrivTruncate, "TRUNCATE", 'D'}, {PrivReferences, "REFERENCES", 'x'}, {PrivTrigger, "TRIGGER", 't'},
	{PrivUsage, "USAGE", 'U'}, {PrivCreate, "CREATE", 'C'},
}

// Applicable returns every privilege that objects of kind k (a relation
// kind, or KindSchema) can have: what ALL PRIVILEGES grants on them.
func Applicable(k ObjectKind) Privilege {
	switch k {
	case KindSchema:
		return PrivUsage | PrivCreate
	case KindSequence:
		return PrivUsage | PrivSelect | PrivUpdate
	}
	return PrivSelect | PrivInsert | PrivUpdate | PrivDelete | PrivTruncate | PrivReferences | PrivTrigger
}

// ParsePrivilege returns the privilege named name (SELECT, insert, ...).
func ParsePrivilege(name string) (Privilege, bool) {
	for _, n := range privilegeNames {
		if strings.EqualFold(n.name, name) {
			return n.p, true
		}
	}
	return 0, false
}

// Names returns the privileges' SQL names (INSERT, SELECT, ...).
func (p Privilege) Names() []string {
	var names []string
	for _, n := range privilegeNames {
		if p&n.p != 0 {
			names = append(names, n.name)
		}
	}
	return names
}

// String returns the privileges' SQL names, comma-separated
// ("INSERT, SELECT").
func (p Privilege) String() string { return strings.Join(p.Names(), ", ") }

// letters returns the privileges as aclitem letters ("arwd").
func (p Privilege) letters() string {
	var b []byte
	for _, n := range privilegeNames {
		if p&n.p != 0 {
			b = append(b, n.letter)
		}
	}
	return string(b)
}

// Public is the grantee id of PUBLIC: every role.
const Public uint32 = 0

// Grant is one entry of an object's access list: the privileges a role
// (or PUBLIC) holds on it beyond its owner's.
type Grant struct {
	Grantee uint32    `json:"grantee"`
	Privs   Privilege `json:"privs"`
	Grantor uint32    `json:"grantor,omitempty"`
}

// ACL is an object's access list: one Grant per grantee, in the order
// the grantees were first granted something.
type ACL []Grant

// granted returns the privileges the list gives role (including PUBLIC's).
func (a ACL) granted(role uint32) Privilege {
	var p Privilege
	for _, g := range a {
		if g.Grantee == role || g.Grantee == Public {
			p |= g.Privs
		}
	}
	return p
}

// with returns a copy of a with privs added to (revoke: removed from)
// grantee's entry; entries left empty go.
func (a ACL) with(grantee, grantor uint32, privs Privilege, revoke bool) ACL {
	out := slices.Clone(a)
	i := slices.IndexFunc(out, func(g Grant) bool { return g.Grantee == grantee })
	switch {
	case i < 0 && revoke:
		return a
	case i < 0:
		return append(out, Grant{Grantee: grantee, Privs: privs, Grantor: grantor})
	case revoke:
		out[i].Privs &^= privs
	default:
		out[i].Privs |= privs
	}
	return slices.DeleteFunc(out, func(g Grant) bool { return g.Privs == 0 })
}

// Items returns the list as PostgreSQL's aclitem[] text shows it
// (relacl, nspacl): nil while nobody but the owner holds a privilege
// (the defaults), else the owner's entry first, then one per grantee
// ("alice=arwd/streamdb", "=r/streamdb" for PUBLIC).
func (c *Catalog) Items(a ACL, owner uint32, kind ObjectKind) []string {
	if len(a) == 0 {
		return nil
	}
	ownerName := c.RoleName(owner)
	items := []string{ownerName + "=" + Applicable(kind).letters() + "/" + ownerName}
	for _, g := range a {
		grantee := ""
		if g.Grantee != Public {
			grantee = c.RoleName(g.Grantee)
		}
		grantor := owner
		if g.Grantor != 0 {
			grantor = g.Grantor
		}
		items = append(items, grantee+"="+g.Privs.letters()+"/"+c.RoleName(grantor))
	}
	return items
}

// KindSchema stands for schemas where privileges and ObjectRef take an
// object kind.
const KindSchema ObjectKind = 255

// OwnerID returns the role owning t: the bootstrap superuser for objects
// made before relations had owners.
func (t *Table) OwnerID() uint32 {
	if t.Owner == 0 {
		return BootstrapRoleID
	}
	return t.Owner
}

// OwnerID returns the role owning s (the bootstrap superuser's for
// public and for schemas made before schemas had owners).
func (s *Schema) OwnerID() uint32 {
	if s.Owner == 0 {
		return BootstrapRoleID
	}
	return s.Owner
}

// publicSchema is the default schema's record: owned by the bootstrap
// superuser, with USAGE for every role and CREATE for none, as in
// PostgreSQL 15.
var publicSchema = &Schema{ID: PublicSchemaID, Name: DefaultSchema, ACL: ACL{{Grantee: Public, Privs: PrivUsage}}}

// PublicSchemaID is the default schema's oid, PostgreSQL's.
const PublicSchemaID = 2200

// SchemaRecord returns the schema name's record, public's included.
func (c *Catalog) SchemaRecord(name string) (*Schema, bool) {
	if name == DefaultSchema {
		if c.public != nil {
			return c.public, true
		}
		return publicSchema, true
	}
	s, ok := c.schemas[name]
	return s, ok
}

// RoleByID returns the role with oid id.
func (c *Catalog) RoleByID(id uint32) (*Role, bool) {
	i := slices.IndexFunc(c.roles, func(r *Role) bool { return r.ID == id })
	if i < 0 {
		return nil, false
	}
	return c.roles[i], true
}

// RoleName returns the name of the role with oid id (its number if it
// no longer exists, as PostgreSQL prints a dangling aclitem).
func (c *Catalog) RoleName(id uint32) string {
	if r, ok := c.RoleByID(id); ok {
		return r.Name
	}
	return fmt.Sprint(id)
}

// IsSuperuser reports whether role is a superuser.
func (c *Catalog) IsSuperuser(role uint32) bool {
	r, ok := c.RoleByID(role)
	return ok && r.Superuser
}

// Privileges returns the privileges role holds on t: all of them for a
// superuser and for the owner, else what t's list grants it and PUBLIC.
func (c *Catalog) Privileges(role uint32, t *Table) Privilege {
	if c.IsSuperuser(role) || t.OwnerID() == role {
		return Applicable(t.Kind)
	}
	return t.ACL.granted(role)
}

// SchemaPrivileges returns the privileges role holds on the schema name
// (all of them on the system schemas' USAGE, none on one that does not
// exist).
func (c *Catalog) SchemaPrivileges(role uint32, name string) Privilege {
	s, ok := c.SchemaRecord(name)
	switch {
	case !ok:
		if name == PgCatalogSchema || name == InformationSchemaSchema || name == StreamdbCatalogSchema {
			return PrivUsage
		}
		return 0
	case c.IsSuperuser(role) || s.OwnerID() == role:
		return Applicable(KindSchema)
	}
	return s.ACL.granted(role)
}

// Owns reports whether role may change or drop an object owned by
// owner: it is the owner, or a superuser.
func (c *Catalog) Owns(role, owner uint32) bool {
	return role == owner || c.IsSuperuser(role)
}

// ObjectRef names an object that GRANT, REVOKE or ALTER ... OWNER TO
// changes: a relation of Kind (any relation kind for KindTable, as
// PostgreSQL's GRANT ... ON TABLE takes views too) or, for KindSchema,
// the schema Name.
type ObjectRef struct {
	Kind   ObjectKind `json:"kind"`
	Schema string     `json:"schema,omitempty"`
	Name   string     `json:"name"`
}

// grantCmd is GRANT or REVOKE of Privs on Objects to Grantees.
type grantCmd struct {
	Objects  []ObjectRef `json:"objects"`
	Grantees []uint32    `json:"grantees"`
	Privs    Privilege   `json:"privs"`
	Grantor  uint32      `json:"grantor"`
	Revoke   bool        `json:"revoke,omitempty"`
}

// alterOwnerCmd is ALTER ... OWNER TO.
type alterOwnerCmd struct {
	Object ObjectRef `json:"object"`
	Owner  uint32    `json:"owner"`
}

// Grant grants (revoke: revokes) privs on objects to grantees (role ids,
// Public for PUBLIC), as grantor.
func (m *Meta) Grant(ctx context.Context, objects []ObjectRef, grantees []uint32, privs Privilege, grantor uint32, revoke bool) error {
	_, err := m.apply(ctx, opGrant, grantCmd{objects, grantees, privs, grantor, revoke})
	return err
}

// AlterOwner makes role owner the owner of the object.
func (m *Meta) AlterOwner(ctx context.Context, object ObjectRef, owner uint32) error {
	_, err := m.apply(ctx, opAlterOwner, alterOwnerCmd{object, owner})
	return err
}

// object finds the object ref names.
func (c *Catalog) object(ref ObjectRef) (*Table, *Schema, error) {
	if ref.Kind == KindSchema {
		s, ok := c.SchemaRecord(ref.Name)
		if !ok {
			return nil, nil, pgerror.New(pgerror.CodeInvalidSchemaName, "schema %q does not exist", ref.Name)
		}
		return nil, s, nil
	}
	t, ok := c.Table(ref.Schema, ref.Name)
	if !ok || ref.Kind == KindSequence && t.Kind != KindSequence {
		return nil, nil, pgerror.New(pgerror.CodeUndefinedTable, "relation %q does not exist", ref.Name)
	}
	return t, nil, nil
}

// withObject returns a copy of c with the object ref names changed by
// edit (given a copy of the table or schema).
func (c *Catalog) withObject(ref ObjectRef, edit func(t *Table, s *Schema)) (*Catalog, error) {
	t, s, err := c.object(ref)
	if err != nil {
		return c, err
	}
	n := c.clone()
	if t != nil {
		nt := *t
		edit(&nt, nil)
		n.put(&nt)
		return n.seal(), nil
	}
	ns := *s
	edit(nil, &ns)
	if ns.Name == DefaultSchema {
		n.public = &ns
		return n.seal(), nil
	}
	n.schemas = make(map[string]*Schema, len(c.schemas))
	for k, v := range c.schemas {
		n.schemas[k] = v
	}
	n.schemas[ns.Name] = &ns
	return n.seal(), nil
}

// grant applies GRANT or REVOKE.
func (c *Catalog) grant(p grantCmd) (*Catalog, error) {
	for _, id := range p.Grantees {
		if _, ok := c.RoleByID(id); !ok && id != Public {
			return c, pgerror.New(pgerror.CodeUndefinedObject, "role with oid %d does not exist", id).
				WithHint("It was dropped while this statement ran.")
		}
	}
	n := c
	for _, ref := range p.Objects {
		var err error
		n, err = n.withObject(ref, func(t *Table, s *Schema) {
			var acl *ACL
			if t != nil {
				acl = &t.ACL
			} else {
				acl = &s.ACL
			}
			for _, id := range p.Grantees {
				*acl = acl.with(id, p.Grantor, p.Privs, p.Revoke)
			}
		})
		if err != nil {
			return c, err
		}
	}
	return n, nil
}

// alterOwner applies ALTER ... OWNER TO.
func (c *Catalog) alterOwner(p alterOwnerCmd) (*Catalog, error) {
	if _, ok := c.RoleByID(p.Owner); !ok {
		return c, pgerror.New(pgerror.CodeUndefinedObject, "role with oid %d does not exist", p.Owner)
	}
	return c.withObject(p.Object, func(t *Table, s *Schema) {
		if t != nil {
			t.Owner = p.Owner
		} else {
			s.Owner = p.Owner
		}
	})
}

// applyPrivilege applies a GRANT, REVOKE or OWNER TO command to cat.
func applyPrivilege(cat *Catalog, c command) (*Catalog, error) {
	if c.Op == opAlterOwner {
		p, err := decodePayload[alterOwnerCmd](c)
		if err != nil {
			return cat, err
		}
		return cat.alterOwner(*p)
	}
	p, err := decodePayload[grantCmd](c)
	if err != nil {
		return cat, err
	}
	return cat.grant(*p)
}

// roleDependents describes what keeps the role id from being dropped: the
// objects it owns and those it holds privileges on, as PostgreSQL's
// DETAIL lists them ("owner of table t", "privileges for table u").
func (c *Catalog) roleDependents(id uint32) []string {
	var out []string
	describe := func(kind ObjectKind, name string, owner uint32, acl ACL) {
		if owner == id {
			out = append(out, fmt.Sprintf("owner of %s %s", kind.String(), name))
		}
		if slices.ContainsFunc(acl, func(g Grant) bool { return g.Grantee == id }) {
			out = append(out, fmt.Sprintf("privileges for %s %s", kind.String(), name))
		}
	}
	for _, s := range c.Schemas() {
		describe(KindSchema, s.Name, s.OwnerID(), s.ACL)
	}
	pub, _ := c.SchemaRecord(DefaultSchema)
	describe(KindSchema, DefaultSchema, pub.OwnerID(), pub.ACL)
	for _, t := range c.ordered {
		describe(t.Kind, t.Schema+"."+t.Name, t.OwnerID(), t.ACL)
	}
	for _, f := range c.functions {
		if f.OwnerID() == id {
			out = append(out, "owner of function "+f.Schema+"."+f.Signature())
		}
	}
	return out
}

// Check refuses (42501) unless role holds one of privs on t and USAGE on
// its schema.
func (c *Catalog) Check(role uint32, t *Table, privs Privilege) error {
	if c.SchemaPrivileges(role, t.Schema)&PrivUsage == 0 {
		return permissionDenied(KindSchema, t.Schema, c.RoleName(role), PrivUsage)
	}
	if c.Privileges(role, t)&privs == 0 {
		return permissionDenied(t.Kind, t.Name, c.RoleName(role), privs)
	}
	return nil
}

// CheckSchema refuses (42501) unless role holds one of privs on the
// schema name.
func (c *Catalog) CheckSchema(role uint32, name string, privs Privilege) error {
	if c.SchemaPrivileges(role, name)&privs == 0 {
		return permissionDenied(KindSchema, name, c.RoleName(role), privs)
	}
	return nil
}

// permissionDenied is PostgreSQL's "permission denied for table t", with
// a hint naming the GRANT that would allow it.
func permissionDenied(kind ObjectKind, name, role string, privs Privilege) error {
	on := name
	switch kind {
	case KindSchema:
		on = "SCHEMA " + name
	case KindSequence:
		on = "SEQUENCE " + name
	}
	return pgerror.New(pgerror.CodeInsufficientPrivilege, "permission denied for %s %s", kind.String(), name).
		WithHint("Its owner or a superuser can allow it: GRANT %s ON %s TO %s.", privs.Names()[0], on, role)
}

// MustOwn is PostgreSQL's refusal of a change to an object that only its
// owner may make: "must be owner of table t" (42501).
func MustOwn(kind, name string) error {
	return pgerror.New(pgerror.CodeInsufficientPrivilege, "must be owner of %s %s", kind, name).
		WithHint("Connect as its owner or as a superuser.")
}
