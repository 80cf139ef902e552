package expr

import (
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// Backend is what the server-signalling functions ask of the session that
// runs a statement: its connection's process ID, and the other
// connections of the node by theirs.
type Backend interface {
	// BackendPID returns the process ID of the session's connection.
	BackendPID() int32
	// SignalBackend cancels the statement of the connection with process
	// ID pid, or ends the connection if terminate; it reports whether
	// such a connection exists on this node, and refuses (42501) to
	// signal another role's connection unless the session's is a
	// superuser.
	SignalBackend(pid int32, terminate bool) (bool, error)
	// Setting returns the value of a run-time parameter of the session
	// (current_setting); ok is false for one that does not exist.
	Setting(name string) (value string, ok bool)
	// HasPrivilege reports whether role (nil: the session's user; else a
	// name as string or an oid as uint32) holds one of the
	// comma-separated privileges privs ("SELECT, INSERT", each perhaps
	// followed by WITH GRANT OPTION) on object (a name or an oid) of kind
	// "table", "sequence", "schema" or "database"; ok is false (the
	// result NULL) for an oid that names nothing, as in PostgreSQL.
	HasPrivilege(kind string, role, object any, privs string) (held, ok bool, err error)
	// RoleName returns the name of the role with oid (pg_get_userbyid).
	RoleName(oid uint32) string
}

// backend returns the session running c, which the function name needs.
func backend(c *Ctx, name string) (Backend, error) {
	if c.Backend == nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "%s() is not available here: it needs a client session", name)
	}
	return c.Backend, nil
}

func init() {
	RegisterBuiltin("pg_backend_pid", volatile(sig(types.TInt4, func(c *Ctx, _ []types.Datum) (types.Datum, error) {
		b, err := backend(c, "pg_backend_pid")
		if err != nil {
			return types.Null, err
		}
		return types.NewInt(int64(b.BackendPID())), nil
	})))
	signal := func(name string, terminate bool) builtinFn {
		return func(c *Ctx, a []types.Datum) (types.Datum, error) {
			b, err := backend(c, name)
			if err != nil {
				return types.Null, err
			}
			ok, err := b.SignalBackend(int32(a[0].Int()), terminate)
			return types.NewBool(ok), err
		}
	}
	// pg_cancel_backend(pid) and pg_terminate_backend(pid [, timeout])
	// return false for a process ID that is not a connection of this
	// node; the timeout (how long PostgreSQL waits for the backend to
	// exit) is accepted and not waited for.
	// current_setting(name [, missing_ok]) is SHOW name as a value.
	setting := func(c *Ctx, a []types.Datum) (types.Datum, error) {
		b, err := backend(c, "current_setting")
		if err != nil {
			return types.Null, err
		}
		v, ok := b.Setting(a[0].Str())
		switch {
		case ok:
			return types.NewString(v), nil
		case len(a) > 1 && a[1].Bool():
			return types.Null, nil
		}
		return types.Null, pgerror.New(pgerror.CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", a[0].Str())
	}
	RegisterBuiltin("current_setting", volatile(sig(types.TText, setting, types.Text)), volatile(sig(types.TText, setting, types.Text, types.Bool)))
	RegisterBuiltin("pg_cancel_backend", volatile(sig(types.TBool, signal("pg_cancel_backend", false), types.Int4)))
	RegisterBuiltin("pg_terminate_backend", volatile(sig(types.TBool, signal("pg_terminate_backend", true), types.Int4)))
	RegisterBuiltin("pg_terminate_backend", volatile(sig(types.TBool, signal("pg_terminate_backend", true), types.Int4, types.Int8)))
}
