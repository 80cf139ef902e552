package expr

import (
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/types"
)

func TestMiscBuiltins(t *testing.T) {
	runFnCases(t, []fnCase{
		{fn: "current_user", want: "streamdb"},
		{fn: "session_user", want: "streamdb"},
		{fn: "user", want: "streamdb"},
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

func TestPgCatalogBuiltins(t *testing.T) {
	oid := func(s string) Expr { return lit(types.TOid, s) }
	runFnCases(t, []fnCase{
		{fn: "pg_type_is_visible", args: args(oid("23")), want: "t"},
		// The catalog's answers need a session (tests/sqllogic/testdata/privileges.slt).
		{fn: "pg_get_userbyid", args: args(oid("10")), code: "0A000", want: "pg_get_userbyid() is not available here: it needs a client session"},
		{fn: "has_table_privilege", args: args(txt("t"), txt("SELECT")), code: "0A000", want: "has_table_privilege() is not available here: it needs a client session"},
		{fn: "pg_get_expr", args: args(txt("1 + 2"), oid("1000")), want: "1 + 2"},
		{fn: "pg_get_expr", args: args(txt("'x'::text"), oid("1000"), lit(types.TBool, "t")), want: "'x'::text"},
		{fn: "pg_encoding_to_char", args: args(i4("6")), want: "UTF8"},
		{fn: "format_type", args: args(oid("23"), i4("-1")), want: "integer"},
		{fn: "format_type", args: args(oid("1043"), i4("14")), want: "character varying(10)"},
		{fn: "format_type", args: args(oid("1700"), i4(fmt.Sprint(types.NumericMod(10, 2)+4))), want: "numeric(10,2)"},
		{fn: "format_type", args: args(oid("1184"), i4("NULL")), want: "timestamp with time zone"},
		{fn: "format_type", args: args(oid("424242"), i4("-1")), want: "???"},
		{fn: "format_type", args: args(oid("NULL"), i4("-1")), want: nullOut},
		// format_type with typmods, against PostgreSQL 15.
		{fn: "format_type", args: args(oid("0"), i4("NULL")), want: "-"},
		{fn: "format_type", args: args(oid("1043"), i4("4")), want: "character varying"},
		{fn: "format_type", args: args(oid("1043"), i4("5")), want: "character varying(1)"},
		{fn: "format_type", args: args(oid("1042"), i4("5")), want: "character(1)"},
		{fn: "format_type", args: args(oid("1042"), i4("4")), want: "character"},
		{fn: "format_type", args: args(oid("1042"), i4("-1")), want: "bpchar"},
		{fn: "format_type", args: args(oid("1042"), i4("NULL")), want: "character"},
		{fn: "format_type", args: args(oid("1014"), i4("-1")), want: "bpchar[]"},
		{fn: "format_type", args: args(oid("1015"), i4("14")), want: "character varying(10)[]"},
		{fn: "format_type", args: args(oid("1700"), i4("4")), want: "numeric(0,0)"},
		{fn: "format_type", args: args(oid("1700"), i4("3")), want: "numeric"},
		{fn: "format_type", args: args(oid("1700"), i4("198658")), want: "numeric(3,-2)"},
		{fn: "format_type", args: args(oid("1114"), i4("3")), want: "timestamp(3) without time zone"},
		{fn: "format_type", args: args(oid("1083"), i4("0")), want: "time(0) without time zone"},
		{fn: "format_type", args: args(oid("1186"), i4("2147418112")), want: "interval(0)"},
		{fn: "format_type", args: args(oid("1186"), i4("327679")), want: "interval year"},
		{fn: "format_type", args: args(oid("1186"), i4("262147")), want: "interval year(3)"},
		{fn: "format_type", args: args(oid("1187"), i4("327679")), want: "interval year[]"},
		{fn: "format_type", args: args(oid("1186"), i4("5")), code: "XX000", want: "invalid INTERVAL typmod: 0x5"},
		{fn: "format_type", args: args(oid("23"), i4("5")), want: "integer"},
		{fn: "format_type", args: args(oid("25"), i4("7")), want: "text(7)"},
		{fn: "format_type", args: args(oid("1082"), i4("3")), want: "date(3)"},
		{fn: "pg_relation_is_publishable", args: args(oid("1000")), want: "f"},
		// pg_size_pretty against PostgreSQL 15.
		{fn: "pg_size_pretty", args: args(i8("0")), want: "0 bytes"},
		{fn: "pg_size_pretty", args: args(i8("10239")), want: "10239 bytes"},
		{fn: "pg_size_pretty", args: args(i8("10240")), want: "10 kB"},
		{fn: "pg_size_pretty", args: args(i8("-10240")), want: "-10 kB"},
		{fn: "pg_size_pretty", args: args(i8("20971007")), want: "20 MB"},
		{fn: "pg_size_pretty", args: args(i8("1234567890123")), want: "1150 GB"},
		{fn: "pg_size_pretty", args: args(i8("9223372036854775807")), want: "8192 PB"},
	})
}

func TestOidIntegerComparison(t *testing.T) {
	for _, c := range []struct {
		l, r Expr
		want bool
	}{
		{lit(types.TOid, "0"), i4("0"), true},
		{i8("1000"), lit(types.TOid, "1000"), true},
		{lit(types.TOid, "1001"), i4("1000"), false},
	} {
		e, err := NewBinary("=", c.l, c.r)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type() != types.TBool {
			t.Fatalf("%v: type %v", e, e.Type())
		}
		v, err := e.Eval(nil, nil)
		if err != nil || v.Bool() != c.want {
			t.Errorf("%v = %v, %v; want %v", e, v, err, c.want)
		}
	}
}
