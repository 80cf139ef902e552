package meta

import (
	"bytes"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestRoles applies role commands through the FSM in turn and checks each
// outcome's SQLSTATE and the roles after it, then that they survive a
// snapshot.
func TestRoles(t *testing.T) {
	f := newFSM(nil)
	yes, no, empty, verifier := true, false, "", "SCRAM-SHA-256$4096:c2FsdA==$x:y"
	steps := []struct {
		name    string
		o       op
		payload any
		code    string
		want    string // the roles after the step: name:super,login,password
	}{
		{"bootstrap", opDropRole, dropRoleCmd{Name: "nobody", IfExists: true}, "", "streamdb:SL-"},
		{"create", opCreateRole, createRoleCmd{&Role{Name: "alice", Login: true, Verifier: verifier}}, "", "alice:-LP streamdb:SL-"},
		{"duplicate", opCreateRole, createRoleCmd{&Role{Name: "alice"}}, pgerror.CodeDuplicateObject, "alice:-LP streamdb:SL-"},
		{"reserved", opCreateRole, createRoleCmd{&Role{Name: "pg_x"}}, pgerror.CodeReservedName, "alice:-LP streamdb:SL-"},
		{"superuser", opAlterRole, alterRoleCmd{"alice", RoleChange{Superuser: &yes, Login: &no}}, "", "alice:S-P streamdb:SL-"},
		{"password null", opAlterRole, alterRoleCmd{"alice", RoleChange{Verifier: &empty}}, "", "alice:S-- streamdb:SL-"},
		{"rename", opAlterRole, alterRoleCmd{"alice", RoleChange{NewName: "bob"}}, "", "bob:S-- streamdb:SL-"},
		{"rename onto another", opAlterRole, alterRoleCmd{"bob", RoleChange{NewName: "streamdb"}}, pgerror.CodeDuplicateObject, "bob:S-- streamdb:SL-"},
		{"alter missing", opAlterRole, alterRoleCmd{"alice", RoleChange{Login: &yes}}, pgerror.CodeUndefinedObject, "bob:S-- streamdb:SL-"},
		{"bootstrap stays superuser", opAlterRole, alterRoleCmd{"streamdb", RoleChange{Superuser: &no}}, pgerror.CodeFeatureNotSupported, "bob:S-- streamdb:SL-"},
		{"bootstrap password", opAlterRole, alterRoleCmd{"streamdb", RoleChange{Verifier: &verifier}}, "", "bob:S-- streamdb:SLP"},
		{"drop bootstrap", opDropRole, dropRoleCmd{Name: "streamdb"}, pgerror.CodeObjectInUse, "bob:S-- streamdb:SLP"},
		{"drop missing", opDropRole, dropRoleCmd{Name: "alice"}, pgerror.CodeUndefinedObject, "bob:S-- streamdb:SLP"},
		{"drop", opDropRole, dropRoleCmd{Name: "bob"}, "", "streamdb:SLP"},
	}
	for _, s := range steps {
		_, err := applyCmd(t, f, s.o, s.payload)
		if got := pgerror.Code(err); err != nil && got != s.code || err == nil && s.code != "" {
			t.Fatalf("%s: error %v; want SQLSTATE %q", s.name, err, s.code)
		}
		if got := roleSummary(f.catalog.Load()); got != s.want {
			t.Fatalf("%s: roles %q; want %q", s.name, got, s.want)
		}
	}
	if got := roleSummary(restored(t, f).catalog.Load()); got != "streamdb:SLP" {
		t.Fatalf("restored roles %q", got)
	}
}

type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

func roleSummary(c *Catalog) string {
	var out []byte
	for _, r := range c.Roles() {
		if len(out) > 0 {
			out = append(out, ' ')
		}
		flag := func(on bool, c byte) byte {
			if on {
				return c
			}
			return '-'
		}
		out = append(out, r.Name+":"...)
		out = append(out, flag(r.Superuser, 'S'), flag(r.Login, 'L'), flag(r.Verifier != "", 'P'))
	}
	return string(out)
}
