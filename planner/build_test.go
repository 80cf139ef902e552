package planner_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/planner"
)

func exprList(es []expr.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// shape renders an operator tree, one operator per line, children indented.
func shape(op exec.Op) []string {
	var lines []string
	var walk func(op exec.Op, depth int)
	walk = func(op exec.Op, depth int) {
		line := func(format string, args ...any) {
			lines = append(lines, strings.Repeat("  ", depth)+fmt.Sprintf(format, args...))
		}
		switch x := op.(type) {
		case *exec.TableScan:
			tb, _ := catalog.TableByID(x.TableID)
			s := "TableScan " + tb.Name
			if x.Conds != nil {
				s += " conds [" + exprList(x.Conds) + "]"
			}
			if x.Needed != nil {
				var cols []string
				for i, needed := range x.Needed {
					if needed {
						cols = append(cols, tb.Columns[i].Name)
					}
				}
				s += " reads [" + strings.Join(cols, " ") + "]"
			}
			line("%s", s)
		case *exec.Values:
			line("Values (%d rows)", len(x.Rows))
		case *exec.Filter:
			line("Filter %s", x.Cond)
			walk(x.Input, depth+1)
		case *exec.Project:
			line("Project %s", exprList(x.Exprs))
			walk(x.Input, depth+1)
		case *exec.Join:
			s := x.Kind.String() + "Join"
			if x.LeftKeys != nil {
				s += fmt.Sprintf(" keys (%s) = (%s)", exprList(x.LeftKeys), exprList(x.RightKeys))
			}
			if x.On != nil {
				s += " ON " + x.On.String()
			}
			line("%s", s)
			walk(x.Left, depth+1)
			walk(x.Right, depth+1)
		case *exec.Gate:
			line("Gate") // a subquery's text names its address
			walk(x.Input, depth+1)
		case *exec.HashAgg:
			line("HashAgg")
			walk(x.Input, depth+1)
		case *exec.Sort:
			line("Sort %v", x.Keys)
			walk(x.Input, depth+1)
		case *exec.Limit:
			line("Limit")
			walk(x.Input, depth+1)
		case *exec.Distinct:
			line("Distinct")
			walk(x.Input, depth+1)
		case *exec.SetOp:
			line("%s all=%v", x.Kind, x.All)
			walk(x.L, depth+1)
			walk(x.R, depth+1)
		default:
			line("%T", op)
		}
	}
	walk(op, 0)
	return lines
}

// TestBuildJoins checks filter pushdown into inner joins, their order
// (every table counts the same rows without storage) and the hashing of
// equi-joins.
func TestBuildJoins(t *testing.T) {
	checkShapes(t, []shapeCase{
		{"SELECT t.a, u.x FROM t JOIN u ON t.a = u.a WHERE t.b > 1 AND u.x < 5 AND t.c = u.y", []string{
			"Project $0, $7",
			"  InnerJoin keys ($0, $2) = ($0, ($2)::text)",
			"    Filter ($1 > '1'::integer)",
			"      TableScan t conds [($1 > '1'::integer)]",
			"    Filter ($1 < '5'::bigint)",
			"      TableScan u conds [($1 < '5'::bigint)]",
		}},
		{"SELECT 1 FROM t, u WHERE t.a = u.x", []string{
			"Project '1'::integer",
			"  InnerJoin keys (($0)::bigint) = ($1)",
			"    TableScan t",
			"    TableScan u",
		}},
		{"SELECT 1 FROM t, u WHERE t.b < u.x", []string{
			"Project '1'::integer",
			"  InnerJoin ON (($1)::bigint < $7)",
			"    TableScan t",
			"    TableScan u",
		}},
		// The filtered side is the smaller: the hash table is built on it
		// (the right input), and a projection puts t's columns first again.
		{"SELECT 1 FROM t JOIN u ON t.a = u.a AND t.b = 1 AND t.b < u.x", []string{
			"Project '1'::integer",
			"  Project $4, $5, $6, $7, $8, $9, $0, $1, $2, $3",
			"    InnerJoin keys ($0) = ($0) ON (($5)::bigint < $1)",
			"      TableScan u",
			"      Filter ($1 = '1'::integer)",
			"        TableScan t conds [($1 = '1'::integer)]",
		}},
		// w, filtered, joins t first; u joins the small result.
		{"SELECT 1 FROM t JOIN u ON t.a = u.a JOIN w ON w.a = t.a WHERE w.c = 'x'", []string{
			"Project '1'::integer",
			"  Project $4, $5, $6, $7, $8, $9, $0, $1, $2, $3, $10, $11, $12",
			"    InnerJoin keys ($0) = ($0)",
			"      TableScan u",
			"      InnerJoin keys ($0) = ($0)",
			"        TableScan t",
			"        Filter ($1 = 'x'::text)",
			"          TableScan w conds [($1 = 'x'::text)]",
		}},
		// Outer joins keep WHERE above them and one-sided ON conditions in
		// place, but still hash on equalities.
		{"SELECT t.a FROM t LEFT JOIN u ON t.a = u.a AND u.x > 1 WHERE t.b > 1", []string{
			"Project $0",
			"  Filter ($1 > '1'::integer)",
			"    LeftJoin keys ($0) = ($0) ON ($7 > '1'::bigint)",
			"      TableScan t",
			"      TableScan u",
		}},
		{"SELECT 1 FROM t FULL JOIN u ON t.a = u.a", []string{
			"Project '1'::integer",
			"  FullJoin keys ($0) = ($0)",
			"    TableScan t",
			"    TableScan u",
		}},
		// A condition that reads no column of the row is evaluated once,
		// before the input runs (PostgreSQL's one-time filter): above a
		// join region, over a filter, above a HAVING's aggregation; a
		// constant false one leaves no plan at all.
		{"SELECT 1 FROM t JOIN u ON t.a = u.a WHERE t.b > 1 AND (SELECT max(x) FROM u) > 1", []string{
			"Project '1'::integer",
			"  Project $4, $5, $6, $7, $8, $9, $0, $1, $2, $3",
			"    Gate",
			"      InnerJoin keys ($0) = ($0)",
			"        TableScan u",
			"        Filter ($1 > '1'::integer)",
			"          TableScan t conds [($1 > '1'::integer)]",
		}},
		{"SELECT count(*) FROM t WHERE t.b > 1 HAVING (SELECT max(x) FROM u) > 1", []string{
			"Project $0",
			"  Gate",
			"    HashAgg",
			"      Filter ($1 > '1'::integer)",
			"        TableScan t conds [($1 > '1'::integer)] reads [b]",
		}},
		{"SELECT 1 FROM t, u WHERE t.a = u.a AND NULL::bool", []string{
			"Project '1'::integer",
			"  Values (0 rows)",
		}},
	})
}

// shapeCase is a query and its operator tree as shape renders it.
type shapeCase struct {
	sql  string
	want []string
}

// checkShapes builds each case's query and compares its operators, the
// addresses subqueries' texts carry left out.
func checkShapes(t *testing.T, tests []shapeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			got := shape(planner.Build(mustBind(t, tt.sql), nil))
			for i := range got {
				got[i] = subqueryAddr.ReplaceAllString(got[i], "subquery$1")
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("operators\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

// subqueryAddr matches the address a subquery's text carries.
var subqueryAddr = regexp.MustCompile(`subquery(\d+)\(0x[0-9a-f]+\)`)

// TestBuildPushdown checks what a table scan gets to hand to the nodes
// that hold its rows: the conjuncts of the filter right above it, and
// the columns the projection or aggregation above those reads.
func TestBuildPushdown(t *testing.T) {
	checkShapes(t, []shapeCase{
		{"SELECT count(*) FROM t WHERE b > 5 AND c LIKE 'x%'", []string{
			"Project $0",
			"  HashAgg",
			"    Filter (($1 > '5'::integer) AND $2 LIKE 'x%'::text)",
			"      TableScan t conds [($1 > '5'::integer), $2 LIKE 'x%'::text] reads [b c]",
		}},
		{"SELECT a + 1 FROM t WHERE b > 5", []string{
			"Project ($0 + '1'::integer)",
			"  Filter ($1 > '5'::integer)",
			"    TableScan t conds [($1 > '5'::integer)] reads [a b]",
		}},
		{"SELECT c FROM t", []string{
			"Project $2",
			"  TableScan t reads [c]",
		}},
		{"SELECT sum(n) FILTER (WHERE f > 0) FROM t GROUP BY a", []string{
			"Project $1",
			"  HashAgg",
			"    TableScan t reads [a n f]",
		}},
		// A subquery may read the whole row: every column is read.
		{"SELECT (SELECT max(x) FROM u WHERE u.a = t.b) FROM t WHERE a > 0", []string{
			"Project subquery0",
			"  Filter ($0 > '0'::integer)",
			"    TableScan t conds [($0 > '0'::integer)]",
		}},
		// A one-time condition gates the scan, which gets the rest.
		{"SELECT a FROM t WHERE b > 1 AND (SELECT max(x) FROM u) > 1", []string{
			"Project $0",
			"  Gate",
			"    Filter ($1 > '1'::integer)",
			"      TableScan t conds [($1 > '1'::integer)] reads [a b]",
		}},
		// A view's projections are not merged: the scan reads what the
		// innermost one computes.
		{"SELECT * FROM v WHERE a = 1", []string{
			"Project $0, $1",
			"  Filter ($0 = '1'::integer)",
			"    Project $0, $1",
			"      Project $0, $2",
			"        TableScan t reads [a c]",
		}},
	})
}

// TestExplain checks the shape of logical plans as EXPLAIN prints them.
func TestExplain(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT t.a, u.x FROM t JOIN u ON t.a = u.a WHERE t.b > 1", []string{
			"Project $0, $7",
			"  Filter ($1 > '1'::integer)",
			"    InnerJoin ON ($0 = $6)",
			"      Scan t",
			"      Scan u",
		}},
		{"SELECT b, count(*) FROM t GROUP BY b HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 3", []string{
			"Limit",
			"  Sort [{1 true true}]",
			"    Project $0, $1",
			"      Filter ($1 > '1'::bigint)",
			"        Aggregate $1, count(*)",
			"          Scan t",
		}},
		{"SELECT DISTINCT c FROM t UNION ALL SELECT y FROM u", []string{
			"Union All",
			"  Project $0",
			"    Distinct",
			"      Project $2",
			"        Scan t",
			"  Project ($0)::text",
			"    Project $2",
			"      Scan u",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			if got := planner.Explain(mustBind(t, tt.sql)); !slices.Equal(got, tt.want) {
				t.Errorf("plan\n got  %q\n want %q", got, tt.want)
			}
		})
	}
}

func TestDependencies(t *testing.T) {
	id := func(name string) uint32 {
		tb, _ := catalog.Table("public", name)
		return tb.ID
	}
	tests := []struct {
		sql  string
		want []uint32
	}{
		{"SELECT 1", nil},
		{"SELECT 1 FROM t JOIN u ON t.a = u.a UNION SELECT a FROM w", []uint32{id("t"), id("u"), id("w")}},
		{"SELECT a FROM t WHERE b IN (SELECT x FROM u) AND EXISTS (SELECT 1 FROM t)", []uint32{id("t"), id("u")}},
		{"SELECT (SELECT max(a) FROM w)", []uint32{id("w")}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			if got := planner.Dependencies(mustBind(t, tt.sql)); !slices.Equal(got, tt.want) {
				t.Errorf("dependencies %v, want %v", got, tt.want)
			}
		})
	}
}
