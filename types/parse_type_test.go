package types

import (
	"testing"

	"github.com/streamdb/streamdb/pgerror"
)

func TestParseTypeName(t *testing.T) {
	tests := []struct {
		in   string
		want T
	}{
		{"bool", TBool}, {"BOOLEAN", TBool}, {"int2", TInt2}, {"smallint", TInt2},
		{"int", TInt4}, {"int4", TInt4}, {"INTEGER", TInt4}, {"serial", TInt4},
		{"int8", TInt8}, {"bigint", TInt8}, {"bigserial", TInt8},
		{"real", TFloat4}, {"float4", TFloat4}, {"REAL", TFloat4},
		{"float8", TFloat8}, {"double  precision", TFloat8}, {"float", TFloat8}, {"FLOAT", TFloat8}, {"DOUBLE", TFloat8},
		{"float(24)", TFloat4}, {"float(25)", TFloat8}, {"float(1)", TFloat4},
		{"numeric", TNumeric}, {"decimal(10,2)", T{Family: Numeric, Mod: NumericMod(10, 2)}},
		{"NUMERIC ( 10 , 2 )", T{Family: Numeric, Mod: NumericMod(10, 2)}}, {"numeric(5)", T{Family: Numeric, Mod: NumericMod(5, 0)}},
		{"text", TText}, {"TEXT", TText}, {"varchar", TVarchar}, {"VARCHAR(10)", T{Family: Varchar, Mod: 10}},
		{"character varying(3)", T{Family: Varchar, Mod: 3}}, {"char", T{Family: Bpchar, Mod: 1}}, {"character", T{Family: Bpchar, Mod: 1}},
		{"char(5)", T{Family: Bpchar, Mod: 5}}, {"character(5)", T{Family: Bpchar, Mod: 5}}, {"bpchar", TBpchar},
		{"bytea", TBytea}, {"date", TDate}, {"time", TTime}, {"time without time zone", TTime},
		{"time(3)", T{Family: Time, Mod: 3}}, {"timestamp", TTimestamp}, {"timestamp(3)", T{Family: Timestamp, Mod: 3}},
		{"timestamp without time zone", TTimestamp}, {"timestamp(9) without time zone", T{Family: Timestamp, Mod: 6}},
		{"timestamptz", TTimestampTZ}, {"timestamp with time zone", TTimestampTZ},
		{"TIMESTAMP(0) WITH TIME ZONE", T{Family: TimestampTZ, Mod: 0}}, {"timestamptz(3)", T{Family: TimestampTZ, Mod: 3}},
		{"interval", TInterval}, {"jsonb", TJsonb}, {"json", TJsonb}, {"name", TName}, {"oid", TOid},
		{"regclass", TOid}, {"pg_catalog.int4", TInt4}, {`pg_catalog."varchar"(4)`, T{Family: Varchar, Mod: 4}},
		{" unknown ", TUnknown},
		{"int[]", T{Family: Array, Elem: Int4, Mod: -1}}, {"INTEGER []", T{Family: Array, Elem: Int4, Mod: -1}},
		{"_int4", T{Family: Array, Elem: Int4, Mod: -1}}, {"int4[3][]", T{Family: Array, Elem: Int4, Mod: -1}},
		{"varchar(10)[]", T{Family: Array, Elem: Varchar, Mod: 10}}, {"numeric(5,2)[]", T{Family: Array, Elem: Numeric, Mod: NumericMod(5, 2)}},
		{"timestamp with time zone[]", T{Family: Array, Elem: TimestampTZ, Mod: -1}}, {"json[]", T{Family: Array, Elem: Jsonb, Mod: -1}},
		{"pg_catalog._text", T{Family: Array, Elem: Text, Mod: -1}}, {"double precision[]", T{Family: Array, Elem: Float8, Mod: -1}},
	}
	for _, tt := range tests {
		got, err := ParseTypeName(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseTypeName(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseTypeNameErrors(t *testing.T) {
	tests := []struct{ in, code, msg string }{
		{"foo", "42704", `type "foo" does not exist`},
		{"Integer Foo", "42704", `type "integer foo" does not exist`},
		{"varchar(0)", "22023", "length for type varchar must be at least 1"},
		{"char(10485761)", "22023", "length for type char cannot exceed 10485760"},
		{"numeric(0)", "22023", "NUMERIC precision 0 must be between 1 and 1000"},
		{"numeric(1001,2)", "22023", "NUMERIC precision 1001 must be between 1 and 1000"},
		{"float(0)", "22023", "precision for type float must be at least 1 bit"},
		{"float(54)", "22023", "precision for type float must be less than 54 bits"},
		{"timestamp(-1)", "22023", "TIMESTAMP(-1) precision must not be negative"},
		{"text(5)", "42601", `type modifier is not allowed for type "text"`},
		{"_int4[]", "0A000", "arrays of arrays are not supported"},
		{"unknown[]", "42704", "could not find array type for data type unknown"},
		{"uuid[]", "0A000", "type uuid is not supported"},
		{"_integer", "42704", `type "_integer" does not exist`},
		{"Time With Time Zone", "0A000", "type time with time zone is not supported"},
		{"uuid", "0A000", "type uuid is not supported"},
		{"varchar(x)", "42601", `syntax error in type name "varchar(x)"`},
	}
	for _, tt := range tests {
		_, err := ParseTypeName(tt.in)
		pe := pgerror.From(err)
		if err == nil || pe.Code != tt.code || pe.Message != tt.msg {
			t.Errorf("ParseTypeName(%q) = %v, want %s %s", tt.in, err, tt.code, tt.msg)
		}
	}
}

func TestTypeString(t *testing.T) {
	tests := []struct {
		typ  T
		want string
	}{
		{TBpchar, "bpchar"}, {T{Family: Bpchar, Mod: 3}, "character(3)"}, {T{Family: Varchar, Mod: 3}, "character varying(3)"},
		{T{Family: Numeric, Mod: NumericMod(10, 2)}, "numeric(10,2)"}, {T{Family: Timestamp, Mod: 3}, "timestamp(3) without time zone"},
		{T{Family: TimestampTZ, Mod: 0}, "timestamp(0) with time zone"}, {T{Family: Time, Mod: 6}, "time(6) without time zone"},
		{TTimestampTZ, "timestamp with time zone"},
		{T{Family: Array, Elem: Int4, Mod: -1}, "integer[]"}, {T{Family: Array, Elem: Bpchar, Mod: -1}, "bpchar[]"},
		{T{Family: Array, Elem: Bpchar, Mod: 5}, "character(5)[]"}, {T{Family: Array, Elem: Numeric, Mod: NumericMod(10, 2)}, "numeric(10,2)[]"},
		{T{Family: Array, Elem: Timestamp, Mod: 3}, "timestamp(3) without time zone[]"},
	}
	for _, tt := range tests {
		if got := tt.typ.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestArrayOIDs(t *testing.T) {
	tests := []struct {
		name string
		oid  OID
	}{
		{"int4[]", 1007}, {"int8[]", 1016}, {"int2[]", 1005}, {"text[]", 1009}, {"varchar[]", 1015},
		{"numeric[]", 1231}, {"float4[]", 1021}, {"float8[]", 1022}, {"bool[]", 1000}, {"bytea[]", 1001},
		{"date[]", 1182}, {"timestamp[]", 1115}, {"timestamptz[]", 1185}, {"interval[]", 1187},
		{"jsonb[]", 3807}, {"bpchar[]", 1014}, {"name[]", 1003}, {"oid[]", 1028}, {"time[]", 1183},
	}
	for _, tt := range tests {
		typ, err := ParseTypeName(tt.name)
		if err != nil || typ.OID() != tt.oid {
			t.Errorf("%s: OID %d, %v; want %d", tt.name, typ.OID(), err, tt.oid)
			continue
		}
		if back, ok := FromOID(tt.oid); !ok || back != typ.WithoutMod() {
			t.Errorf("FromOID(%d) = %v, %v; want %v", tt.oid, back, ok, typ)
		}
		if typ.Size() != -1 {
			t.Errorf("%s: size %d", tt.name, typ.Size())
		}
	}
	if m := (T{Family: Array, Elem: Varchar, Mod: 10}).WireMod(); m != 14 {
		t.Errorf("varchar(10)[] wire typmod %d, want 14", m)
	}
}
