package planner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// returningOf returns the RETURNING list of a bound DML plan.
func returningOf(p any) *planner.Project {
	switch p := p.(type) {
	case *planner.Insert:
		return p.Returning
	case *planner.Update:
		return p.Returning
	case *planner.Delete:
		return p.Returning
	}
	return nil
}

// TestBindReturning checks RETURNING's output columns (named as
// PostgreSQL names them) and its values over a full row of u (a, x, y,
// hidden row id).
func TestBindReturning(t *testing.T) {
	row := []types.Datum{types.NewInt(7), types.NewInt(40), types.NewString("ab"), types.NewInt(99)}
	tests := []struct {
		sql  string
		cols string
		vals string
	}{
		{"INSERT INTO u (a) VALUES (1) RETURNING a", "a integer", "7"},
		{"INSERT INTO u (a) VALUES (1) RETURNING *", "a integer, x bigint, y character varying(10)", "7|40|ab"},
		{"INSERT INTO u AS z (a) VALUES (1) RETURNING z.*, z.a AS k", "a integer, x bigint, y character varying(10), k integer", "7|40|ab|7"},
		{"UPDATE u SET a = 1 RETURNING x + a, upper(y), 'lit', NULL", "?column? bigint, upper text, ?column? text, ?column? text", "47|AB|lit|NULL"},
		{"UPDATE u v SET a = 1 RETURNING v.y || '!' AS \"Y\"", "Y text", "ab!"},
		{"DELETE FROM u WHERE a > 0 RETURNING a::text, x > a", "a text, ?column? boolean", "7|t"},
		{"DELETE FROM u RETURNING (SELECT 1) AS one", "one integer", "1"},
		{"UPDATE u SET a = 1", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			p, _, err := bindDML(t, tt.sql)
			if err != nil {
				t.Fatal(err)
			}
			ret := returningOf(p)
			if ret == nil {
				if tt.cols != "" {
					t.Fatal("no RETURNING list")
				}
				return
			}
			var cols, vals []string
			for i, c := range ret.Columns() {
				cols = append(cols, c.Name+" "+c.T.String())
				v, err := ret.Exprs[i].Eval(expr.NewCtx(context.Background(), nil), row)
				if err != nil {
					t.Fatal(err)
				}
				s := "NULL"
				if !v.IsNull() {
					s = string(types.FormatText(nil, c.T, v))
				}
				vals = append(vals, s)
			}
			if got := strings.Join(cols, ", "); got != tt.cols {
				t.Errorf("columns %q, want %q", got, tt.cols)
			}
			if got := strings.Join(vals, "|"); got != tt.vals {
				t.Errorf("values %q, want %q", got, tt.vals)
			}
		})
	}
}

func TestBindReturningErrors(t *testing.T) {
	tests := []struct {
		sql  string
		code string
		msg  string
	}{
		{"INSERT INTO t (a) VALUES (1) RETURNING zz", "42703", `column "zz" does not exist`},
		{"INSERT INTO t (a) VALUES (1) RETURNING count(*)", "42803", "aggregate functions are not allowed in RETURNING"},
		{"UPDATE t SET b = 1 RETURNING row_number() OVER ()", "42P20", "window functions are not allowed in RETURNING"},
		{"DELETE FROM t RETURNING generate_series(1, 2)", "0A000", "set-returning functions are not allowed in RETURNING"},
		{"INSERT INTO t (a) VALUES (1) ON CONFLICT (a) DO NOTHING RETURNING excluded.a", "42P01", `missing FROM-clause entry for table "excluded"`},
		{"DELETE FROM t AS x RETURNING y.*", "42P01", `missing FROM-clause entry for table "y"`},
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
