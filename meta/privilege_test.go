package meta

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

// TestPrivileges applies GRANT, REVOKE, OWNER TO and DROP ROLE through
// the FSM in turn and checks each outcome's SQLSTATE and the access lists
// after it (as relacl and nspacl show them), then that they survive a
// snapshot.
func TestPrivileges(t *testing.T) {
	f := newFSM(nil)
	for _, r := range []string{"alice", "bob"} {
		if _, err := applyCmd(t, f, opCreateRole, createRoleCmd{&Role{Name: r, Login: true}}); err != nil {
			t.Fatal(err)
		}
	}
	cat := f.catalog.Load()
	alice, _ := cat.Role("alice")
	bob, _ := cat.Role("bob")
	if _, err := applyCmd(t, f, opCreateTable, createTableCmd{Table: &Table{Name: "t", Kind: KindTable, HiddenRowID: true, Owner: alice.ID}}); err != nil {
		t.Fatal(err)
	}
	tbl := ObjectRef{Kind: KindTable, Name: "t"}
	pub := ObjectRef{Kind: KindSchema, Name: DefaultSchema}
	steps := []struct {
		name    string
		o       op
		payload any
		code    string
		want    string // t's relacl | public's nspacl
	}{
		{"defaults", opGrant, grantCmd{Objects: []ObjectRef{tbl}, Privs: PrivSelect}, "", "- | streamdb=UC/streamdb =U/streamdb"},
		{"grant select", opGrant, grantCmd{Objects: []ObjectRef{tbl}, Grantees: []uint32{bob.ID}, Privs: PrivSelect, Grantor: alice.ID}, "",
			"alice=arwdDxt/alice bob=r/alice | streamdb=UC/streamdb =U/streamdb"},
		{"grant more", opGrant, grantCmd{Objects: []ObjectRef{tbl}, Grantees: []uint32{bob.ID, Public}, Privs: PrivInsert | PrivUpdate, Grantor: alice.ID}, "",
			"alice=arwdDxt/alice bob=arw/alice =aw/alice | streamdb=UC/streamdb =U/streamdb"},
		{"revoke", opGrant, grantCmd{Objects: []ObjectRef{tbl}, Grantees: []uint32{Public}, Privs: PrivInsert | PrivUpdate, Revoke: true}, "",
			"alice=arwdDxt/alice bob=arw/alice | streamdb=UC/streamdb =U/streamdb"},
		{"create on public", opGrant, grantCmd{Objects: []ObjectRef{pub}, Grantees: []uint32{alice.ID}, Privs: PrivCreate, Grantor: BootstrapRoleID}, "",
			"alice=arwdDxt/alice bob=arw/alice | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
		{"missing relation", opGrant, grantCmd{Objects: []ObjectRef{{Kind: KindTable, Name: "u"}}, Grantees: []uint32{bob.ID}, Privs: PrivSelect}, pgerror.CodeUndefinedTable,
			"alice=arwdDxt/alice bob=arw/alice | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
		{"dropped grantee", opGrant, grantCmd{Objects: []ObjectRef{tbl}, Grantees: []uint32{4242}, Privs: PrivSelect}, pgerror.CodeUndefinedObject,
			"alice=arwdDxt/alice bob=arw/alice | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
		{"drop a grantee", opDropRole, dropRoleCmd{Name: "bob"}, pgerror.CodeDependentObjectsStillExist,
			"alice=arwdDxt/alice bob=arw/alice | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
		{"owner to bob", opAlterOwner, alterOwnerCmd{tbl, bob.ID}, "",
			"bob=arwdDxt/bob bob=arw/alice | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
		{"revoke all", opGrant, grantCmd{Objects: []ObjectRef{tbl}, Grantees: []uint32{bob.ID}, Privs: Applicable(KindTable), Revoke: true}, "",
			"- | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
		{"drop an owner", opDropRole, dropRoleCmd{Name: "bob"}, pgerror.CodeDependentObjectsStillExist,
			"- | streamdb=UC/streamdb =U/streamdb alice=C/streamdb"},
	}
	for _, s := range steps {
		_, err := applyCmd(t, f, s.o, s.payload)
		if got := pgerror.Code(err); err != nil && got != s.code || err == nil && s.code != "" {
			t.Fatalf("%s: error %v; want SQLSTATE %q", s.name, err, s.code)
		}
		if got := aclSummary(f.catalog.Load()); got != s.want {
			t.Fatalf("%s: acls %q; want %q", s.name, got, s.want)
		}
	}
	// The privileges the lists give.
	cat = f.catalog.Load()
	tab, _ := cat.Table("", "t")
	for _, c := range []struct {
		role   uint32
		schema Privilege
		table  Privilege
	}{
		{BootstrapRoleID, PrivUsage | PrivCreate, Applicable(KindTable)},
		{alice.ID, PrivUsage | PrivCreate, 0},
		{bob.ID, PrivUsage, Applicable(KindTable)},
	} {
		if got := cat.SchemaPrivileges(c.role, DefaultSchema); got != c.schema {
			t.Errorf("role %d on public: %v; want %v", c.role, got, c.schema)
		}
		if got := cat.Privileges(c.role, tab); got != c.table {
			t.Errorf("role %d on t: %v; want %v", c.role, got, c.table)
		}
	}
	if err := cat.Check(alice.ID, tab, PrivSelect); pgerror.Code(err) != pgerror.CodeInsufficientPrivilege || !strings.Contains(err.Error(), "permission denied for table t") {
		t.Errorf("alice reads t: %v", err)
	}
	if got, want := aclSummary(restored(t, f).catalog.Load()), steps[len(steps)-1].want; got != want {
		t.Fatalf("restored acls %q; want %q", got, want)
	}
}

// aclSummary shows t's relacl and public's nspacl ("-" for the defaults).
func aclSummary(c *Catalog) string {
	t, _ := c.Table("", "t")
	pub, _ := c.SchemaRecord(DefaultSchema)
	show := func(items []string) string {
		if items == nil {
			return "-"
		}
		return strings.Join(items, " ")
	}
	return show(c.Items(t.ACL, t.OwnerID(), t.Kind)) + " | " + show(c.Items(pub.ACL, pub.OwnerID(), KindSchema))
}
