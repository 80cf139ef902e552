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
		{"numeric", TNumeric}, {"decimal(10,2)", T{Numeric, NumericMod(10, 2)}},
		{"NUMERIC ( 10 , 2 )", T{Numeric, NumericMod(10, 2)}}, {"numeric(5)", T{Numeric, NumericMod(5, 0)}},
		{"text", TText}, {"TEXT", TText}, {"varchar", TVarchar}, {"VARCHAR(10)", T{Varchar, 10}},
		{"character varying(3)", T{Varchar, 3}}, {"char", T{Bpchar, 1}}, {"character", T{Bpchar, 1}},
		{"char(5)", T{Bpchar, 5}}, {"character(5)", T{Bpchar, 5}}, {"bpchar", TBpchar},
		{"bytea", TBytea}, {"date", TDate}, {"time", TTime}, {"time without time zone", TTime},
		{"time(3)", T{Time, 3}}, {"timestamp", TTimestamp}, {"timestamp(3)", T{Timestamp, 3}},
		{"timestamp without time zone", TTimestamp}, {"timestamp(9) without time zone", T{Timestamp, 6}},
		{"timestamptz", TTimestampTZ}, {"timestamp with time zone", TTimestampTZ},
		{"TIMESTAMP(0) WITH TIME ZONE", T{TimestampTZ, 0}}, {"timestamptz(3)", T{TimestampTZ, 3}},
		{"interval", TInterval}, {"jsonb", TJsonb}, {"json", TJsonb}, {"name", TName}, {"oid", TOid},
		{"regclass", TOid}, {"pg_catalog.int4", TInt4}, {`pg_catalog."varchar"(4)`, T{Varchar, 4}},
		{" unknown ", TUnknown},
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
		{"int4[]", "0A000", "array types are not supported: int4[]"},
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
		{TBpchar, "bpchar"}, {T{Bpchar, 3}, "character(3)"}, {T{Varchar, 3}, "character varying(3)"},
		{T{Numeric, NumericMod(10, 2)}, "numeric(10,2)"}, {T{Timestamp, 3}, "timestamp(3) without time zone"},
		{T{TimestampTZ, 0}, "timestamp(0) with time zone"}, {T{Time, 6}, "time(6) without time zone"},
		{TTimestampTZ, "timestamp with time zone"},
	}
	for _, tt := range tests {
		if got := tt.typ.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
