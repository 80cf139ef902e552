package sql_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql"
)

// TestRoles runs role statements in turn as the bootstrap superuser and as
// the users it creates, checking each outcome's SQLSTATE and, for
// queries, the rows.
func TestRoles(t *testing.T) {
	n := openNode(t)
	as := func(user string) map[string]string {
		return map[string]string{"user": user, "database": sql.DatabaseName}
	}
	super := n.connect(as("streamdb"))
	steps := []struct {
		who  string // "super", or a user to connect as
		sql  string
		code string // expected SQLSTATE, "" for success
		rows string // expected rows joined by ";" (checked when set)
	}{
		{"super", "SELECT current_user, session_user, user, current_role", "", "streamdb|streamdb|streamdb|streamdb"},
		{"super", "CREATE USER alice PASSWORD 'secret'", "", ""},
		{"super", "CREATE ROLE readers", "", ""},
		{"super", "CREATE USER alice", pgerror.CodeDuplicateObject, ""},
		{"super", "CREATE ROLE pg_mine", pgerror.CodeReservedName, ""},
		{"super", "CREATE USER bob PASSWORD 'SCRAM-SHA-256$4096:bad'", pgerror.CodeInvalidParameterValue, ""},
		{"super", "SELECT rolname, rolsuper, rolcanlogin FROM pg_roles ORDER BY 1", "", "alice|f|t;readers|f|f;streamdb|t|t"},
		{"super", "SELECT usename FROM pg_user ORDER BY 1", "", "alice;streamdb"},
		{"super", "SELECT rolname, rolpassword IS NULL FROM pg_authid WHERE rolname = 'alice'", "", "alice|t"},
		{"alice", "SELECT current_user, current_setting('is_superuser')", "", "alice|off"},
		{"alice", "CREATE USER mallory", pgerror.CodeInsufficientPrivilege, ""},
		{"alice", "ALTER USER alice SUPERUSER", pgerror.CodeInsufficientPrivilege, ""},
		{"alice", "ALTER USER streamdb PASSWORD 'x'", pgerror.CodeInsufficientPrivilege, ""},
		{"alice", "DROP ROLE readers", pgerror.CodeInsufficientPrivilege, ""},
		{"alice", "ALTER USER alice PASSWORD 'new'", "", ""},
		{"alice", "ALTER USER CURRENT_USER PASSWORD 'newer'", "", ""},
		{"super", "ALTER ROLE nobody LOGIN", pgerror.CodeUndefinedObject, ""},
		{"super", "ALTER ROLE readers RENAME TO viewers", "", ""},
		{"super", "ALTER ROLE streamdb RENAME TO root", pgerror.CodeFeatureNotSupported, ""},
		{"super", "DROP USER streamdb", pgerror.CodeObjectInUse, ""},
		{"super", "DROP ROLE readers", pgerror.CodeUndefinedObject, ""},
		{"super", "DROP ROLE IF EXISTS readers, viewers", "", ""},
		{"super", "ALTER USER alice NOLOGIN", "", ""},
		{"super", "SELECT rolname FROM pg_roles ORDER BY 1", "", "alice;streamdb"},
	}
	for i, st := range steps {
		s := super
		if st.who != "super" {
			ps, err := n.e.Connect(context.Background(), as(st.who))
			if err != nil {
				t.Fatalf("step %d: connect as %s: %v", i, st.who, err)
			}
			s = ps.(*sql.Session)
		}
		res, err := query(s, st.sql)
		if got := pgerror.Code(err); err != nil && got != st.code || err == nil && st.code != "" {
			t.Fatalf("step %d %s: error %v, want SQLSTATE %q", i, st.sql, err, st.code)
		}
		if st.rows != "" && strings.Join(res.rows, ";") != st.rows {
			t.Fatalf("step %d %s: rows %q, want %q", i, st.sql, res.rows, st.rows)
		}
	}
	// A NOLOGIN role cannot open a session (28000); a name that is no role
	// is the superuser's alias, as every name was before roles existed.
	if _, err := n.e.Connect(context.Background(), as("alice")); pgerror.Code(err) != pgerror.CodeInvalidAuthorization {
		t.Fatalf("NOLOGIN role connected: %v", err)
	}
	alias := n.connect(as("tester"))
	if res := mustQuery(t, alias, "SELECT current_user, current_setting('is_superuser')"); !slices.Equal(res.rows, []string{"tester|on"}) {
		t.Fatalf("alias: %q", res.rows)
	}
	// A role dropped while its session runs does not become the alias.
	mustQuery(t, super, "CREATE USER dave")
	dave := n.connect(as("dave"))
	mustQuery(t, super, "DROP USER dave")
	if _, err := query(dave, "CREATE USER x"); pgerror.Code(err) != pgerror.CodeInsufficientPrivilege {
		t.Fatalf("a dropped role's session created a role: %v", err)
	}
	if r, ok := n.e.Meta.Catalog().Role("alice"); !ok || !strings.HasPrefix(r.Verifier, "SCRAM-SHA-256$4096:") {
		t.Fatalf("alice's verifier: %+v", r)
	}
}
