package planner_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// bindDML binds an INSERT, UPDATE or DELETE.
func bindDML(t *testing.T, sql string) (any, *planner.Binder, error) {
	t.Helper()
	st := parse(t, sql)
	b := planner.NewBinder(catalog, nil)
	b.SetNumParams(st.NumParams)
	switch n := st.AST.(type) {
	case *ast.InsertStmt:
		p, err := b.BindInsert(n, st.Returning, st.Overriding)
		return p, b, err
	case *ast.UpdateStmt:
		p, err := b.BindUpdate(n, st.Returning)
		return p, b, err
	case *ast.DeleteStmt:
		p, err := b.BindDelete(n, st.Returning)
		return p, b, err
	}
	t.Fatalf("%q is not DML", sql)
	return nil, nil, nil
}

// TestBindInsert runs the source of INSERTs that read no tables: full rows
// of the table's visible columns, with defaults and assignment casts.
func TestBindInsert(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"INSERT INTO t VALUES (1, 2, 'x', 1.5, 2.5, '2020-01-02 03:04:05')", []string{"1|2|x|1.50|2.5|2020-01-02 03:04:05"}},
		{"INSERT INTO t (c, a) VALUES ('y', 7), ('z', 8)", []string{"7|NULL|y|NULL|NULL|NULL", "8|NULL|z|NULL|NULL|NULL"}},
		{"INSERT INTO t (a, n, f) VALUES (1, 1.234, 3)", []string{"1|NULL|NULL|1.23|3|NULL"}},
		{"INSERT INTO w (a) VALUES (1)", []string{"1|none"}},
		{"INSERT INTO w VALUES (1, DEFAULT)", []string{"1|none"}},
		{"INSERT INTO w DEFAULT VALUES", []string{"NULL|none"}},
		{"INSERT INTO t VALUES (1), (2)", []string{"1|NULL|NULL|NULL|NULL|NULL", "2|NULL|NULL|NULL|NULL|NULL"}},
		{"INSERT INTO u SELECT 1, 2", []string{"1|2|NULL"}},
		{"INSERT INTO u VALUES (1, 2, 'abc')", []string{"1|2|abc"}},
		{"INSERT INTO u (x, a) SELECT 2, 1", []string{"1|2|NULL"}},
		{"INSERT INTO u (a, y) SELECT 1 + 1, 'a' || 'b'", []string{"2|NULL|ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, _, err := bindDML(t, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			ins := p.(*planner.Insert)
			rows, err := exec.Collect(expr.NewCtx(context.Background(), nil), planner.Build(ins.Source, nil))
			if err != nil {
				t.Fatal(err)
			}
			cols := ins.Source.Columns()
			var got []string
			for _, r := range rows {
				parts := make([]string, len(r))
				for j, d := range r {
					parts[j] = "NULL"
					if !d.IsNull() {
						parts[j] = string(types.FormatText(nil, cols[j].T, d))
					}
				}
				got = append(got, strings.Join(parts, "|"))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("rows\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// TestBindCopy checks the columns COPY reads and that its projection fills
// in the defaults of the others.
func TestBindCopy(t *testing.T) {
	tests := []struct {
		table   string
		columns []string
		row     []types.Datum
		want    string
		err     string
	}{
		{"w", nil, []types.Datum{types.NewInt(1), types.NewString("x")}, "a integer, c text: 1|x", ""},
		{"w", []string{"a"}, []types.Datum{types.NewInt(2)}, "a integer: 2|none", ""},
		{"w", []string{"c", "a"}, []types.Datum{types.NewString("y"), types.NewInt(3)}, "c text, a integer: 3|y", ""},
		{"w", []string{"zz"}, nil, "", "42703"},
		{"w", []string{"a", "a"}, nil, "", "42701"},
		{"missing", nil, nil, "", "42P01"},
	}
	for _, tt := range tests {
		ins, err := planner.NewBinder(catalog, nil).BindCopy("", tt.table, tt.columns)
		if tt.err != "" || err != nil {
			if pgerror.Code(err) != tt.err {
				t.Errorf("COPY %s %v: error %v, want SQLSTATE %s", tt.table, tt.columns, err, tt.err)
			}
			continue
		}
		proj := ins.Source.(*planner.Project)
		var cols []string
		for _, c := range proj.Input.Columns() {
			cols = append(cols, c.Name+" "+c.T.String())
		}
		var vals []string
		for i, e := range proj.Exprs {
			v, err := e.Eval(expr.NewCtx(context.Background(), nil), tt.row)
			if err != nil {
				t.Fatal(err)
			}
			vals = append(vals, string(types.FormatText(nil, proj.Cols[i].T, v)))
		}
		if got := strings.Join(cols, ", ") + ": " + strings.Join(vals, "|"); got != tt.want {
			t.Errorf("COPY %s %v: got %q, want %q", tt.table, tt.columns, got, tt.want)
		}
	}
}

func TestBindDMLShapes(t *testing.T) {
	// UPDATE produces old and new full rows, hidden row id included.
	p, _, err := bindDML(t, "UPDATE u SET x = x + 1 WHERE a > 0")
	if err != nil {
		t.Fatal(err)
	}
	up := p.(*planner.Update)
	if up.Table.Name != "u" || len(up.Source.Columns()) != 2*len(up.Table.Columns) || len(up.Table.Columns) != 4 {
		t.Errorf("update of %s has %d source columns for %d table columns", up.Table.Name, len(up.Source.Columns()), len(up.Table.Columns))
	}
	// DELETE produces the full rows to delete.
	p, _, err = bindDML(t, "DELETE FROM t WHERE b IS NULL")
	if err != nil {
		t.Fatal(err)
	}
	del := p.(*planner.Delete)
	if del.Table.Name != "t" || len(del.Source.Columns()) != 6 {
		t.Errorf("delete from %s has %d source columns", del.Table.Name, len(del.Source.Columns()))
	}
}

func TestBindDMLParams(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"INSERT INTO t (a, n, c) VALUES ($1, $2, $3)", []string{"integer", "numeric(10,2)", "text"}},
		{"INSERT INTO u (y) VALUES ($1)", []string{"character varying(10)"}},
		{"UPDATE t SET b = $1 WHERE a = $2", []string{"integer", "integer"}},
		{"DELETE FROM u WHERE x > $1", []string{"bigint"}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, b, err := bindDML(t, tt.sql)
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

func TestBindDMLErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code string
		msg  string
	}{
		{"INSERT INTO nosuch VALUES (1)", "42P01", `relation "nosuch" does not exist`},
		{"INSERT INTO t (a) VALUES (1, 2)", "42601", "INSERT has more expressions than target columns"},
		{"INSERT INTO t (a, b) VALUES (1)", "42601", "INSERT has more target columns than expressions"},
		{"INSERT INTO t (a, b, c) SELECT a, b FROM t", "42601", "INSERT has more target columns than expressions"},
		{"INSERT INTO t (zz) VALUES (1)", "42703", `column "zz" of relation "t" does not exist`},
		{"INSERT INTO u (_row_id) VALUES (1)", "42703", `column "_row_id" of relation "u" does not exist`},
		{"INSERT INTO t (a, a) VALUES (1, 2)", "42701", `column "a" specified more than once`},
		{"INSERT INTO t (a) VALUES ('x')", "22P02", `invalid input syntax for type integer: "x"`},
		{"INSERT INTO t (a) VALUES (true)", "42804", `column "a" is of type integer but expression is of type boolean`},
		{"INSERT INTO t (ts) VALUES (1)", "42804", `column "ts" is of type timestamp without time zone but expression is of type integer`},
		{"INSERT INTO u (y) VALUES ('abcdefghijk')", "22001", "value too long for type character varying(10)"},
		{"INSERT INTO t (n) VALUES (123456789)", "22003", "numeric field overflow"},
		{"UPDATE t SET zz = 1", "42703", `column "zz" of relation "t" does not exist`},
		{"UPDATE t SET a = 1, a = 2", "42601", `multiple assignments to same column "a"`},
		{"UPDATE t SET b = 'x'", "22P02", `invalid input syntax for type integer: "x"`},
		{"UPDATE t SET b = 1 WHERE zz = 1", "42703", `column "zz" does not exist`},
		{"DELETE FROM t WHERE count(*) > 1", "42803", "aggregate functions are not allowed in WHERE"},
		{"DELETE FROM t WHERE a", "42804", "argument of WHERE must be type boolean, not type integer"},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			_, _, err := bindDML(t, tt.sql)
			if err == nil {
				t.Fatal("no error")
			}
			if e := pgerror.From(err); e.Code != tt.code || e.Message != tt.msg {
				t.Errorf("error %s %q, want %s %q", e.Code, e.Message, tt.code, tt.msg)
			}
		})
	}
}
