package planner_test

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestParamTypes checks parameter type inference from context, as
// PostgreSQL's Parse/Describe reports it.
func TestParamTypes(t *testing.T) {
	tests := []struct {
		sql      string
		declared []types.T
		want     []string
	}{
		{"SELECT $1 + 1", nil, []string{"integer"}},
		{"SELECT a FROM t WHERE a = $1", nil, []string{"integer"}},
		{"SELECT x FROM u WHERE $1 = x", nil, []string{"bigint"}},
		{"SELECT $1::int8", nil, []string{"bigint"}},
		{"SELECT CAST($1 AS numeric)", nil, []string{"numeric"}},
		{"SELECT $2::int4", nil, []string{"text", "integer"}},
		{"SELECT $1", nil, []string{"text"}},
		{"SELECT $1 = $2", nil, []string{"text", "text"}},
		{"SELECT c FROM t WHERE c = $1", nil, []string{"text"}},
		{"SELECT y FROM u WHERE y = $1", nil, []string{"text"}},
		{"SELECT a FROM t WHERE n > $1", nil, []string{"numeric"}},
		{"SELECT a FROM t WHERE f < $1", nil, []string{"double precision"}},
		{"SELECT a FROM t LIMIT $1 OFFSET $2", nil, []string{"bigint", "bigint"}},
		{"SELECT a FROM t WHERE a IN ($1, $2)", nil, []string{"integer", "integer"}},
		{"SELECT a FROM t WHERE c LIKE $1", nil, []string{"text"}},
		{"SELECT $1 || 'x'", nil, []string{"text"}},
		{"SELECT ts + $1 FROM t", nil, []string{"interval"}},
		{"SELECT ts - $1 FROM t", nil, []string{"timestamp without time zone"}},
		{"SELECT ts::date - $1 FROM t", nil, []string{"date"}},
		{"SELECT ts::time + $1 FROM t", nil, []string{"interval"}},
		{"SELECT coalesce($1, a) FROM t", nil, []string{"integer"}},
		{"SELECT CASE WHEN $1 THEN 1 END", nil, []string{"boolean"}},
		{"SELECT a FROM t WHERE $1", nil, []string{"boolean"}},
		{"SELECT a FROM t WHERE $1 AND b > $2", nil, []string{"boolean", "integer"}},
		{"SELECT upper($1)", nil, []string{"text"}},
		{"SELECT * FROM generate_series(1, $1)", nil, []string{"integer"}},
		{"SELECT unnest($1::int8[]), generate_series($2, 3.5)", nil, []string{"bigint[]", "numeric"}},
		{"SELECT a FROM t WHERE a = $1 AND b = $1", nil, []string{"integer"}},
		{"SELECT $1 BETWEEN 1 AND 2", nil, []string{"integer"}},
		{"SELECT a FROM t WHERE a = (SELECT x FROM u WHERE x = $1)", nil, []string{"bigint"}},
		// Declared types win over inference.
		{"SELECT $1 + 1", []types.T{types.TInt8}, []string{"bigint"}},
		{"SELECT a FROM t WHERE c = $1", []types.T{types.TVarchar}, []string{"character varying"}},
		{"SELECT $1, $2 + 1", []types.T{types.TUnknown, types.TUnknown}, []string{"text", "integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, b, err := bindQuery(t, tt.sql, tt.declared...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range b.ParamTypes() {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("param types %q, want %q", got, tt.want)
			}
		})
	}
}
