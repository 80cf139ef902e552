package expr

import "github.com/streamdb/streamdb/types"

// Identity of the server as the session-information functions report it.
const (
	// serverVersion is what version() returns; clients parse the
	// "PostgreSQL <major>.<minor>" prefix.
	serverVersion = "PostgreSQL 15.0 (streamdb)"
	databaseName  = "streamdb"
)

// DefaultUser is the bootstrap superuser: current_user where no session
// runs the expression (a view's dataflow).
const DefaultUser = "streamdb"

func init() {
	constant := func(t types.T, v string) Overload {
		return sig(t, func(*Ctx, []types.Datum) (types.Datum, error) { return types.NewString(v), nil })
	}
	// session_user is the session's authenticated user, current_user
	// (user, current_role) the role SET ROLE chose, if any.
	userFn := func(current bool) Overload {
		return volatile(sig(types.TName, func(c *Ctx, _ []types.Datum) (types.Datum, error) {
			if c == nil || c.Backend == nil {
				return types.NewString(DefaultUser), nil
			}
			if r, ok := c.Backend.Setting("role"); current && ok && r != "none" {
				return types.NewString(r), nil
			}
			u, _ := c.Backend.Setting("session_authorization")
			return types.NewString(u), nil
		}))
	}
	RegisterBuiltin("session_user", userFn(false))
	for _, name := range []string{"current_user", "user", "current_role"} {
		RegisterBuiltin(name, userFn(true))
	}
	RegisterBuiltin("current_database", constant(types.TName, databaseName))
	RegisterBuiltin("current_catalog", constant(types.TName, databaseName))
	RegisterBuiltin("version", constant(types.TText, serverVersion))
	// greatest and least take arguments the binder has already coerced to
	// one type; NULLs are skipped, and only all-NULL arguments give NULL.
	for _, g := range []struct {
		name string
		sign int
	}{{"greatest", 1}, {"least", -1}} {
		RegisterBuiltin(g.name, Overload{Args: []types.Family{Any, Any}, Variadic: true, Ret: SameAsArg(0), NonStrict: true,
			Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
				best := types.Null
				for _, v := range a {
					if !v.IsNull() && (best.IsNull() || types.Compare(v, best)*g.sign > 0) {
						best = v
					}
				}
				return best, nil
			}})
	}
	// pg_typeof has one overload per type family, so that resolution tells
	// each overload its argument's type (the value alone does not, and may
	// be NULL). Its result is the type's name as text rather than regtype.
	for f := types.Unknown; f <= types.Record; f++ {
		if f == types.Array {
			continue
		}
		name := types.T{Family: f, Mod: -1}.String()
		o := constant(types.TText, name)
		o.Args = []types.Family{f}
		o.NonStrict = true
		RegisterBuiltin("pg_typeof", o)
	}
	RegisterBuiltin("pg_typeof", Overload{Args: []types.Family{AnyArray}, Ret: Returns(types.TText), NonStrict: true,
		Typed: func(args []types.T) builtinFn {
			name := types.NewString(args[0].String())
			return func(*Ctx, []types.Datum) (types.Datum, error) { return name, nil }
		}})
}
