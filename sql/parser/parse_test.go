package parser

import (
	"errors"
	"fmt"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

// parseOne parses sql, which must hold exactly one statement.
func parseOne(t *testing.T, sql string) *Statement {
	t.Helper()
	sts, err := Parse(sql)
	if err != nil {
		t.Fatalf("Parse(%q): %v", sql, err)
	}
	if len(sts) != 1 {
		t.Fatalf("Parse(%q): %d statements", sql, len(sts))
	}
	return sts[0]
}

// fields returns the select-list expressions of a SELECT statement.
func fields(t *testing.T, sql string) []ast.ExprNode {
	t.Helper()
	sel, ok := parseOne(t, sql).AST.(*ast.SelectStmt)
	if !ok {
		t.Fatalf("%q: not a SELECT", sql)
	}
	var es []ast.ExprNode
	for _, f := range sel.Fields.Fields {
		es = append(es, f.Expr)
	}
	return es
}

func TestStatementSplit(t *testing.T) {
	in := "  select 1 ; -- c\n;\n SELECT  2  /* x */;set x = 1"
	sts, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		sql    string
		offset int
	}{{"select 1", 2}, {"SELECT  2", 21}, {"set x = 1", 40}}
	if len(sts) != len(want) {
		t.Fatalf("got %d statements", len(sts))
	}
	for i, w := range want {
		if sts[i].SQL != w.sql || sts[i].Offset != w.offset || in[w.offset:w.offset+len(w.sql)] != w.sql {
			t.Errorf("statement %d: got %q at %d, want %q at %d", i, sts[i].SQL, sts[i].Offset, w.sql, w.offset)
		}
	}
	if sts, err := Parse(" ; -- nothing\n"); err != nil || len(sts) != 0 {
		t.Errorf("empty input: %v, %d statements", err, len(sts))
	}
}

func TestErrorPositions(t *testing.T) {
	tests := []struct {
		sql, code, msg string
		pos            int
	}{
		{"SELECT 1 +", "42601", "syntax error at end of input", 11},
		{"SELECT * FRM t", "42601", `syntax error at or near "FRM"`, 10},
		{"select 1; select * frm t", "42601", `syntax error at or near "frm"`, 20},
		{"select 'é' FRM t", "42601", `syntax error at or near "t"`, 16},
		{"select 1 || 'é' || (", "42601", "syntax error at end of input", 21},
		{"select a::int + from t", "42601", `syntax error at or near "from"`, 17},
		{"insert into t values (1) returning *, ", "42601", "syntax error at end of input", 39},
		{"create table t (a int default 1 +)", "42601", `syntax error at or near ")"`, 34},
		{"select distinct on a from t", "42601", `syntax error at or near "a"`, 20},
		{"create view v as select a +", "42601", "syntax error at end of input", 28},
	}
	for _, tt := range tests {
		_, err := Parse(tt.sql)
		var pe *pgerror.Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want a *pgerror.Error", tt.sql, err)
			continue
		}
		if pe.Code != tt.code || pe.Message != tt.msg || pe.Position != tt.pos {
			t.Errorf("%q: got %s %q at %d, want %s %q at %d", tt.sql, pe.Code, pe.Message, pe.Position, tt.code, tt.msg, tt.pos)
		}
	}
}

func TestPositionMapping(t *testing.T) {
	sts, err := Parse("select 1; select 'é', abc::int")
	if err != nil || len(sts) != 2 {
		t.Fatalf("Parse: %v", err)
	}
	st := sts[1]
	// The translated text is "SELECT 'é' , pg_cast( `abc`, 'int')".
	for _, tt := range []struct {
		frag string
		pos  int
	}{{"SELECT", 11}, {"'é'", 18}, {"pg_cast(", 23}, {"`abc`", 23}} {
		off := indexOf(st.translated, tt.frag)
		if got := st.Position(off); got != tt.pos {
			t.Errorf("Position(%q at %d) = %d, want %d (translated %q)", tt.frag, off, got, tt.pos, st.translated)
		}
	}
	if got := st.Position(len(st.translated)); got != 31 {
		t.Errorf("end position = %d, want 31", got)
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestLiteralTypes(t *testing.T) {
	es := fields(t, "select 1, 2147483647, 2147483648, 9223372036854775807, 9223372036854775808, 99999999999999999999, 1.50, 'x', null, true, false, 0")
	want := []struct {
		typ  types.T
		text string
	}{
		{types.TInt4, "1"}, {types.TInt4, "2147483647"}, {types.TInt8, "2147483648"},
		{types.TInt8, "9223372036854775807"}, {types.TNumeric, "9223372036854775808"},
		{types.TNumeric, "99999999999999999999"}, {types.TNumeric, "1.50"}, {types.TUnknown, "'x'"},
		{types.TUnknown, "NULL"}, {types.TBool, "TRUE"}, {types.TBool, "FALSE"}, {types.TInt4, "0"},
	}
	for i, w := range want {
		l, ok := es[i].(*Literal)
		if !ok {
			t.Errorf("field %d: %T, want *Literal", i, es[i])
			continue
		}
		if l.Type != w.typ || l.pgText() != w.text {
			t.Errorf("field %d: %v %s, want %v %s", i, l.Type, l.pgText(), w.typ, w.text)
		}
	}
	if l := es[7].(*Literal); l.Value.Kind() != types.KindString || l.Value.Str() != "x" {
		t.Errorf("string literal value: %v", l.Value)
	}
	if l := es[6].(*Literal); l.Value.Decimal().Exponent != -2 {
		t.Errorf("1.50 lost its scale: %v", l.Value.Decimal())
	}
	if !es[8].(*Literal).Value.IsNull() || !es[9].(*Literal).Value.Bool() || es[10].(*Literal).Value.Bool() {
		t.Errorf("null/true/false values wrong")
	}
}

func TestFullJoinMarker(t *testing.T) {
	tests := []struct {
		sql      string
		straight []bool // StraightJoin of the joins in pre-order
	}{
		{"select * from a full join b on a.x = b.x", []bool{true}},
		{"select * from a full outer join b on a.x = b.x left join c on c.y = b.y", []bool{false, true}},
		{"select * from a left join (b full join c on b.y = c.y) on a.x = b.x", []bool{false, true}},
		{"select * from (a join b on a.x = b.x) full join c on c.y = b.y", []bool{true, false}},
	}
	for _, tt := range tests {
		sel := parseOne(t, tt.sql).AST.(*ast.SelectStmt)
		var got []bool
		var walk func(r ast.ResultSetNode)
		walk = func(r ast.ResultSetNode) {
			switch n := r.(type) {
			case *ast.Join:
				if n.Right != nil {
					got = append(got, n.StraightJoin)
				}
				walk(n.Left)
				if n.Right != nil {
					walk(n.Right)
				}
			case *ast.TableSource:
				walk(n.Source)
			}
		}
		walk(sel.From.TableRefs)
		if len(got) != len(tt.straight) {
			t.Errorf("%q: joins %v, want %v", tt.sql, got, tt.straight)
			continue
		}
		for i := range got {
			if got[i] != tt.straight[i] {
				t.Errorf("%q: joins %v, want %v", tt.sql, got, tt.straight)
			}
		}
	}
}

func TestLateralAndColumnAliases(t *testing.T) {
	tests := []struct {
		sql     string
		lateral bool
		cols    int
	}{
		{"select * from (select 1, 2) as s(x, y)", false, 2},
		{"select * from t as u(a)", false, 1},
		{"select * from t, lateral (select 1) as s(x)", true, 1},
		{"select * from generate_series(1, 3) as g(n)", true, 1},
		{"select * from (values (1)) v(a)", false, 1},
	}
	for _, tt := range tests {
		sel := parseOne(t, tt.sql).AST.(*ast.SelectStmt)
		var aliased *ast.TableSource // the table source with the column aliases
		sel.Accept(visitFunc(func(n ast.Node) {
			if ts, ok := n.(*ast.TableSource); ok && ts.ColumnNames != nil {
				aliased = ts
			}
		}))
		if aliased == nil || aliased.Lateral != tt.lateral || len(aliased.ColumnNames) != tt.cols {
			t.Errorf("%q: got %+v", tt.sql, aliased)
		}
	}
}

type visitFunc func(ast.Node)

func (f visitFunc) Enter(n ast.Node) (ast.Node, bool) { f(n); return n, false }
func (f visitFunc) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func TestLimitParams(t *testing.T) {
	st := parseOne(t, "select a from t limit $2 offset $1")
	lim := st.AST.(*ast.SelectStmt).Limit
	for _, tt := range []struct {
		e ast.ExprNode
		n int64
	}{{lim.Count, 2}, {lim.Offset, 1}} {
		fc, ok := tt.e.(*ast.FuncCallExpr)
		if !ok || fc.FnName.L != "pg_param" || len(fc.Args) != 1 || fc.Args[0].(*Literal).Value.Int() != tt.n {
			t.Errorf("limit param: %#v", tt.e)
		}
	}
	if st.NumParams != 2 {
		t.Errorf("NumParams = %d", st.NumParams)
	}
}

func TestFetchWithTies(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		arg  string // the marker's argument: a literal, pg_param or NULL
		offs bool
	}{
		{sql: "select a from t order by a fetch first 3 rows with ties", arg: "3"},
		{sql: "select a from t order by a offset 1 rows fetch next row with ties", arg: "1", offs: true},
		{sql: "select a from t order by a fetch first $1 rows with ties", arg: "pg_param"},
		{sql: "select a from t order by a fetch first (1 + 1) rows with ties", arg: "plus"},
		{sql: "select a from t order by a fetch first null rows with ties", arg: "NULL"},
	} {
		lim := parseOne(t, tt.sql).AST.(*ast.SelectStmt).Limit
		fc, ok := lim.Count.(*ast.FuncCallExpr)
		if !ok || fc.FnName.L != "pg_with_ties" || len(fc.Args) != 1 || (lim.Offset != nil) != tt.offs {
			t.Errorf("%q: count %#v", tt.sql, lim.Count)
			continue
		}
		var got string
		switch a := fc.Args[0].(type) {
		case *Literal:
			got = fmt.Sprint(a.Value)
			if a.Value.IsNull() {
				got = "NULL"
			}
		case *ast.FuncCallExpr:
			got = a.FnName.L
		case *ast.ParenthesesExpr:
			got = a.Expr.(*ast.BinaryOperationExpr).Op.String()
		}
		if got != tt.arg {
			t.Errorf("%q: argument %s (%#v), want %s", tt.sql, got, fc.Args[0], tt.arg)
		}
	}
}

func TestMarkerShapes(t *testing.T) {
	es := fields(t, "select a is distinct from b, a is not distinct from b, current_timestamp, localtime, current_schema, user, a::int8, $3, x || y")
	if e, ok := es[0].(*ast.ParenthesesExpr); !ok {
		t.Errorf("IS DISTINCT FROM: %T", es[0])
	} else if it, ok := e.Expr.(*ast.IsTruthExpr); !ok || it.True != 0 || it.Not || it.Expr.(*ast.BinaryOperationExpr).Op != opcode.NullEQ {
		t.Errorf("IS DISTINCT FROM: %#v", e.Expr)
	}
	if e, ok := es[1].(*ast.ParenthesesExpr); !ok || e.Expr.(*ast.BinaryOperationExpr).Op != opcode.NullEQ {
		t.Errorf("IS NOT DISTINCT FROM: %#v", es[1])
	}
	for i, name := range []string{"current_timestamp", "localtime", "current_schema", "user"} {
		if fc, ok := es[2+i].(*ast.FuncCallExpr); !ok || fc.FnName.L != name || len(fc.Args) != 0 {
			t.Errorf("%s: %#v", name, es[2+i])
		}
	}
	call := func(e ast.ExprNode, name string, args int) *ast.FuncCallExpr {
		fc, ok := e.(*ast.FuncCallExpr)
		if !ok || fc.FnName.L != name || len(fc.Args) != args {
			t.Fatalf("want %s/%d, got %#v", name, args, e)
		}
		return fc
	}
	if typ := call(es[6], "pg_cast", 2).Args[1].(*Literal).Value.Str(); typ != "int8" {
		t.Errorf("pg_cast type %q", typ)
	}
	if n := call(es[7], "pg_param", 1).Args[0].(*Literal).Value.Int(); n != 3 {
		t.Errorf("pg_param %d", n)
	}
	if op := call(es[8], "pg_op", 3).Args[0].(*Literal).Value.Str(); op != "||" {
		t.Errorf("pg_op %q", op)
	}
}

func TestReturning(t *testing.T) {
	st := parseOne(t, "update t set a = $1 returning a, b + $2 as c")
	if _, ok := st.AST.(*ast.UpdateStmt); !ok {
		t.Fatalf("AST %T", st.AST)
	}
	if len(st.Returning) != 2 || st.Returning[1].AsName.O != "c" || st.NumParams != 2 {
		t.Errorf("returning %v, params %d", st.Returning, st.NumParams)
	}
	if st := parseOne(t, "insert into t select 1 from (select 1 as returning) s"); st.Returning != nil {
		t.Errorf("quoted-looking column taken as RETURNING")
	}
}
