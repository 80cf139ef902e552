package sql

import (
	"context"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/scram"
	"github.com/streamdb/streamdb/sql/parser"
)

// loginRole checks that user may open a session and returns the oid of
// its role. A trusted connection (pgwire lets only those through without
// a password) may name no role: it is an alias of the bootstrap
// superuser, as every user name was before roles existed.
func loginRole(cat *meta.Catalog, user string) (uint32, error) {
	r, ok := cat.Role(user)
	if !ok {
		return meta.BootstrapRoleID, nil
	}
	if !r.Login {
		return 0, pgerror.New(pgerror.CodeInvalidAuthorization, "role %q is not permitted to log in", user).
			WithHint("A superuser can allow it: ALTER ROLE %s LOGIN.", user)
	}
	return r.ID, nil
}

// mustManageRoles refuses a role statement of a session whose user is no
// superuser (42501).
func (s *Session) mustManageRoles(what string) error {
	return s.mustBeSuperuser(what, "Only superusers manage roles: connect as one (for example streamdb). A user may change their own password with ALTER USER name PASSWORD '...'.")
}

// verifier returns the verifier to store for PASSWORD '...' (nil: not
// given; "" for PASSWORD NULL or an empty password).
func verifier(password *string) (*string, error) {
	if password == nil || *password == "" {
		return password, nil
	}
	v, err := scram.Encode(*password)
	if err != nil {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "%v", err).
			WithHint("Give a password, or a verifier as PostgreSQL writes it: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>.")
	}
	return &v, nil
}

// createRole runs CREATE ROLE/USER.
func (s *Session) createRole(ctx context.Context, x *parser.CreateRole) (pgwire.Rows, error) {
	if err := s.mustManageRoles("create role"); err != nil {
		return nil, err
	}
	v, err := verifier(x.Options.Password)
	if err != nil {
		return nil, err
	}
	r := &meta.Role{Name: x.Name, Superuser: x.Options.Superuser != nil && *x.Options.Superuser, Login: *x.Options.Login}
	if v != nil {
		r.Verifier = *v
	}
	if err := s.e.Meta.CreateRole(ctx, r); err != nil {
		return nil, err
	}
	return done("CREATE ROLE"), nil
}

// alterRole runs ALTER ROLE/USER: a superuser may change any role, any
// user their own password.
func (s *Session) alterRole(ctx context.Context, x *parser.AlterRole) (pgwire.Rows, error) {
	name := x.Name
	if name == "" {
		name = s.user
	}
	ownPassword := name == s.user && x.NewName == "" && x.Options.Superuser == nil && x.Options.Login == nil
	if !ownPassword {
		if err := s.mustManageRoles("alter role"); err != nil {
			return nil, err
		}
	}
	if x.NewName != "" && name == s.user {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "session user cannot be renamed").
			WithHint("Connect as another superuser to rename %s.", name)
	}
	v, err := verifier(x.Options.Password)
	if err != nil {
		return nil, err
	}
	if err := s.e.Meta.AlterRole(ctx, name, meta.RoleChange{Verifier: v, Superuser: x.Options.Superuser, Login: x.Options.Login, NewName: x.NewName}); err != nil {
		return nil, err
	}
	return done("ALTER ROLE"), nil
}

// dropRoles runs DROP ROLE/USER.
func (s *Session) dropRoles(ctx context.Context, x *parser.DropRole) (pgwire.Rows, error) {
	if err := s.mustManageRoles("drop role"); err != nil {
		return nil, err
	}
	for _, name := range x.Names {
		if name == s.user {
			return nil, pgerror.New(pgerror.CodeObjectInUse, "current user cannot be dropped").
				WithHint("Connect as another superuser to drop %s.", name)
		}
		if err := s.e.Meta.DropRole(ctx, name, x.IfExists); err != nil {
			return nil, err
		}
	}
	return done("DROP ROLE"), nil
}
