package expr

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestMiscBuiltins(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "current_user", want: "streamdb"},
		{fn: "session_user", want: "streamdb"},
		{fn: "user", want: "streamdb"},
		{fn: "current_schema", want: "public"},
		{fn: "current_database", want: "streamdb"},
		{fn: "current_catalog", want: "streamdb"},
		{fn: "version", want: "PostgreSQL 15.0 (streamdb)"},
		{fn: "greatest", args: args(i4("1"), i4("NULL"), i4("3"), i4("2")), want: "3"},
		{fn: "least", args: args(num("1.5"), num("NULL"), num("-2")), want: "-2"},
		{fn: "greatest", args: args(txt("apple"), txt("pear")), want: "pear"},
		{fn: "least", args: args(i4("NULL"), i4("NULL")), want: nullOut},
		{fn: "pg_typeof", args: args(i4("1")), want: "integer"},
		{fn: "pg_typeof", args: args(i8("NULL")), want: "bigint"},
		{fn: "pg_typeof", args: args(unknown("x")), want: "unknown"},
		{fn: "pg_typeof", args: args(NewConst(types.Null, types.TUnknown)), want: "unknown"},
		{fn: "pg_typeof", args: args(lit(types.T{Family: types.Varchar, Mod: 5}, "ab")), want: "character varying"},
		{fn: "pg_typeof", args: args(lit(types.T{Family: types.Numeric, Mod: types.NumericMod(10, 2)}, "1.5")), want: "numeric"},
		{fn: "pg_typeof", args: args(tstz("2001-01-01 00:00+00")), want: "timestamp with time zone"},
	})
}
