package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamdb/streamdb/tests/testkit"
	"pgregory.net/rapid"
)

// viewTemplates are materialized-view queries over tables a(id, k, v, s)
// and b(id, k, w); %s is replaced by the check's table prefix.
var viewTemplates = []string{
	"SELECT id, v + 1 AS x, s FROM %[1]sa WHERE v > 3",
	"SELECT k, count(*) AS n, sum(v) AS sv, min(v) AS lo, max(v) AS hi, avg(v) AS av FROM %[1]sa GROUP BY k",
	"SELECT k, count(DISTINCT v) AS dv, string_agg(s, ',') IS NULL AS no_s FROM %[1]sa GROUP BY k",
	"SELECT count(*) AS n, sum(v) AS sv, bool_and(v > 2) AS all_big, bool_or(v IS NULL) AS any_null FROM %[1]sa",
	"SELECT %[1]sa.id AS aid, %[1]sb.id AS bid, v, w FROM %[1]sa JOIN %[1]sb ON %[1]sa.k = %[1]sb.k",
	"SELECT %[1]sa.id AS aid, %[1]sb.id AS bid, v, w FROM %[1]sa LEFT JOIN %[1]sb ON %[1]sa.k = %[1]sb.k AND w > 1",
	"SELECT %[1]sa.id AS aid, %[1]sb.id AS bid FROM %[1]sa FULL JOIN %[1]sb ON %[1]sa.k = %[1]sb.k",
	"SELECT %[1]sa.k, count(*) AS n, sum(w) AS sw FROM %[1]sa JOIN %[1]sb ON %[1]sa.k = %[1]sb.k GROUP BY %[1]sa.k",
	"SELECT id, v FROM %[1]sa ORDER BY v DESC, id LIMIT 3",
	"SELECT id, v FROM %[1]sa ORDER BY v, id LIMIT 2 OFFSET 1",
	"SELECT k FROM %[1]sa UNION ALL SELECT k FROM %[1]sb",
	"SELECT k FROM %[1]sa UNION SELECT k FROM %[1]sb",
	"SELECT k, v FROM %[1]sa EXCEPT SELECT k, w FROM %[1]sb",
	"SELECT k, v %% 3 AS m FROM %[1]sa EXCEPT ALL SELECT k, w %% 3 FROM %[1]sb",
	"SELECT k FROM %[1]sa INTERSECT ALL SELECT k FROM %[1]sb",
	"SELECT k, v > 2 AS big FROM %[1]sa INTERSECT SELECT k, w > 2 FROM %[1]sb",
	"SELECT DISTINCT ON (k) k, id, v FROM %[1]sa ORDER BY k, v DESC NULLS LAST, id",
	"SELECT DISTINCT ON (k, v > 3) id, s FROM %[1]sa ORDER BY v > 3, k, id DESC",
	"SELECT DISTINCT k, v > 4 AS big FROM %[1]sa",
	"SELECT k, v FROM %[1]sa WHERE k IS NOT NULL AND s LIKE 'x%%'",
	"SELECT id, generate_series(1, v %% 4) AS g FROM %[1]sa",
	"SELECT k, count(*) FILTER (WHERE v > 2) AS c, sum(v) FILTER (WHERE s = 'y') AS sy FROM %[1]sa GROUP BY k",
	"SELECT id, v FROM (SELECT id, v, rank() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM %[1]sa) s WHERE r <= 2",
	"SELECT id, k FROM (SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY v, id) AS rn FROM %[1]sa) s WHERE rn BETWEEN 2 AND 3",
	"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn FROM %[1]sa) s WHERE rn <= 3",
	"SELECT id, r FROM (SELECT id, rank() OVER (PARTITION BY k ORDER BY v) AS r FROM %[1]sa) s WHERE r > 1 AND r <= 3",
	// Window functions other than a Top-N: an OverWindow.
	"SELECT id, k, rank() OVER (PARTITION BY k ORDER BY v) AS r, dense_rank() OVER (PARTITION BY k ORDER BY v) AS dr, sum(v) OVER (PARTITION BY k ORDER BY v) AS sv, count(*) OVER (PARTITION BY k) AS n FROM %[1]sa",
	"SELECT id, lag(v) OVER (PARTITION BY k ORDER BY v, id) AS lg, lead(s, 1, 'z') OVER (PARTITION BY k ORDER BY v, id) AS ld, first_value(id) OVER (PARTITION BY k ORDER BY v NULLS FIRST, id) AS fv, avg(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS av FROM %[1]sa",
	"SELECT id, row_number() OVER (ORDER BY v DESC, id) AS rn, max(v) OVER (ORDER BY id RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS mx, min(v) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS mn FROM %[1]sa",
	"SELECT k, id FROM (SELECT k, id, dense_rank() OVER (PARTITION BY k ORDER BY v) AS r FROM %[1]sa) s WHERE r <= 2",
	// Session frames (a NULL v is a session of its own) and frame
	// exclusions.
	"SELECT id, k, first_value(v) OVER w AS ss, last_value(v) OVER w AS se, count(*) OVER w AS n, sum(id) OVER w AS si, max(s) OVER (PARTITION BY k ORDER BY v DESC SESSION WITH GAP 1) AS ms FROM %[1]sa WINDOW w AS (PARTITION BY k ORDER BY v SESSION WITH GAP 2)",
	"SELECT id, sum(id) OVER (PARTITION BY k ORDER BY v GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) AS sg, count(*) OVER (PARTITION BY k ORDER BY v RANGE BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) AS c, max(id) OVER (ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) AS mx FROM %[1]sa",
	"SELECT x.k, x.n, %[1]sb.w FROM (SELECT k, count(*) AS n FROM %[1]sa GROUP BY k) x JOIN %[1]sb ON x.k = %[1]sb.k",
	"SELECT k, stddev(v) AS sd, var_pop(v) AS vp, bit_and(v) AS ba, bit_or(v) AS bo, bit_xor(v) AS bx FROM %[1]sa GROUP BY k",
	"SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS pc, percentile_disc(0.25) WITHIN GROUP (ORDER BY v DESC) AS pd, mode() WITHIN GROUP (ORDER BY s) AS mo FROM %[1]sa GROUP BY k",
	"SELECT variance(v) AS vs, stddev_pop(DISTINCT v) AS sp, bit_xor(v) FILTER (WHERE s = 'y') AS bx, percentile_cont(ARRAY[0.25, 0.75]) WITHIN GROUP (ORDER BY v) AS pc FROM %[1]sa",
	"SELECT k, v > 3 AS big, count(*) AS n, sum(v) AS sv, grouping(k, v > 3) AS g FROM %[1]sa GROUP BY ROLLUP (k, v > 3)",
	"SELECT k, s, count(DISTINCT v) AS dv, max(v) AS hi FROM %[1]sa GROUP BY GROUPING SETS ((k, s), (s), (), ())",
	// Subqueries: semi and anti joins, correlated or not, and scalar ones.
	"SELECT id, v FROM %[1]sa WHERE EXISTS (SELECT 1 FROM %[1]sb WHERE %[1]sb.k = %[1]sa.k AND w > 1)",
	"SELECT id, k FROM %[1]sa WHERE NOT EXISTS (SELECT 1 FROM %[1]sb WHERE %[1]sb.k = %[1]sa.k AND %[1]sb.w >= %[1]sa.v)",
	"SELECT id, s FROM %[1]sa WHERE k IN (SELECT w FROM %[1]sb) AND v IS NOT NULL",
	"SELECT id FROM %[1]sa WHERE id NOT IN (SELECT id FROM %[1]sb) AND NOT EXISTS (SELECT 1 FROM %[1]sb WHERE w > 3)",
	"SELECT id, v FROM %[1]sa WHERE v > (SELECT avg(w) FROM %[1]sb)",
	"SELECT id, (SELECT max(w) FROM %[1]sb) AS mw, v - (SELECT count(*) FROM %[1]sb WHERE k IS NULL) AS d FROM %[1]sa",
	// Correlated scalar subqueries (aggregations grouped by the
	// correlation key, left-joined back), NOT IN over nullable columns,
	// LATERAL subqueries.
	"SELECT id, v FROM %[1]sa WHERE v > (SELECT avg(w) FROM %[1]sb WHERE %[1]sb.k = %[1]sa.k)",
	"SELECT id, (SELECT count(*) FROM %[1]sb WHERE %[1]sb.k = %[1]sa.k AND w > 1) AS n, (SELECT coalesce(max(w), -1) FROM %[1]sb WHERE %[1]sb.k = %[1]sa.k) AS m FROM %[1]sa",
	"SELECT id, s FROM %[1]sa WHERE v NOT IN (SELECT w FROM %[1]sb)",
	"SELECT id FROM %[1]sa WHERE k NOT IN (SELECT w FROM %[1]sb WHERE %[1]sb.k = %[1]sa.v)",
	"SELECT x.id, l.n, l.sw FROM %[1]sa x, LATERAL (SELECT count(*) AS n, sum(w) AS sw FROM %[1]sb WHERE %[1]sb.k = x.k) l",
	"SELECT x.id, l.w FROM %[1]sa x LEFT JOIN LATERAL (SELECT w FROM %[1]sb WHERE %[1]sb.k = x.k AND %[1]sb.w > 1) l ON true",
	// One aggregation used twice (grouped in two orders): planned once.
	"SELECT x.k, x.v, x.n FROM (SELECT k, v, count(*) AS n FROM %[1]sa GROUP BY k, v) x JOIN (SELECT k, max(n) AS m FROM (SELECT count(*) AS n, k FROM %[1]sa GROUP BY v, k) c GROUP BY k) y ON x.k = y.k AND x.n >= y.m",
	// Joins without an equality between the sides (one key group).
	"SELECT x.id AS xi, y.id AS yi FROM %[1]sa x JOIN %[1]sb y ON x.v > y.w",
	"SELECT x.id AS xi, y.id AS yi, y.w FROM %[1]sa x LEFT JOIN %[1]sb y ON x.v BETWEEN y.k AND y.w",
	"SELECT x.id AS xi, y.id AS yi FROM %[1]sa x RIGHT JOIN %[1]sb y ON x.v < y.w AND x.k <> y.k",
	"SELECT x.id AS xi, y.id AS yi FROM %[1]sa x FULL JOIN %[1]sb y ON x.v >= y.w + 2",
	"SELECT count(*) AS n, sum(x.v * y.w) AS s FROM %[1]sa x, %[1]sb y",
	"SELECT id, v FROM %[1]sa, (SELECT max(w) AS m FROM %[1]sb) s WHERE v > m",
	// FETCH ... WITH TIES.
	"SELECT id, v, s FROM %[1]sa ORDER BY v DESC NULLS LAST FETCH FIRST 3 ROWS WITH TIES",
	"SELECT k, id FROM %[1]sa ORDER BY k FETCH FIRST 2 ROWS WITH TIES",
}

// joinInputs are relations of two columns, j (a nullable join key) and p,
// over tables a and b (%[1]s is the table prefix): plain and filtered
// tables, grouped aggregates with a group of NULL, and global aggregates
// whose one row is all NULL over no rows or NULL values.
var joinInputs = []string{
	"SELECT k AS j, v AS p FROM %[1]sa",
	"SELECT k AS j, w AS p FROM %[1]sb",
	"SELECT k AS j, v AS p FROM %[1]sa WHERE v IS NULL OR v > 2",
	"SELECT k AS j, count(*) AS p FROM %[1]sa GROUP BY k",
	"SELECT w AS j, sum(k) AS p FROM %[1]sb GROUP BY w",
	"SELECT max(k) AS j, max(v) AS p FROM %[1]sa",
	"SELECT min(k) AS j, count(*) AS p FROM %[1]sb",
}

// joinView draws a join of two joinInputs (the same one twice for a
// self-join) of any kind, on j with an optional residual condition, or on
// a condition without an equality. Each side is written inline or read
// from a materialized view created for it first (created returns its
// name), so that joins over views over aggregates are covered too.
func joinView(t *rapid.T, p string, create func(q string) string) string {
	side := func(label string) string {
		q := fmt.Sprintf(rapid.SampledFrom(joinInputs).Draw(t, label), p)
		if rapid.Bool().Draw(t, label+"_view") {
			return create(q)
		}
		return "(" + q + ")"
	}
	l := side("left")
	r := l
	if !rapid.Bool().Draw(t, "self_join") {
		r = side("right")
	}
	kind := rapid.SampledFrom([]string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}).Draw(t, "join_kind")
	on := "l.j = r.j"
	switch rapid.IntRange(0, 5).Draw(t, "residual") {
	case 0:
		on += " AND l.p >= r.p"
	case 1:
		on = "l.p > r.p OR l.j = r.j"
	}
	return fmt.Sprintf("SELECT l.j AS lj, l.p AS lp, r.j AS rj, r.p AS rp FROM %s l %s %s r ON %s", l, kind, r, on)
}

// TestViewOracle drives random INSERT/UPDATE/DELETE streams through
// randomly chosen materialized views (created before, between and after
// the changes, at parallelism 1, 2 and 4; templates and joins drawn by
// joinView) and checks after FLUSH that each view equals its query run as
// a batch query over the tables.
func TestViewOracle(t *testing.T) {
	n := testkit.StartNode(t)
	conn := connect(t, n.Addr(), pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	exec := func(t *rapid.T, sql string, args ...any) {
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	check := 0
	rapid.Check(t, func(t *rapid.T) {
		check++
		p := fmt.Sprintf("o%d_", check)
		exec(t, fmt.Sprintf("CREATE TABLE %sa (id INT PRIMARY KEY, k INT, v INT, s TEXT)", p))
		exec(t, fmt.Sprintf("CREATE TABLE %sb (id INT PRIMARY KEY, k INT, w INT)", p))
		views := map[string]string{}
		create := func(q string) string {
			name := fmt.Sprintf("%sv%d", p, len(views))
			par := rapid.SampledFrom([]int{1, 2, 4}).Draw(t, "parallelism")
			exec(t, fmt.Sprintf("CREATE MATERIALIZED VIEW %s WITH (parallelism = %d) AS %s", name, par, q))
			views[name] = q
			return name
		}
		live := map[string]map[int]bool{"a": {}, "b": {}}
		steps := rapid.IntRange(5, 25).Draw(t, "steps")
		for step := 0; step < steps; step++ {
			switch rapid.IntRange(0, 9).Draw(t, "action") {
			case 0: // create a view
				var q string
				if rapid.Bool().Draw(t, "join_shape") {
					q = joinView(t, p, create)
				} else {
					q = fmt.Sprintf(rapid.SampledFrom(viewTemplates).Draw(t, "view"), p)
				}
				create(q)
			default:
				table := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "table")
				mutate(t, exec, p+table, table, live[table])
			}
		}
		exec(t, "FLUSH")
		for name, q := range views {
			got := rowsOf(t, conn, "SELECT * FROM "+name)
			want := rowsOf(t, conn, q)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("view %s = %s\n got:\n%s\n want:\n%s", name, q, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
		exec(t, fmt.Sprintf("DROP TABLE %sa CASCADE", p))
		exec(t, fmt.Sprintf("DROP TABLE %sb CASCADE", p))
	})
}

// mutate applies one random INSERT, UPDATE or DELETE (of several rows) to
// table, keeping live (the ids present) in step.
func mutate(t *rapid.T, exec func(*rapid.T, string, ...any), table, kind string, live map[int]bool) {
	val := func(label string) any {
		if rapid.IntRange(0, 9).Draw(t, label+"_null") == 0 {
			return nil
		}
		return rapid.IntRange(0, 6).Draw(t, label)
	}
	ids := make([]int, 0, len(live))
	for id := range live {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	switch op := rapid.IntRange(0, 3).Draw(t, "op"); {
	case op <= 1 || len(ids) == 0:
		var rows []string
		var args []any
		for i := rapid.IntRange(1, 4).Draw(t, "rows"); i > 0; i-- {
			id := rapid.IntRange(0, 30).Draw(t, "id")
			if live[id] {
				continue
			}
			live[id] = true
			n := len(args)
			if kind == "a" {
				rows = append(rows, fmt.Sprintf("($%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4))
				args = append(args, id, val("k"), val("v"), rapid.SampledFrom([]any{"x1", "x2", "y", nil}).Draw(t, "s"))
			} else {
				rows = append(rows, fmt.Sprintf("($%d, $%d, $%d)", n+1, n+2, n+3))
				args = append(args, id, val("k"), val("w"))
			}
		}
		if len(rows) > 0 {
			exec(t, "INSERT INTO "+table+" VALUES "+strings.Join(rows, ", "), args...)
		}
	case op == 2:
		id := rapid.SampledFrom(ids).Draw(t, "upd")
		col := "v"
		if kind == "b" {
			col = "w"
		}
		if rapid.Bool().Draw(t, "updk") {
			col = "k"
		}
		exec(t, fmt.Sprintf("UPDATE %s SET %s = $1 WHERE id = $2 OR id = $3", table, col), val("new"), id, rapid.IntRange(0, 30).Draw(t, "upd2"))
	default:
		lo := rapid.SampledFrom(ids).Draw(t, "del")
		hi := lo + rapid.IntRange(0, 3).Draw(t, "span")
		exec(t, fmt.Sprintf("DELETE FROM %s WHERE id BETWEEN $1 AND $2", table), lo, hi)
		for id := lo; id <= hi; id++ {
			delete(live, id)
		}
	}
}

// rowsOf returns a query's rows, read in the text format (conn uses the
// simple protocol), as sorted lines. Numerics are written by value (1.50
// as 1.5), as their scale is representation only.
func rowsOf(t interface{ Fatalf(string, ...any) }, conn *pgx.Conn, sql string) []string {
	rows, err := conn.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var parts []string
		for i, raw := range rows.RawValues() {
			switch {
			case raw == nil:
				parts = append(parts, "NULL")
			case rows.FieldDescriptions()[i].DataTypeOID == pgtype.NumericOID:
				parts = append(parts, numericValue(string(raw)))
			default:
				parts = append(parts, string(raw))
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	sort.Strings(out)
	return out
}

// numericValue writes a numeric's text without trailing fractional zeros.
func numericValue(s string) string {
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Form != apd.Finite {
		return s
	}
	d.Reduce(d)
	return d.Text('f')
}
