package meta

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerror"
)

// BootstrapRole is the superuser every cluster has from its creation, with
// no password until one is set (ALTER USER streamdb PASSWORD ...).
const BootstrapRole = "streamdb"

// BootstrapRoleID is the bootstrap superuser's oid, PostgreSQL's.
const BootstrapRoleID = 10

// Role is a user or role (CREATE ROLE/USER). A *Role obtained from the
// catalog is shared and must not be modified.
type Role struct {
	// ID is the role's oid (pg_authid.oid).
	ID   uint32 `json:"id"`
	Name string `json:"name"`
	// Verifier is the SCRAM-SHA-256 verifier of the role's password in
	// PostgreSQL's format, "" when it has none; never the password.
	Verifier  string `json:"verifier,omitempty"`
	Superuser bool   `json:"superuser,omitempty"`
	Login     bool   `json:"login,omitempty"`
}

// RoleChange is what ALTER ROLE changes: nil fields stay as they are.
type RoleChange struct {
	// Verifier replaces the password's verifier; "" removes it
	// (PASSWORD NULL).
	Verifier  *string `json:"verifier,omitempty"`
	Superuser *bool   `json:"superuser,omitempty"`
	Login     *bool   `json:"login,omitempty"`
	// NewName renames the role.
	NewName string `json:"new_name,omitempty"`
}

type createRoleCmd struct {
	Role *Role `json:"role"`
}

type alterRoleCmd struct {
	Name   string     `json:"name"`
	Change RoleChange `json:"change"`
}

type dropRoleCmd struct {
	Name     string `json:"name"`
	IfExists bool   `json:"if_exists,omitempty"`
}

// bootstrapRoles are the roles of a new catalog.
func bootstrapRoles() []*Role {
	return []*Role{{ID: BootstrapRoleID, Name: BootstrapRole, Superuser: true, Login: true}}
}

// Roles returns every role, sorted by name. The slice is shared and must
// not be modified.
func (c *Catalog) Roles() []*Role { return c.roles }

// Role returns the role called name.
func (c *Catalog) Role(name string) (*Role, bool) {
	i := slices.IndexFunc(c.roles, func(r *Role) bool { return r.Name == name })
	if i < 0 {
		return nil, false
	}
	return c.roles[i], true
}

// withRoles returns a copy of c whose roles are rs, sorted.
func (c *Catalog) withRoles(rs []*Role) *Catalog {
	n := c.clone()
	slices.SortFunc(rs, func(a, b *Role) int { return cmp.Compare(a.Name, b.Name) })
	n.roles = rs
	return n.seal()
}

// checkRoleName refuses the names PostgreSQL reserves (pg_*).
func checkRoleName(name string) error {
	if strings.HasPrefix(name, "pg_") {
		return pgerror.New(pgerror.CodeReservedName, "role name %q is reserved", name).
			WithDetail("Role names starting with \"pg_\" are reserved.").WithHint("Choose a name that does not start with pg_.")
	}
	return nil
}

func roleNotFound(name string) error {
	return pgerror.New(pgerror.CodeUndefinedObject, "role %q does not exist", name).
		WithHint("SELECT rolname FROM pg_roles lists the roles; CREATE USER %s creates one.", name)
}

// createRole adds r, assigning its id.
func (c *Catalog) createRole(r *Role) (*Catalog, error) {
	if err := checkRoleName(r.Name); err != nil {
		return c, err
	}
	if _, ok := c.Role(r.Name); ok {
		return c, pgerror.New(pgerror.CodeDuplicateObject, "role %q already exists", r.Name).
			WithHint("Use ALTER ROLE to change it, or choose another name.")
	}
	r.ID = c.nextID
	n := c.withRoles(append(slices.Clone(c.roles), r))
	n.nextID++
	return n, nil
}

// alterRole applies ch to the role called name.
func (c *Catalog) alterRole(name string, ch RoleChange) (*Catalog, error) {
	old, ok := c.Role(name)
	if !ok {
		return c, roleNotFound(name)
	}
	r := *old
	if ch.NewName != "" && ch.NewName != name {
		if old.ID == BootstrapRoleID {
			return c, pgerror.New(pgerror.CodeFeatureNotSupported, "the bootstrap superuser %q cannot be renamed", name).
				WithHint("Create another superuser instead.")
		}
		if err := checkRoleName(ch.NewName); err != nil {
			return c, err
		}
		if _, ok := c.Role(ch.NewName); ok {
			return c, pgerror.New(pgerror.CodeDuplicateObject, "role %q already exists", ch.NewName)
		}
		r.Name = ch.NewName
	}
	if ch.Verifier != nil {
		r.Verifier = *ch.Verifier
	}
	if ch.Superuser != nil {
		if old.ID == BootstrapRoleID && !*ch.Superuser {
			return c, pgerror.New(pgerror.CodeFeatureNotSupported, "permission denied to alter role").
				WithDetail("The bootstrap superuser %q must keep the SUPERUSER attribute.", name)
		}
		r.Superuser = *ch.Superuser
	}
	if ch.Login != nil {
		r.Login = *ch.Login
	}
	rs := slices.Clone(c.roles)
	rs[slices.Index(rs, old)] = &r
	return c.withRoles(rs), nil
}

// dropRole removes the role called name.
func (c *Catalog) dropRole(name string, ifExists bool) (*Catalog, error) {
	old, ok := c.Role(name)
	switch {
	case !ok && ifExists:
		return c, nil
	case !ok:
		return c, roleNotFound(name)
	case old.ID == BootstrapRoleID:
		return c, pgerror.New(pgerror.CodeObjectInUse, "cannot drop role %s because it is required by the database system", name)
	}
	if deps := c.roleDependents(old.ID); len(deps) > 0 {
		return c, pgerror.New(pgerror.CodeDependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", name).
			WithDetail("%s", strings.Join(deps, "\n")).
			WithHint("Drop those objects, give them another owner (ALTER ... OWNER TO) and revoke the role's privileges first.")
	}
	return c.withRoles(slices.DeleteFunc(slices.Clone(c.roles), func(r *Role) bool { return r == old })), nil
}

// CreateRole adds the role r (CREATE ROLE/USER); its id is assigned.
func (m *Meta) CreateRole(ctx context.Context, r *Role) error {
	_, err := m.apply(ctx, opCreateRole, createRoleCmd{r})
	return err
}

// AlterRole changes the role called name (ALTER ROLE/USER).
func (m *Meta) AlterRole(ctx context.Context, name string, ch RoleChange) error {
	_, err := m.apply(ctx, opAlterRole, alterRoleCmd{name, ch})
	return err
}

// DropRole removes the role called name (DROP ROLE/USER).
func (m *Meta) DropRole(ctx context.Context, name string, ifExists bool) error {
	_, err := m.apply(ctx, opDropRole, dropRoleCmd{name, ifExists})
	return err
}

// applyRole applies a role command to cat.
func applyRole(cat *Catalog, c command) (*Catalog, error) {
	switch c.Op {
	case opCreateRole:
		p, err := decodePayload[createRoleCmd](c)
		if err != nil {
			return cat, err
		}
		return cat.createRole(p.Role)
	case opAlterRole:
		p, err := decodePayload[alterRoleCmd](c)
		if err != nil {
			return cat, err
		}
		return cat.alterRole(p.Name, p.Change)
	default:
		p, err := decodePayload[dropRoleCmd](c)
		if err != nil {
			return cat, err
		}
		return cat.dropRole(p.Name, p.IfExists)
	}
}
