package planner

import "github.com/streamdb/streamdb/meta"

// SetRole makes the binder check that the role with oid role may read and
// write what the statement does (42501 otherwise): SELECT on each
// relation it reads, INSERT, UPDATE or DELETE on the table it changes,
// USAGE on their schemas. The relations a view reads are checked against
// its owner, as PostgreSQL does. Role 0, the default, checks nothing: the
// binds of streamdb itself (planning a job, recovery).
func (b *Binder) SetRole(role uint32) { b.role = role }

// require checks that the binder's role holds one of privs on t.
func (b *Binder) require(t *meta.Table, privs meta.Privilege) error {
	if b.role == 0 {
		return nil
	}
	return b.cat.Check(b.role, t, privs)
}
