package parser

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

func TestLiteralSetValue(t *testing.T) {
	tests := []struct {
		v    any
		typ  types.T
		text string
	}{
		{nil, types.TUnknown, "NULL"},
		{true, types.TBool, "TRUE"},
		{int64(-2147483648), types.TInt4, "-2147483648"},
		{int64(-2147483649), types.TInt8, "-2147483649"},
		{uint64(1 << 63), types.TNumeric, "9223372036854775808"},
		{"it's", types.TUnknown, "'it''s'"},
		{1e5, types.TNumeric, "100000"},
		{[]byte{0xff}, types.TBytea, `'\xff'::bytea`},
	}
	for _, tt := range tests {
		l := ast.NewValueExpr(tt.v, "", "").(*Literal)
		if l.Type != tt.typ || l.pgText() != tt.text {
			t.Errorf("SetValue(%#v) = %v %s, want %v %s", tt.v, l.Type, l.pgText(), tt.typ, tt.text)
		}
	}
	d, err := ast.NewDecimal("123456789012345678901234567890.50")
	if err != nil {
		t.Fatal(err)
	}
	if l := ast.NewValueExpr(d, "", "").(*Literal); l.Type != types.TNumeric || l.pgText() != "123456789012345678901234567890.50" {
		t.Errorf("decimal literal: %v %s", l.Type, l.pgText())
	}
}

// TestQuotedRoundTrip checks that any identifier and any string survive the
// translation exactly: quoted identifiers keep their case and characters,
// strings come back unchanged from the TiDB driver.
func TestQuotedRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`[a-zA-Z0-9 _'"\\$é\t\n%-]{0,20}`).Draw(t, "s")
		ident := strings.ReplaceAll(s, `"`, `""`)
		if len(s) > maxIdentLen || s == "" {
			ident, s = "x", "x"
		}
		sql := `select "` + ident + `", '` + strings.ReplaceAll(s, `'`, `''`) + `', E'` +
			strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + `', $q$` + strings.ReplaceAll(s, "$", "") + `$q$`
		sts, err := Parse(sql)
		if err != nil {
			t.Fatalf("%q: %v", sql, err)
		}
		fs := sts[0].AST.(*ast.SelectStmt).Fields.Fields
		if col, ok := fs[0].Expr.(*ast.ColumnNameExpr); !ok || col.Name.Name.O != s {
			t.Fatalf("identifier %q: got %#v", s, fs[0].Expr)
		}
		for i, want := range []string{s, s, strings.ReplaceAll(s, "$", "")} {
			if l, ok := fs[1+i].Expr.(*Literal); !ok || l.Value.Str() != want || l.Type != types.TUnknown {
				t.Fatalf("string %d %q: got %#v", i, want, fs[1+i].Expr)
			}
		}
	})
}
