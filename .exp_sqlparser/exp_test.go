package exp

import (
	"fmt"
	"testing"

	tp "github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

func TestExp(t *testing.T) {
	p := tp.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	for _, q := range []string{
		"select a from (select 1) where x",
		"select a from (select 1) as t(a)",
		"select a from (values row(1), row(2)) as t",
		"values row(1,2) order by 1 limit 1",
		"select current_date(), current_time(), current_timestamp(), localtime(), localtimestamp(), current_user(), session_user(), user(), current_schema(), current_catalog()",
		"select 1 from (a join b on x) straight_join (c join d on y) on z",
		"select 1 from a straight_join b on x left join c on y",
		"select 1 from a left join (b straight_join c on y) on x",
		"select * from t limit ? offset ?",
		"select `a`.* , count(*), substring(`x` FROM 1 FOR 2), trim(BOTH 'x' FROM `y`), position('a' IN `b`) from `t` where `x` like 'a' escape '!'",
		"insert into `t` () values ()",
		"select `left`(1,2), left(1,2), `replace`, replace('a','b','c'), mod(1,2), `date`, date('x')",
		"select 5.",
		"select .5e1",
		"with recursive `x`(`a`) as (select 1) select * from x",
		"select f(x) over (partition by a order by b rows between unbounded preceding and current row) from t",
		"select a from t order by a nulls first",
		"select lateral(1)",
		"select 1 from t, lateral (select 1) as x",
	} {
		stmts, _, err := p.Parse(q, "", "")
		fmt.Printf("%q -> %v\n", q, err)
		if err == nil {
			if sel, ok := stmts[0].(*ast.SelectStmt); ok && sel.From != nil {
				dumpJoin(sel.From.TableRefs, "  ")
			}
			if sel, ok := stmts[0].(*ast.SelectStmt); ok && sel.Fields != nil {
				for _, f := range sel.Fields.Fields {
					if fc, ok := f.Expr.(*ast.FuncCallExpr); ok {
						fmt.Printf("  func %q %q tp=%d\n", fc.FnName.O, fc.Schema.O, fc.Tp)
					} else {
						fmt.Printf("  %T\n", f.Expr)
					}
				}
			}
		}
	}
}

func dumpJoin(r ast.ResultSetNode, ind string) {
	switch j := r.(type) {
	case *ast.Join:
		fmt.Printf("%sJoin tp=%v straight=%v on=%v\n", ind, j.Tp, j.StraightJoin, j.On != nil)
		dumpJoin(j.Left, ind+"  ")
		if j.Right != nil {
			dumpJoin(j.Right, ind+"  ")
		}
	case *ast.TableSource:
		fmt.Printf("%sTS %T as=%q\n", ind, j.Source, j.AsName.O)
		if jj, ok := j.Source.(*ast.Join); ok {
			dumpJoin(jj, ind+"  ")
		}
	default:
		fmt.Printf("%s%T\n", ind, r)
	}
}
