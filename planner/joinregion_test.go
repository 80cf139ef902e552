package planner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// run binds, orders, builds and runs a query over no stored table, and
// renders its rows as "a|b" lines, NULL as NULL.
func run(sql string) ([]string, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		return nil, err
	}
	n, err := planner.NewBinder(catalog, nil).BindQuery(stmts[0].AST)
	if err != nil {
		return nil, err
	}
	rows, err := exec.Collect(expr.NewCtx(context.Background(), nil), planner.Build(n, nil))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, d := range r {
			parts[j] = "NULL"
			if !d.IsNull() {
				parts[j] = string(types.FormatText(nil, n.Columns()[j].T, d))
			}
		}
		out[i] = strings.Join(parts, "|")
	}
	return out, nil
}

// joinCase is a random inner join of small relations r0, r1, ... with
// columns a and b (int4, values 0..2 or NULL).
type joinCase struct {
	rels [][][2]int // -1 is NULL
	// outer marks the relations written as a left join that keeps their
	// rows as they are: a relation of the inner join that is a join too.
	outer []bool
	conds []joinCondition
}

// joinCondition is one of the case's conditions: l op r, each operand the
// sum of the columns it lists; a column is relation*2 + (0 for a, 1 for b),
// a constant is -1 - value.
type joinCondition struct {
	l, r []int
	op   string
}

func (c joinCondition) rels() []int {
	var out []int
	for _, x := range append(slices.Clone(c.l), c.r...) {
		if x >= 0 {
			out = append(out, x/2)
		}
	}
	return out
}

func operandSQL(cols []int) string {
	parts := make([]string, len(cols))
	for i, x := range cols {
		if x < 0 {
			parts[i] = fmt.Sprint(-1 - x)
		} else {
			parts[i] = fmt.Sprintf("r%d.%c", x/2, "ab"[x%2])
		}
	}
	return strings.Join(parts, " + ")
}

func (c joinCondition) sql() string {
	return operandSQL(c.l) + " " + c.op + " " + operandSQL(c.r)
}

// holds evaluates c over one row of each relation, NULL as false.
func (c joinCondition) holds(rows [][2]int) bool {
	sum := func(cols []int) (int, bool) {
		s := 0
		for _, x := range cols {
			v := -1 - x
			if x >= 0 {
				if v = rows[x/2][x%2]; v < 0 {
					return 0, false
				}
			}
			s += v
		}
		return s, true
	}
	l, lok := sum(c.l)
	r, rok := sum(c.r)
	if !lok || !rok {
		return false
	}
	switch c.op {
	case "=":
		return l == r
	case "<":
		return l < r
	}
	return l > r
}

// drawJoinCase draws a join with at least one row: its conditions all
// hold on a witness row of each relation.
func drawJoinCase(t *rapid.T) joinCase {
	n := rapid.IntRange(2, 12).Draw(t, "relations")
	jc := joinCase{rels: make([][][2]int, n)}
	small := rapid.IntRange(0, 2)
	witness := make([][2]int, n)
	for i := range witness {
		witness[i] = [2]int{small.Draw(t, "a"), small.Draw(t, "b")}
	}
	col := func(rel int) int { return 2*rel + rapid.IntRange(0, 1).Draw(t, "column") }
	add := func(c joinCondition) {
		for _, op := range []string{"=", "<", ">"} {
			if c.holds(witness) {
				break
			}
			c.op = op
		}
		jc.conds = append(jc.conds, c)
	}
	// A spanning tree of equalities keeps large cases small; small ones
	// may also cross unconnected parts.
	for i := 1; i < n; i++ {
		if n > 6 || rapid.IntRange(0, 4).Draw(t, "link") > 0 {
			ci, cj := col(i), col(rapid.IntRange(0, i-1).Draw(t, "parent"))
			witness[i][ci%2] = witness[cj/2][cj%2]
			add(joinCondition{l: []int{ci}, r: []int{cj}, op: "="})
		}
	}
	for range rapid.IntRange(0, 4).Draw(t, "more") {
		i, j, k := rapid.IntRange(0, n-1).Draw(t, "i"), rapid.IntRange(0, n-1).Draw(t, "j"), rapid.IntRange(0, n-1).Draw(t, "k")
		op := rapid.SampledFrom([]string{"=", "<", ">"}).Draw(t, "op")
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0: // a filter
			add(joinCondition{l: []int{col(i)}, r: []int{-1 - small.Draw(t, "const")}, op: op})
		case 1: // a comparison of two relations
			add(joinCondition{l: []int{col(i)}, r: []int{col(j)}, op: op})
		case 2: // a condition over three
			add(joinCondition{l: []int{col(i), col(j)}, r: []int{col(k)}, op: op})
		case 3: // a comparison within one relation
			add(joinCondition{l: []int{2 * i}, r: []int{2*i + 1}, op: op})
		}
	}
	value := rapid.SampledFrom([]int{0, 1, 2, -1})
	for i := range jc.rels {
		for range rapid.IntRange(0, 3).Draw(t, "rows") {
			jc.rels[i] = append(jc.rels[i], [2]int{value.Draw(t, "a"), value.Draw(t, "b")})
		}
		jc.rels[i] = slices.Insert(jc.rels[i], rapid.IntRange(0, len(jc.rels[i])).Draw(t, "at"), witness[i])
		jc.outer = append(jc.outer, rapid.IntRange(0, 4).Draw(t, "outer") == 0)
	}
	return jc
}

// query renders a SELECT * of the case's join with the relations in
// order, its conditions in WHERE or, with on, each in the ON of the
// relation that completes its columns.
func (jc joinCase) query(order []int, on bool) string {
	var b strings.Builder
	b.WriteString("SELECT * FROM ")
	pos := make([]int, len(order))
	for p, r := range order {
		pos[r] = p
	}
	var where []string
	ons := make([][]string, len(order))
	for _, c := range jc.conds {
		last := -1
		for _, r := range c.rels() {
			last = max(last, pos[r])
		}
		if on && last > 0 {
			ons[last] = append(ons[last], c.sql())
		} else {
			where = append(where, c.sql())
		}
	}
	for p, r := range order {
		switch {
		case p == 0:
		case on:
			b.WriteString(" JOIN ")
		default:
			b.WriteString(", ")
		}
		vals := make([]string, len(jc.rels[r]))
		for i, row := range jc.rels[r] {
			v := [2]string{"NULL::int", "NULL::int"}
			for k, x := range row {
				if x >= 0 {
					v[k] = fmt.Sprint(x)
				}
			}
			vals[i] = "(" + v[0] + ", " + v[1] + ")"
		}
		if jc.outer[r] {
			fmt.Fprintf(&b, "(SELECT v.a, v.b FROM (VALUES %s) v(a, b) LEFT JOIN (VALUES (0)) p(p) ON v.a = p.p) r%d", strings.Join(vals, ", "), r)
		} else {
			fmt.Fprintf(&b, "(VALUES %s) r%d(a, b)", strings.Join(vals, ", "), r)
		}
		if on && p > 0 {
			b.WriteString(" ON " + strings.Join(append(ons[p], "true"), " AND "))
		}
	}
	if len(where) > 0 {
		b.WriteString(" WHERE " + strings.Join(where, " AND "))
	}
	return b.String()
}

// want returns the rows of the case's join with the relations in order,
// found by trying every combination (each condition checked as soon as
// its relations are chosen).
func (jc joinCase) want(order []int) []string {
	var out []string
	chosen := make([][2]int, len(jc.rels))
	in := make([]bool, len(jc.rels))
	var try func(p int)
	try = func(p int) {
		for _, c := range jc.conds {
			complete, fresh := true, false
			for _, r := range c.rels() {
				complete = complete && in[r]
				fresh = fresh || p > 0 && r == order[p-1]
			}
			if complete && fresh && !c.holds(chosen) {
				return
			}
		}
		if p == len(order) {
			var parts []string
			for _, r := range order {
				for _, x := range chosen[r] {
					parts = append(parts, map[bool]string{true: "NULL", false: fmt.Sprint(x)}[x < 0])
				}
			}
			out = append(out, strings.Join(parts, "|"))
			return
		}
		r := order[p]
		in[r] = true
		for _, row := range jc.rels[r] {
			chosen[r] = row
			try(p + 1)
		}
		in[r] = false
	}
	try(0)
	slices.Sort(out)
	return out
}

// TestJoinOrderResults checks on random join graphs over small VALUES
// relations (some of them left joins) that SELECT * of their inner join,
// with the relations in any FROM order and the conditions in WHERE or in
// ON, returns the rows that trying every combination finds, with the
// columns in FROM order.
func TestJoinOrderResults(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		jc := drawJoinCase(t)
		order := rapid.Permutation(seq(len(jc.rels))).Draw(t, "order")
		q := jc.query(order, rapid.Bool().Draw(t, "on"))
		got, err := run(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		slices.Sort(got)
		if want := jc.want(order); !slices.Equal(got, want) {
			t.Fatalf("%s:\n got  %q\n want %q", q, got, want)
		}
	})
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestJoinOrderBarriers checks joins that ordering must respect: outer
// joins, LATERAL, USING and conditions that must see the written row, each
// written in several FROM orders.
func TestJoinOrderBarriers(t *testing.T) {
	const (
		x = "(VALUES (1, 1), (2, 2), (3, 3)) x(a, b)"
		y = "(VALUES (1, 10), (2, 20), (4, 40)) y(a, b)"
		z = "(VALUES (1, 100), (3, 300), (4, 400)) z(a, b)"
		w = "(VALUES (1, 100), (3, 300), (4, 400)) w(c, d)"
	)
	tests := []struct {
		queries []string
		want    []string
	}{
		{[]string{
			"SELECT x.a, y.b, z.b FROM " + x + " LEFT JOIN " + y + " ON x.a = y.a, " + z + " WHERE z.a = x.a ORDER BY 1",
			"SELECT x.a, y.b, z.b FROM " + z + ", " + x + " LEFT JOIN " + y + " ON x.a = y.a WHERE z.a = x.a ORDER BY 1",
		}, []string{"1|10|100", "3|NULL|300"}},
		// A filter on an outer join's columns goes above it, not into its ON.
		{[]string{
			"SELECT x.a, y.b, z.b FROM " + x + " LEFT JOIN " + y + " ON x.a = y.a, " + z + " WHERE z.a = x.a AND x.b > 1 ORDER BY 1",
			"SELECT x.a, y.b, z.b FROM " + z + ", " + x + " LEFT JOIN " + y + " ON x.a = y.a WHERE x.b > 1 AND z.a = x.a ORDER BY 1",
		}, []string{"3|NULL|300"}},
		{[]string{
			"SELECT x.a, y.b, z.b FROM " + x + " FULL JOIN " + y + " ON x.a = y.a, " + z + " WHERE z.a = coalesce(x.a, y.a) ORDER BY z.a",
			"SELECT x.a, y.b, z.b FROM " + z + ", " + x + " FULL JOIN " + y + " ON x.a = y.a WHERE z.a = coalesce(x.a, y.a) ORDER BY z.a",
		}, []string{"1|10|100", "3|NULL|300", "NULL|40|400"}},
		{[]string{
			"SELECT x.a, l.m, z.b FROM " + x + ", " + z + ", LATERAL (SELECT x.b * 10 + z.b AS m) l WHERE z.a = x.a ORDER BY 1",
			"SELECT x.a, l.m, z.b FROM " + z + ", " + x + ", LATERAL (SELECT x.b * 10 + z.b AS m) l WHERE z.a = x.a ORDER BY 1",
		}, []string{"1|110|100", "3|330|300"}},
		{[]string{
			"SELECT * FROM " + x + " JOIN " + y + " USING (a), " + w + " WHERE w.c = a ORDER BY 1",
			"SELECT a, x.b, y.b, w.* FROM " + w + ", " + x + " JOIN " + y + " USING (a) WHERE w.c = a ORDER BY 1",
		}, []string{"1|1|10|1|100"}},
		// A correlated subquery reads the written row: it stays above the
		// ordered joins, in WHERE or in ON.
		{[]string{
			"SELECT x.a, y.b, z.b FROM " + x + ", " + y + ", " + z + " WHERE x.a = y.a AND EXISTS (SELECT 1 WHERE z.b = y.b * 10) ORDER BY 1",
			"SELECT x.a, y.b, z.b FROM " + z + ", " + x + ", " + y + " WHERE EXISTS (SELECT 1 WHERE z.b = y.b * 10) AND x.a = y.a ORDER BY 1",
			"SELECT x.a, y.b, z.b FROM " + z + " JOIN " + y + " ON (SELECT z.b = y.b * 10) JOIN " + x + " ON x.a = y.a ORDER BY 1",
		}, []string{"1|10|100"}},
		{[]string{
			"SELECT x.a, z.b FROM " + x + ", " + y + ", " + z + " WHERE x.a = z.a AND random() >= 0 AND y.a = 4 ORDER BY 1",
			"SELECT x.a, z.b FROM " + y + ", " + z + ", " + x + " WHERE y.a = 4 AND random() >= 0 AND z.a = x.a ORDER BY 1",
		}, []string{"1|100", "3|300"}},
	}
	for _, tt := range tests {
		for _, q := range tt.queries {
			t.Run(q, func(t *testing.T) {
				if got, err := run(q); err != nil || !slices.Equal(got, tt.want) {
					t.Errorf("rows %q (error %v), want %q", got, err, tt.want)
				}
			})
		}
	}
}

// TestJoinOrderExplain checks the plan EXPLAIN shows for joins written in
// an unlucky order: the connected ones are joined first, each filter sits
// on its relation, and a projection gives the columns back in FROM order.
func TestJoinOrderExplain(t *testing.T) {
	n := mustBind(t, "SELECT * FROM t, w, u WHERE u.x = w.a AND t.a = u.a AND t.b = 1")
	got := planner.Explain(planner.OrderJoins(n, func(tb *meta.Table) float64 {
		return map[string]float64{"t": 1000, "u": 100, "w": 10}[tb.Name]
	}))
	// t (filtered to 5 rows) and u join first, w probes their join's
	// hash table; the row id columns stay out of *.
	want := []string{
		"Project $7, $8, $9, $10, $11, $12, $0, $1, $3, $4, $5",
		"  InnerJoin ON ($4 = ($0)::bigint)",
		"    Scan w",
		"    InnerJoin ON ($4 = $0)",
		"      Scan u",
		"      Filter ($1 = '1'::integer)",
		"        Scan t",
	}
	if !slices.Equal(got, want) {
		t.Errorf("plan\n got  %q\n want %q", got, want)
	}
}

// TestOrderDisconnectedJoins checks that streaming plans keep a join
// order that has an equality at every step as written, and reorder one
// that would join a relation without an equality to those before it
// (also when an OR hides the equality in each of its branches).
func TestOrderDisconnectedJoins(t *testing.T) {
	for _, tt := range []struct {
		sql  string
		same bool
		want []string // the joins' conditions, innermost first, when reordered
	}{
		{sql: "SELECT * FROM t, u, w WHERE t.a = u.a AND u.x = w.a", same: true},
		{sql: "SELECT * FROM t JOIN u ON t.a = u.a JOIN w ON u.x = w.a", same: true},
		{sql: "SELECT * FROM t, w, u WHERE u.x = w.a AND t.a = u.a", want: []string{"($0 = $6)", "($7 = ($10)::bigint)"}},
		{sql: "SELECT * FROM t, u WHERE (t.a = u.a AND t.b = 1) OR (t.a = u.a AND u.x = 2)", want: []string{"(($0 = $6) AND (($1 = '1'::integer) OR ($7 = '2'::bigint)))"}},
	} {
		n := mustBind(t, tt.sql)
		got := planner.OrderDisconnectedJoins(n)
		if tt.same {
			if !slices.Equal(planner.Explain(got), planner.Explain(n)) {
				t.Errorf("%s: reordered\n%q", tt.sql, planner.Explain(got))
			}
			continue
		}
		var conds []string
		for _, line := range planner.Explain(got) {
			if _, on, ok := strings.Cut(line, "InnerJoin ON "); ok {
				conds = append([]string{on}, conds...)
			}
		}
		if !slices.Equal(conds, tt.want) {
			t.Errorf("%s: join conditions %q, want %q\n%q", tt.sql, conds, tt.want, planner.Explain(got))
		}
	}
}
