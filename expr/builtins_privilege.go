package expr

import "github.com/streamdb/streamdb/types"

// The privilege inquiry functions: has_table_privilege([user,] table,
// privilege) and its kin for sequences, schemas and the database, each
// taking names or oids, and pg_get_userbyid.
func init() {
	arg := func(d types.Datum, f types.Family) any {
		if f == types.Oid {
			return uint32(d.Int())
		}
		return d.Str()
	}
	for _, kind := range []string{"table", "sequence", "schema", "database"} {
		name := "has_" + kind + "_privilege"
		inquiry := func(withUser bool, userArg, objArg types.Family) Overload {
			args := []types.Family{objArg, types.Text}
			if withUser {
				args = []types.Family{userArg, objArg, types.Text}
			}
			return volatile(sig(types.TBool, func(c *Ctx, a []types.Datum) (types.Datum, error) {
				p, err := backend(c, name)
				if err != nil {
					return types.Null, err
				}
				var role any
				if withUser {
					role, a = arg(a[0], userArg), a[1:]
				}
				held, ok, err := p.HasPrivilege(kind, role, arg(a[0], objArg), a[1].Str())
				if err != nil || !ok {
					return types.Null, err
				}
				return types.NewBool(held), nil
			}, args...))
		}
		var overloads []Overload
		for _, obj := range []types.Family{types.Text, types.Oid} {
			overloads = append(overloads, inquiry(false, 0, obj))
			for _, user := range []types.Family{types.Text, types.Oid} {
				overloads = append(overloads, inquiry(true, user, obj))
			}
		}
		RegisterBuiltin(name, overloads...)
	}
	RegisterBuiltin("pg_get_userbyid", volatile(sig(types.TName, func(c *Ctx, a []types.Datum) (types.Datum, error) {
		p, err := backend(c, "pg_get_userbyid")
		if err != nil {
			return types.Null, err
		}
		return types.NewString(p.RoleName(uint32(a[0].Int()))), nil
	}, types.Oid)))
}
