package planner_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/types"
)

// viewID is the table id the test views materialize into; state tables
// get ids from firstState on.
const (
	viewID     = 99
	firstState = 100
)

// planView binds and plans sql as a materialized view; tables is the
// number of state tables allocated.
func planView(t *testing.T, sql string, params ...types.T) (sp *planner.StreamPlan, tables int, err error) {
	t.Helper()
	n, _, err := bindQuery(t, sql, params...)
	if err != nil {
		t.Fatalf("bind %q: %v", sql, err)
	}
	next := uint32(firstState)
	sp, err = planner.PlanStream(n, viewID, 16, false, func() uint32 { next++; return next - 1 })
	return sp, int(next - firstState), err
}

// columns renders a view's columns as "name type", hidden ones marked.
func columns(cols []planner.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + c.T.String()
		if c.Hidden {
			parts[i] += " hidden"
		}
	}
	return strings.Join(parts, ", ")
}

func TestPlanStream(t *testing.T) {
	tests := []struct {
		name, sql string
		// graph is the expected Explain output, cols the view's columns,
		// pk its primary key.
		graph      string
		cols, pk   string
		appendOnly bool
		tables     int
	}{
		{
			name: "filter and project keep the primary key hidden",
			sql:  "SELECT b, c FROM t WHERE b > 1",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[2]
    Project [$1, $2, $0]
      Filter ($1 > '1'::integer)
        Exchange Hash[0] <- Table t`,
			cols: "b integer, c text, a integer hidden", pk: "[2]",
		},
		{
			name: "temporal filter after the other conjuncts, in a fragment keyed by the stream key",
			sql:  "SELECT b FROM t WHERE ts BETWEEN now() - INTERVAL '1' HOUR AND current_timestamp AND b > 1",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[1]
    Project [$1, $0]
      TemporalFilter ($5)::timestamp with time zone >= (now() - '01:00:00'::interval hour) AND ($5)::timestamp with time zone <= current_timestamp() state=100
        Filter ($1 > '1'::integer)
          Exchange Hash[0] <- Table t`,
			cols: "b integer, a integer hidden", pk: "[1]", tables: 1,
		},
		{
			name: "a delay keeps an append-only stream append-only",
			sql:  "SELECT k FROM e WHERE now() > s::timestamptz",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[1] row-blocks
    Project [$0, $3]
      TemporalFilter ($2)::timestamp with time zone < now() state=100
        Exchange Hash[3] <- Table e`,
			cols: "k bigint, _row_id bigint hidden", pk: "[1]", appendOnly: true, tables: 1,
		},
		{
			name: "HOP window counts count each chunk's rows per pane and group, then expand the counts",
			sql:  "SELECT b, window_start, window_end, count(*) AS n FROM HOP(t, ts, INTERVAL '1' MINUTE, INTERVAL '3' MINUTE) GROUP BY b, window_start, window_end",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0 1 2]
    HashAgg group=[0 1 2] aggs=[count(*)] weight=$3
      Exchange Hash[0 1 2] <- Fragment 0
Fragment 0 (parallelism default)
  ProjectSet hop_window_starts($1, '00:01:00'::interval, '00:03:00'::interval) then Project [$0, $3, ($3 + '00:03:00'::interval), $2]
    Consolidate pane($1, 60000000us)
      Project [$1, $5]
        Exchange Hash[0] <- Table t`,
			cols: "b integer, window_start timestamp without time zone, window_end timestamp without time zone, n bigint", pk: "[0 1 2]", tables: 1,
		},
		{
			name: "a max of counts of append-only rows keeps its value alone: the counts only rise",
			sql:  "SELECT v, max(n) FROM (SELECT k, v, count(*) AS n FROM e GROUP BY k, v) x GROUP BY v",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[1] aggs=[max($2)] rising=max($2)
      Exchange Hash[1] <- Fragment 0
Fragment 0 (parallelism default)
  HashAgg group=[0 1] aggs=[count(*)] append-only
    Exchange Hash[0 1] <- Table e`,
			cols: "v integer, max bigint", pk: "[0]", tables: 3,
		},
		{
			name: "a max of counts grouped by the count keeps every value: an update moves between groups",
			sql:  "SELECT n, max(n) FROM (SELECT k, count(*) AS n FROM e GROUP BY k) x GROUP BY n",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[1] aggs=[max($1)]
      Exchange Hash[1] <- Fragment 0
Fragment 0 (parallelism default)
  HashAgg group=[0] aggs=[count(*)] append-only
    Exchange Hash[0] <- Table e`,
			cols: "n bigint, max bigint", pk: "[0]", tables: 3,
		},
		{
			name: "a max of filtered counts keeps every value: the filter may pass a retraction alone",
			sql:  "SELECT max(n) FROM (SELECT k, count(*) AS n FROM e GROUP BY k) x WHERE n < 5",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[]
    Exchange Hash[] <- Fragment 1
Fragment 1 (singleton)
  HashAgg group=[] aggs=[max($1)]
    Exchange Single <- Fragment 0
Fragment 0 (parallelism default)
  Filter ($1 < '5'::bigint)
    HashAgg group=[0] aggs=[count(*)] append-only
      Exchange Hash[0] <- Table e`,
			cols: "max bigint", pk: "[]", tables: 3,
		},
		{
			name: "HOP aggregations reading more than the group expand each row",
			sql:  "SELECT window_start, count(c) FROM HOP(t, ts, INTERVAL '1' MINUTE, INTERVAL '3' MINUTE) GROUP BY window_start",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[6] aggs=[count($2)]
      Exchange Hash[6] <- Fragment 0
Fragment 0 (parallelism default)
  ProjectSet hop_window_starts($5, '00:01:00'::interval, '00:03:00'::interval) then Project [$0, NULL::integer, $2, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, $6, NULL::timestamp without time zone, $7]
    Exchange Hash[0] <- Table t`,
			cols: "window_start timestamp without time zone, count bigint", pk: "[0]", tables: 1,
		},
		{
			name: "grouping sets expand before an aggregation keyed by the grouping columns and the set",
			sql:  "SELECT b, c, count(*), grouping(b, c) FROM t GROUP BY ROLLUP (b, c)",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0 1 4]
    Project [$0, $1, $3, grouping($2, masks [0 1 3]), $2]
      HashAgg group=[6 7 8] aggs=[count(*)] empty-sets=[2]
        Exchange Hash[6 7 8] <- Fragment 0
Fragment 0 (parallelism default)
  Expand nulled=[[] [7] [6 7]]
    Project [$0, NULL::integer, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, $1, $2]
      Exchange Hash[0] <- Table t`,
			cols: "b integer, c text, count bigint, grouping integer, grouping set bigint hidden", pk: "[0 1 4]", tables: 1,
		},
		{
			name: "hidden row id",
			sql:  "SELECT a, x FROM u",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[2]
    Project [$0, $1, $3]
      Exchange Hash[3] <- Table u`,
			cols: "a integer, x bigint, _row_id bigint hidden", pk: "[2]",
		},
		{
			name: "projection of every column is dropped",
			sql:  "SELECT * FROM u",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[3]
    Exchange Hash[3] <- Table u`,
			cols: "a integer, x bigint, y character varying(10), _row_id bigint hidden", pk: "[3]",
		},
		{
			name: "volatile functions over an append-only table",
			sql:  "SELECT k, random() < 2 AS r FROM e",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[2] row-blocks
    Project [$0, (random() < '2'::double precision), $3]
      Exchange Hash[3] <- Table e`,
			cols: "k bigint, r boolean, _row_id bigint hidden", pk: "[2]", appendOnly: true,
		},
		{
			name: "values are emitted once by a root fragment",
			sql:  "SELECT x, random() < 2 AS r FROM (VALUES (1), (2)) v(x)",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2] row-blocks
    Exchange Hash[2] <- Fragment 0
Fragment 0 (singleton)
  Project [$0, (random() < '2'::double precision), $1]
    Values 2 rows`,
			cols: "x integer, r boolean, _row bigint hidden", pk: "[2]", appendOnly: true,
		},
		{
			name: "set-returning functions over constants are evaluated once, like values",
			sql:  "SELECT g * 2 AS d, unnest(ARRAY['a']) AS u FROM range(1, 3) g",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2] row-blocks
    Exchange Hash[2] <- Fragment 0
Fragment 0 (singleton)
  Project [($0 * '2'::integer), $1, $2]
    Values 2 rows`,
			cols: "d integer, u text, _row bigint hidden", pk: "[2]", appendOnly: true,
		},
		{
			name: "set-returning functions expand rows; their row number joins the key",
			sql:  "SELECT a, generate_series(1, b) AS g FROM t",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 0
Fragment 0 (parallelism default)
  ProjectSet generate_series('1'::integer, $1) then Project [$0, $6, $7]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, g integer, _ordinal bigint hidden", pk: "[0 2]",
		},
		{
			name: "append-only table",
			sql:  "SELECT k, v FROM e WHERE v > 0",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[2] row-blocks
    Project [$0, $1, $3]
      Filter ($1 > '0'::integer)
        Exchange Hash[3] <- Table e`,
			cols: "k bigint, v integer, _row_id bigint hidden", pk: "[2]", appendOnly: true,
		},
		{
			name: "grouped aggregation reads the table hashed on the group key",
			sql:  "SELECT b, count(*), sum(n) FROM t GROUP BY b",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[1] aggs=[count(*) sum($3)]
      Exchange Hash[1] <- Table t`,
			cols: "b integer, count bigint, sum numeric", pk: "[0]", tables: 1,
		},
		{
			name: "group key expression is computed before the exchange",
			sql:  "SELECT b + 1 AS k, min(c) FROM t WHERE a > 0 GROUP BY b + 1",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[6] aggs=[min($2)]
      Exchange Hash[6] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $1, $2, $3, $4, $5, ($1 + '1'::integer)]
    Filter ($0 > '0'::integer)
      Exchange Hash[0] <- Table t`,
			cols: "k integer, min text", pk: "[0]", tables: 2,
		},
		{
			name: "computed group key dropped by the select list",
			sql:  "SELECT count(*) FROM t GROUP BY b + 1",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[1]
    Project [$1, $0]
      HashAgg group=[6] aggs=[count(*)]
        Exchange Hash[6] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $1, $2, $3, $4, $5, ($1 + '1'::integer)]
    Exchange Hash[0] <- Table t`,
			cols: "count bigint, _key integer hidden", pk: "[1]", tables: 1,
		},
		{
			name: "global aggregation is a singleton with an empty key",
			sql:  "SELECT count(*), max(b) FROM t",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[]
    Exchange Hash[] <- Fragment 0
Fragment 0 (singleton)
  HashAgg group=[] aggs=[count(*) max($1)]
    Exchange Single <- Table t`,
			cols: "count bigint, max integer", pk: "[]", tables: 2,
		},
		{
			name: "count distinct",
			sql:  "SELECT b, count(DISTINCT c) FROM t GROUP BY b",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[1] aggs=[count(DISTINCT $2)]
      Exchange Hash[1] <- Table t`,
			cols: "b integer, count bigint", pk: "[0]", tables: 2,
		},
		{
			name: "append-only aggregation needs no multiset for max",
			sql:  "SELECT v, max(k) FROM e GROUP BY v HAVING count(*) > 1",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0, $1]
      Filter ($2 > '1'::bigint)
        HashAgg group=[1] aggs=[max($0) count(*)] append-only
          Exchange Hash[1] <- Table e`,
			cols: "v integer, max bigint", pk: "[0]", tables: 1,
		},
		{
			name: "distinct",
			sql:  "SELECT DISTINCT b FROM t",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[0] aggs=[]
      Project [$1, $0]
        Exchange Hash[1] <- Table t`,
			cols: "b integer", pk: "[0]", tables: 1,
		},
		{
			name: "inner join with a residual condition",
			sql:  "SELECT t.a, u.x FROM t JOIN u ON t.a = u.a AND t.b < u.x",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $7, $9]
    HashJoin Inner left=[0] right=[0] cond=(($1)::bigint < $7)
      Exchange Hash[0] <- Table t
      Exchange Hash[0] <- Table u`,
			cols: "a integer, x bigint, _row_id bigint hidden", pk: "[0 2]", tables: 2,
		},
		{
			name: "where clause over a comma join becomes the join condition",
			sql:  "SELECT t.a FROM t, u WHERE t.a = u.a AND t.b > 2",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 1]
    Exchange Hash[0 1] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $9]
    HashJoin Inner left=[0] right=[0]
      Exchange Hash[0] <- Fragment 0
      Exchange Hash[0] <- Table u
Fragment 0 (parallelism default)
  Filter ($1 > '2'::integer)
    Exchange Hash[0] <- Table t`,
			cols: "a integer, _row_id bigint hidden", pk: "[0 1]", tables: 2,
		},
		{
			name: "left join keeps its ON condition",
			sql:  "SELECT t.a, u.x FROM t LEFT JOIN u ON t.a = u.a AND u.x > 1",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $7, $9]
    HashJoin Left left=[0] right=[0] cond=($7 > '1'::bigint)
      Exchange Hash[0] <- Table t
      Exchange Hash[0] <- Table u`,
			cols: "a integer, x bigint, _row_id bigint hidden", pk: "[0 2]", tables: 2,
		},
		{
			// The join's presence column tells a left-padded row from a
			// right-padded one whose other key columns are NULL too.
			name: "full join keeps both keys hidden",
			sql:  "SELECT t.b, u.y FROM t FULL JOIN u ON t.a = u.a AND t.c <> u.y",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2 3 4 5]
    Exchange Hash[2 3 4 5] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$1, $8, $0, $9, $6, $10]
    HashJoin Full left=[0] right=[0] cond=($2 <> ($8)::text)
      Exchange Hash[0] <- Table t
      Exchange Hash[0] <- Table u`,
			cols: "b integer, y character varying(10), a integer hidden, _row_id bigint hidden, a_1 integer hidden, _right_present boolean hidden", pk: "[2 3 4 5]", tables: 2,
		},
		{
			// No equality between the sides: both are keyed by a constant,
			// so all rows meet in one key group.
			name: "cross join on a constant key",
			sql:  "SELECT t.a, u.x FROM t, u",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0 2 3]
    Exchange Hash[0 2 3] <- Fragment 2
Fragment 2 (parallelism default)
  Project [$0, $8, $10, $6]
    HashJoin Inner left=[6] right=[4]
      Exchange Hash[6] <- Fragment 0
      Exchange Hash[4] <- Fragment 1
Fragment 1 (parallelism default)
  Project [NULL::integer, $1, NULL::character varying(10), $3, '0'::integer]
    Exchange Hash[3] <- Table u
Fragment 0 (parallelism default)
  Project [$0, NULL::integer, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, '0'::integer]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, x bigint, _row_id bigint hidden, _key integer hidden", pk: "[0 2 3]", tables: 2,
		},
		{
			name: "left join on an inequality keeps it as the residual",
			sql:  "SELECT t.a, u.x FROM t LEFT JOIN u ON t.b < u.x",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0 2 3]
    Exchange Hash[0 2 3] <- Fragment 2
Fragment 2 (parallelism default)
  Project [$0, $8, $10, $6]
    HashJoin Left left=[6] right=[4] cond=(($1)::bigint < $8)
      Exchange Hash[6] <- Fragment 0
      Exchange Hash[4] <- Fragment 1
Fragment 1 (parallelism default)
  Project [NULL::integer, $1, NULL::character varying(10), $3, '0'::integer]
    Exchange Hash[3] <- Table u
Fragment 0 (parallelism default)
  Project [$0, $1, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, '0'::integer]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, x bigint, _row_id bigint hidden, _key integer hidden", pk: "[0 2 3]", tables: 2,
		},
		{
			name: "computed join key",
			sql:  "SELECT t.a FROM t JOIN u ON t.a + 1 = u.a",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 1 2]
    Exchange Hash[0 1 2] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $10, $6]
    HashJoin Inner left=[6] right=[0]
      Exchange Hash[6] <- Fragment 0
      Exchange Hash[0] <- Table u
Fragment 0 (parallelism default)
  Project [$0, $1, $2, $3, $4, $5, ($0 + '1'::integer)]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, _row_id bigint hidden, _key integer hidden", pk: "[0 1 2]", tables: 2,
		},
		{
			name: "inner join of append-only inputs",
			sql:  "SELECT e1.k, e2.v FROM e e1 JOIN e e2 ON e1.k = e2.k",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2 3 0] row-blocks
    Exchange Hash[2 3 0] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $5, $3, $7]
    HashJoin Inner left=[0] right=[0]
      Exchange Hash[0] <- Table e
      Exchange Hash[0] <- Table e`,
			cols: "k bigint, v integer, _row_id bigint hidden, _row_id_1 bigint hidden", pk: "[2 3 0]", appendOnly: true, tables: 2,
		},
		{
			name: "columns no operator reads are left out of a join's state",
			sql:  "SELECT s.k, e2.v FROM (SELECT k, v * 2 AS w FROM e WHERE v > 0) s JOIN e e2 ON s.k = e2.k",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[2 3 0] row-blocks
    Exchange Hash[2 3 0] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $4, $2, $6]
    HashJoin Inner left=[0] right=[0]
      Exchange Hash[0] <- Fragment 0
      Exchange Hash[0] <- Table e
Fragment 0 (parallelism default)
  Project [$0, NULL::integer, $3]
    Filter ($1 > '0'::integer)
      Exchange Hash[0] <- Table e`,
			cols: "k bigint, v integer, _row_id bigint hidden, _row_id_1 bigint hidden", pk: "[2 3 0]", appendOnly: true, tables: 2,
		},
		{
			name: "join with a global aggregation, whose key is empty",
			sql:  "SELECT x.cnt, y.total FROM mv x JOIN (SELECT count(*) AS total FROM t) y ON x.cnt = y.total",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[2 0]
    Exchange Hash[2 0] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$1, $2, $0]
    HashJoin Inner left=[1] right=[0]
      Exchange Hash[1] <- Table mv
      Exchange Hash[0] <- Fragment 0
Fragment 0 (singleton)
  HashAgg group=[] aggs=[count(*)]
    Exchange Single <- Table t`,
			cols: "cnt bigint, total bigint, b integer hidden", pk: "[2 0]", tables: 3,
		},
		{
			name: "union all adds a branch number and key slots",
			sql:  "SELECT a FROM t UNION ALL SELECT a FROM u",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[1 2 3]
    Union inputs=2
      Exchange Hash[1 2 3] <- Fragment 0
      Exchange Hash[1 2 3] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, '1'::integer, NULL::integer, $3]
    Exchange Hash[3] <- Table u
Fragment 0 (parallelism default)
  Project [$0, '0'::integer, $0, NULL::bigint]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, _branch integer hidden, a_1 integer hidden, _row_id bigint hidden", pk: "[1 2 3]",
		},
		{
			name: "union distinct",
			sql:  "SELECT a FROM t UNION SELECT a FROM u UNION SELECT v FROM e",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[0] aggs=[]
      Union inputs=3
        Exchange Hash[0] <- Fragment 0
        Exchange Hash[0] <- Fragment 1
        Exchange Hash[0] <- Fragment 2
Fragment 2 (parallelism default)
  Project [$1]
    Exchange Hash[1] <- Table e
Fragment 1 (parallelism default)
  Project [$0]
    Exchange Hash[0] <- Table u
Fragment 0 (parallelism default)
  Project [$0]
    Exchange Hash[0] <- Table t`,
			cols: "a integer", pk: "[0]", tables: 1,
		},
		{
			name: "except keys by the row",
			sql:  "SELECT a FROM t EXCEPT SELECT a FROM u",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0]
    SetOp Except
      Exchange Hash[0] <- Fragment 0
      Exchange Hash[0] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0]
    Exchange Hash[0] <- Table u
Fragment 0 (parallelism default)
  Project [$0]
    Exchange Hash[0] <- Table t`,
			cols: "a integer", pk: "[0]", tables: 1,
		},
		{
			name: "intersect all numbers the copies",
			sql:  "SELECT a, b FROM t INTERSECT ALL SELECT a, a FROM u",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0 1 2]
    Exchange Hash[0 1 2] <- Fragment 2
Fragment 2 (parallelism default)
  SetOp Intersect all
    Exchange Hash[0 1] <- Fragment 0
    Exchange Hash[0 1] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $0]
    Exchange Hash[0 0] <- Table u
Fragment 0 (parallelism default)
  Project [$0, $1]
    Exchange Hash[0 1] <- Table t`,
			cols: "a integer, b integer, _copy bigint hidden", pk: "[0 1 2]", tables: 1,
		},
		{
			name: "distinct on is a group top-1",
			sql:  "SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0, $1]
      TopN group=[0] order=[$0 NULLS LAST $1 DESC NULLS FIRST] limit=1 offset=0
        Project [$0, $1]
          Exchange Hash[0] <- Table t`,
			cols: "a integer, b integer", pk: "[0]", tables: 1,
		},
		{
			name: "top-n",
			sql:  "SELECT a, b FROM t ORDER BY b DESC LIMIT 3",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Exchange Hash[0] <- Fragment 0
Fragment 0 (singleton)
  TopN group=[] order=[$1 DESC NULLS FIRST] limit=3 offset=0
    Project [$0, $1]
      Exchange Single <- Table t`,
			cols: "a integer, b integer", pk: "[0]", tables: 1,
		},
		{
			name: "top-n with ties",
			sql:  "SELECT a, b FROM t ORDER BY b FETCH FIRST 3 ROWS WITH TIES",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Exchange Hash[0] <- Fragment 0
Fragment 0 (singleton)
  TopN group=[] order=[$1 NULLS LAST] limit=3 offset=0 with ties
    Project [$0, $1]
      Exchange Single <- Table t`,
			cols: "a integer, b integer", pk: "[0]", tables: 1,
		},
		{
			name: "top-n with offset over a column not in the output",
			sql:  "SELECT b FROM t ORDER BY c LIMIT 3 OFFSET 2",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[1]
    Exchange Hash[1] <- Fragment 0
Fragment 0 (singleton)
  Project [$0, $2]
    TopN group=[] order=[$1 NULLS LAST] limit=3 offset=2
      Project [$1, $2, $0]
        Exchange Single <- Table t`,
			cols: "b integer, a integer hidden", pk: "[1]", tables: 1,
		},
		{
			name: "limit without order by ranks by the stream key",
			sql:  "SELECT a, x FROM u LIMIT 5",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2]
    Exchange Hash[2] <- Fragment 0
Fragment 0 (singleton)
  TopN group=[] order=[$2 NULLS LAST] limit=5 offset=0
    Project [$0, $1, $3]
      Exchange Single <- Table u`,
			cols: "a integer, x bigint, _row_id bigint hidden", pk: "[2]", tables: 1,
		},
		{
			name: "order by without limit is ignored",
			sql:  "SELECT a FROM t ORDER BY b",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0]
      Exchange Hash[0] <- Table t`,
			cols: "a integer", pk: "[0]",
		},
		{
			name: "row_number top-n per partition hashes on the partition key, which joins the stream key",
			sql:  "SELECT a, b FROM (SELECT *, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t) s WHERE rn <= 3",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[1 0]
    Exchange Hash[1 0] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $1]
    TopN group=[1] order=[$2 NULLS LAST] limit=3 offset=0
      Exchange Hash[1] <- Table t`,
			cols: "a integer, b integer", pk: "[1 0]", tables: 1,
		},
		{
			name: "window functions other than a Top-N are an OverWindow hashed on the partition key",
			sql:  "SELECT a, sum(a) OVER (PARTITION BY b ORDER BY c ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s, lag(a) OVER (PARTITION BY b ORDER BY c) AS l FROM t",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[3 0]
    Exchange Hash[3 0] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $6, $7, $1]
    OverWindow partition=[1] order=[$2 NULLS LAST] funcs=[sum($0) ROWS BETWEEN '1'::bigint PRECEDING AND CURRENT ROW, lag($0)]
      Exchange Hash[1] <- Table t`,
			cols: "a integer, s bigint, l integer, b integer hidden", pk: "[3 0]", tables: 1,
		},
		{
			name: "a window without PARTITION BY is a singleton OverWindow",
			sql:  "SELECT a, dense_rank() OVER (ORDER BY c) AS r FROM t",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Exchange Hash[0] <- Fragment 0
Fragment 0 (singleton)
  Project [$0, $6]
    OverWindow partition=[] order=[$2 NULLS LAST] funcs=[dense_rank()]
      Exchange Single <- Table t`,
			cols: "a integer, r bigint", pk: "[0]", tables: 1,
		},
		{
			name: "a selected row number is numbered by the Top-N",
			sql:  "SELECT * FROM (SELECT a, b, row_number() OVER (PARTITION BY b ORDER BY c DESC) AS rn FROM t) s WHERE rn <= 2",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[1 0]
    Exchange Hash[1 0] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $1, $6]
    TopN group=[1] order=[$2 DESC NULLS FIRST] limit=2 offset=0 numbered
      Exchange Hash[1] <- Table t`,
			cols: "a integer, b integer, rn bigint", pk: "[1 0]", tables: 1,
		},
		{
			name: "reversed bounds give an offset",
			sql:  "SELECT x FROM (SELECT x, a, row_number() OVER (PARTITION BY a ORDER BY x DESC) AS rn FROM u) s WHERE 3 >= rn AND rn > 1",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[1 2]
    Exchange Hash[1 2] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$1, $0, $3]
    TopN group=[0] order=[$1 DESC NULLS FIRST] limit=2 offset=1
      Exchange Hash[0] <- Table u`,
			cols: "x bigint, a integer hidden, _row_id bigint hidden", pk: "[1 2]", tables: 1,
		},
		{
			name: "top-n without partition is a singleton; other conditions filter its rows",
			sql:  "SELECT a FROM (SELECT a, b, row_number() OVER (ORDER BY c DESC) AS rn FROM t) s WHERE rn BETWEEN 2 AND 4 AND a > 1",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Exchange Hash[0] <- Fragment 0
Fragment 0 (singleton)
  Project [$0]
    Filter ($0 > '1'::integer)
      Project [$0, $1, NULL::bigint]
        TopN group=[] order=[$2 DESC NULLS FIRST] limit=3 offset=1
          Exchange Single <- Table t`,
			cols: "a integer", pk: "[0]", tables: 1,
		},
		{
			name: "computed partition and order keys",
			sql:  "SELECT x, y FROM (SELECT *, row_number() OVER (PARTITION BY x / 2 ORDER BY 6 - y, x) AS r FROM (SELECT a AS x, b AS y FROM t) q) s WHERE r <= 3",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[2 0]
    Exchange Hash[2 0] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $1, $2]
    TopN group=[2] order=[$3 NULLS LAST $0 NULLS LAST] limit=3 offset=0
      Exchange Hash[2] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $1, ($0 / '2'::integer), ('6'::integer - $1)]
    Exchange Hash[0] <- Table t`,
			cols: "x integer, y integer, _key integer hidden", pk: "[2 0]", tables: 1,
		},
		{
			name: "aggregation over a top-n on its partition key needs no exchange",
			sql:  "SELECT b, count(*) FROM (SELECT a, b, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t) s WHERE rn < 3 GROUP BY b",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[1] aggs=[count(*)]
      Project [$0, $1, NULL::bigint]
        TopN group=[1] order=[$2 NULLS LAST] limit=2 offset=0
          Exchange Hash[1] <- Table t`,
			cols: "b integer, count bigint", pk: "[0]", tables: 2,
		},
		{
			name: "filter on the row number pushed below a join",
			sql:  "SELECT s.a, u.x FROM (SELECT a, row_number() OVER (PARTITION BY a ORDER BY b) AS rn FROM t) s JOIN u ON s.a = u.a WHERE s.rn <= 2",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $3, $5]
    HashJoin Inner left=[0] right=[0]
      Exchange Hash[0] <- Fragment 0
      Exchange Hash[0] <- Table u
Fragment 0 (parallelism default)
  Project [$0, NULL::bigint]
    TopN group=[0] order=[$1 NULLS LAST] limit=2 offset=0
      Exchange Hash[0] <- Table t`,
			cols: "a integer, x bigint, _row_id bigint hidden", pk: "[0 2]", tables: 3,
		},
		{
			name: "top-n over an append-only table is not append-only",
			sql:  "SELECT k, v FROM (SELECT k, v, row_number() OVER (PARTITION BY v ORDER BY k) AS rn FROM e) s WHERE rn = 2",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[1 2]
    Exchange Hash[1 2] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $1, $3]
    TopN group=[1] order=[$0 NULLS LAST] limit=1 offset=1
      Exchange Hash[1] <- Table e`,
			cols: "k bigint, v integer, _row_id bigint hidden", pk: "[1 2]", tables: 1,
		},
		{
			name: "view over a materialized view",
			sql:  "SELECT cnt, count(*) FROM mv WHERE b > 0 GROUP BY cnt",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    HashAgg group=[1] aggs=[count(*)]
      Filter ($0 > '0'::integer)
        Exchange Hash[1] <- Table mv`,
			cols: "cnt bigint, count bigint", pk: "[0]", tables: 1,
		},
		{
			name: "a correlated EXISTS is a semi join keyed by its equality, keyed by the join key too",
			sql:  "SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.b AND u.x > 5)",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 1]
    Exchange Hash[0 1] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $1]
    HashJoin Semi left=[1] right=[1]
      Exchange Hash[1] <- Table t
      Exchange Hash[1] <- Fragment 0
Fragment 0 (parallelism default)
  Project [NULL::integer, $0, $3]
    Filter ($1 > '5'::bigint)
      Exchange Hash[0] <- Table u`,
			cols: "a integer, b integer hidden", pk: "[0 1]", tables: 2,
		},
		{
			name: "an uncorrelated NOT EXISTS is an anti join by a constant key",
			sql:  "SELECT a FROM t WHERE NOT EXISTS (SELECT 1 FROM u)",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0 1]
    Exchange Hash[0 1] <- Fragment 2
Fragment 2 (parallelism default)
  Project [$0, $6]
    HashJoin Anti left=[6] right=[1]
      Exchange Hash[6] <- Fragment 0
      Exchange Hash[1] <- Fragment 1
Fragment 1 (parallelism default)
  Project [NULL::integer, '0'::integer, $3]
    Exchange Hash[3] <- Table u
Fragment 0 (parallelism default)
  Project [$0, NULL::integer, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, '0'::integer]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, _key integer hidden", pk: "[0 1]", tables: 2,
		},
		{
			name: "a comparison with a scalar subquery is a dynamic filter: the rows hashed by their key, the one row broadcast",
			sql:  "SELECT a FROM t WHERE b > (SELECT max(x) FROM u)",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0]
      DynamicFilter ($1)::bigint > right($0) state=102
        Exchange Hash[0] <- Table t
        Exchange Broadcast <- Fragment 0
Fragment 0 (singleton)
  HashAgg group=[] aggs=[max($1)]
    Exchange Single <- Table u`,
			cols: "a integer", pk: "[0]", tables: 3,
		},
		{
			name: "= with a LIMIT 1 subquery is a dynamic filter with both bounds",
			sql:  "SELECT a FROM t WHERE b = (SELECT x FROM u ORDER BY x LIMIT 1)",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0]
      DynamicFilter ($1)::bigint >= right($0) AND ($1)::bigint <= right($0) state=101
        Exchange Hash[0] <- Table t
        Exchange Broadcast <- Fragment 0
Fragment 0 (singleton)
  TopN group=[] order=[$0 NULLS LAST] limit=1 offset=0
    Project [$1, $3]
      Exchange Single <- Table u`,
			cols: "a integer", pk: "[0]", tables: 2,
		},
		{
			name: "HAVING against a scalar subquery (Nexmark q102) filters the groups where they are",
			sql:  "SELECT a, count(*) FROM t GROUP BY a HAVING count(*) >= (SELECT count(*) / count(DISTINCT x) FROM u)",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0]
    DynamicFilter $1 >= right($0) state=103
      Exchange Hash[0] <- Fragment 0
      Exchange Broadcast <- Fragment 1
Fragment 1 (singleton)
  Project [($0 / $1)]
    HashAgg group=[] aggs=[count(*) count(DISTINCT $1)]
      Exchange Single <- Table u
Fragment 0 (parallelism default)
  HashAgg group=[0] aggs=[count(*)]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, count bigint", pk: "[0]", tables: 4,
		},
		{
			name: "a cross join with a one-row relation whose columns are not read, bounded both ways, is a dynamic filter",
			sql:  "SELECT a FROM (SELECT max(x) m FROM u) s, t WHERE b >= m AND b < m + 10",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0]
      DynamicFilter ($1)::bigint >= right($0) AND ($1)::bigint < right(($0 + '10'::bigint)) state=102
        Exchange Hash[0] <- Table t
        Exchange Broadcast <- Fragment 0
Fragment 0 (singleton)
  HashAgg group=[] aggs=[max($1)]
    Exchange Single <- Table u`,
			cols: "a integer", pk: "[0]", tables: 3,
		},
		{
			name: "a cross join whose one-row columns are read stays a join by a constant key",
			sql:  "SELECT a, m FROM t, (SELECT max(x) m FROM u) s WHERE b > m",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 2
Fragment 2 (parallelism default)
  Project [$0, $7, $6]
    HashJoin Inner left=[6] right=[1] cond=(($1)::bigint > $7)
      Exchange Hash[6] <- Fragment 1
      Exchange Hash[1] <- Fragment 0
Fragment 1 (parallelism default)
  Project [$0, $1, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, '0'::integer]
    Exchange Hash[0] <- Table t
Fragment 0 (singleton)
  Project [$0, '0'::integer]
    HashAgg group=[] aggs=[max($1)]
      Exchange Single <- Table u`,
			cols: "a integer, m bigint, _key integer hidden", pk: "[0 2]", tables: 4,
		},
		{
			name: "a scalar subquery in the select list is a left join by a constant key with the one-row aggregation",
			sql:  "SELECT a, (SELECT max(x) FROM u) FROM t",
			graph: `
Fragment 3 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 2
Fragment 2 (parallelism default)
  Project [$0, $7, $6]
    HashJoin Left left=[6] right=[1]
      Exchange Hash[6] <- Fragment 1
      Exchange Hash[1] <- Fragment 0
Fragment 1 (parallelism default)
  Project [$0, NULL::integer, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, '0'::integer]
    Exchange Hash[0] <- Table t
Fragment 0 (singleton)
  Project [$0, '0'::integer]
    HashAgg group=[] aggs=[max($1)]
      Exchange Single <- Table u`,
			cols: "a integer, max bigint, _key integer hidden", pk: "[0 2]", tables: 4,
		},
		{
			name: "a correlated scalar subquery is a left join with its aggregation grouped by the correlation key",
			sql:  "SELECT a FROM t WHERE b > (SELECT max(x) FROM u WHERE u.a = t.a)",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 1]
    Exchange Hash[0 1] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $7]
    Filter (($1)::bigint > $6)
      HashJoin Left left=[0] right=[1]
        Exchange Hash[0] <- Table t
        Exchange Hash[1] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$1, $0]
    HashAgg group=[0] aggs=[max($1)]
      Exchange Hash[0] <- Table u`,
			cols: "a integer, _corr integer hidden", pk: "[0 1]", tables: 4,
		},
		{
			name: "a correlated count reads 0 for an outer row that meets no group",
			sql:  "SELECT a, (SELECT count(*) FROM u WHERE u.a = t.b) AS n FROM t",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 2 3]
    Exchange Hash[0 2 3] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, coalesce($6, '0'::bigint), $7, $1]
    HashJoin Left left=[1] right=[1]
      Exchange Hash[1] <- Table t
      Exchange Hash[1] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$1, $0]
    HashAgg group=[0] aggs=[count(*)]
      Exchange Hash[0] <- Table u`,
			cols: "a integer, n bigint, _corr integer hidden, b integer hidden", pk: "[0 2 3]", tables: 3,
		},
		{
			name: "NOT IN over nullable columns is an anti join filtered by the subquery's row and value counts",
			sql:  "SELECT a FROM t WHERE b NOT IN (SELECT a FROM u)",
			graph: `
Fragment 5 (parallelism default)
  Materialize table=99 pk=[0 1 2]
    Exchange Hash[0 1 2] <- Fragment 4
Fragment 4 (parallelism default)
  Project [$0, $6, $1]
    Filter ((coalesce($7, '0'::bigint) = '0'::bigint) OR ($1 IS NOT NULL AND (coalesce($7, '0'::bigint) = coalesce($8, '0'::bigint))))
      HashJoin Anti left=[1] right=[0]
        Exchange Hash[1] <- Fragment 2
        Exchange Hash[0] <- Fragment 3
Fragment 3 (parallelism default)
  Project [$0, $3]
    Exchange Hash[0] <- Table u
Fragment 2 (parallelism default)
  HashJoin Left left=[6] right=[2]
    Exchange Hash[6] <- Fragment 1
    Exchange Hash[2] <- Fragment 0
Fragment 1 (parallelism default)
  Project [$0, $1, NULL::text, NULL::numeric(10,2), NULL::double precision, NULL::timestamp without time zone, '0'::integer]
    Exchange Hash[0] <- Table t
Fragment 0 (singleton)
  Project [$0, $1, '0'::integer]
    HashAgg group=[] aggs=[count(*) count($0)]
      Project [$0, $3]
        Exchange Single <- Table u`,
			cols: "a integer, _key integer hidden, b integer hidden", pk: "[0 1 2]", tables: 5,
		},
		{
			name: "a LATERAL aggregation is a left join with it grouped by the correlation key",
			sql:  "SELECT t.a, s.m FROM t, LATERAL (SELECT max(x) AS m FROM u WHERE u.a = t.a) s",
			graph: `
Fragment 2 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 1
Fragment 1 (parallelism default)
  Project [$0, $6, $7]
    HashJoin Left left=[0] right=[1]
      Exchange Hash[0] <- Table t
      Exchange Hash[1] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$1, $0]
    HashAgg group=[0] aggs=[max($1)]
      Exchange Hash[0] <- Table u`,
			cols: "a integer, m bigint, _corr integer hidden", pk: "[0 2]", tables: 4,
		},
		{
			name: "a LATERAL set-returning function runs over the left rows",
			sql:  "SELECT a, g FROM t, generate_series(1, t.b) g",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[0 2]
    Exchange Hash[0 2] <- Fragment 0
Fragment 0 (parallelism default)
  ProjectSet generate_series('1'::integer, $1) then Project [$0, $6, $7]
    Exchange Hash[0] <- Table t`,
			cols: "a integer, g integer, _ordinal bigint hidden", pk: "[0 2]",
		},
		{
			name: "plain views are expanded",
			sql:  "SELECT c FROM v",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[1]
    Project [$2, $0]
      Exchange Hash[0] <- Table t`,
			cols: "c text, a integer hidden", pk: "[1]",
		},
		{
			name: "temporal join over an append-only left side: no memo, append-only output",
			sql:  "SELECT e.k, t.c FROM e LEFT JOIN t FOR SYSTEM_TIME AS OF PROCTIME() ON e.v = t.a",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2 3 4] row-blocks
    Exchange Hash[2 3 4] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$0, $6, $3, $4, $1]
    TemporalJoin Left left=[1] right=[0]
      Exchange Hash[1] <- Table e
      Exchange Hash[0] <- Table t`,
			cols: "k bigint, c text, _row_id bigint hidden, a integer hidden, v integer hidden", pk: "[2 3 4]",
			appendOnly: true, tables: 2,
		},
		{
			name: "temporal join over a table with updates keeps a memo",
			sql:  "SELECT u.x, t.c FROM u JOIN t FOR SYSTEM_TIME AS OF PROCTIME() ON u.a = t.b AND u.x > t.a",
			graph: `
Fragment 1 (parallelism default)
  Materialize table=99 pk=[2 3 4]
    Exchange Hash[2 3 4] <- Fragment 0
Fragment 0 (parallelism default)
  Project [$1, $6, $3, $4, $0]
    TemporalJoin Inner left=[0] right=[1] cond=($1 > ($4)::bigint) memo
      Exchange Hash[0] <- Table u
      Exchange Hash[1] <- Table t`,
			cols: "x bigint, c text, _row_id bigint hidden, a integer hidden, a_1 integer hidden", pk: "[2 3 4]", tables: 3,
		},
		{
			name: "a temporal bound OR'ed with a plain condition",
			sql:  "SELECT a FROM t WHERE ts > now() - INTERVAL '1 day' * 7 OR ts IS NULL",
			graph: `
Fragment 0 (parallelism default)
  Materialize table=99 pk=[0]
    Project [$0]
      TemporalFilter (($5)::timestamp with time zone > (now() - ('1 day'::interval * '7'::integer))) OR $5 IS NULL state=100
        Exchange Hash[0] <- Table t`,
			cols: "a integer", pk: "[0]", tables: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, tables, err := planView(t, tc.sql)
			if err != nil {
				t.Fatalf("PlanStream(%q): %v", tc.sql, err)
			}
			if got, want := strings.Join(sp.Graph.Explain(), "\n"), strings.TrimPrefix(tc.graph, "\n"); got != want {
				t.Errorf("graph of %q:\n%s\nwant:\n%s", tc.sql, got, want)
			}
			if got := columns(sp.Columns); got != tc.cols {
				t.Errorf("columns of %q: %s, want %s", tc.sql, got, tc.cols)
			}
			if got := fmt.Sprint(sp.PK); got != tc.pk {
				t.Errorf("pk of %q: %s, want %s", tc.sql, got, tc.pk)
			}
			if sp.AppendOnly != tc.appendOnly {
				t.Errorf("append-only of %q: %v, want %v", tc.sql, sp.AppendOnly, tc.appendOnly)
			}
			if tables != tc.tables {
				t.Errorf("state tables of %q: %d, want %d", tc.sql, tables, tc.tables)
			}
			checkGraph(t, sp)
		})
	}
}

// checkGraph checks what the runtime relies on: fragment ids in order,
// inputs before their readers, output types of the last fragment equal to
// the view's columns, and the job's key group count.
func checkGraph(t *testing.T, sp *planner.StreamPlan) {
	t.Helper()
	g := sp.Graph
	if g.VNodeCount != 16 {
		t.Errorf("VNodeCount = %d, want 16", g.VNodeCount)
	}
	for i, f := range g.Fragments {
		if f.ID != i {
			t.Errorf("fragment %d has id %d", i, f.ID)
		}
		for _, in := range f.Inputs {
			if in.Fragment >= i || (in.Fragment < 0) != (in.Table != nil) {
				t.Errorf("fragment %d has input %+v", i, in)
			}
			if in.Fragment >= 0 && len(g.Fragments[in.Fragment].OutTypes) == 0 {
				t.Errorf("fragment %d has no output types", in.Fragment)
			}
		}
	}
	last := g.Fragments[len(g.Fragments)-1].OutTypes
	if len(last) != len(sp.Columns) {
		t.Fatalf("last fragment emits %d columns, the view has %d", len(last), len(sp.Columns))
	}
	for i, c := range sp.Columns {
		if last[i] != c.T {
			t.Errorf("column %d: fragment emits %s, view has %s", i, last[i], c.T)
		}
	}
}

func TestPlanStreamUnsupported(t *testing.T) {
	tests := []struct {
		sql    string
		params []types.T
		msg    string
	}{
		{sql: "SELECT a FROM t WHERE b > (SELECT x FROM u WHERE u.a = t.a)",
			msg: "correlated subqueries other than of an aggregate without GROUP BY (or of its projections) as a value in materialized views are not supported yet"},
		{sql: "SELECT a FROM t WHERE b > (SELECT max(x) FROM u WHERE u.a < t.a)", msg: "correlated subqueries other than by conditions of their WHERE in materialized views are not supported yet"},
		{sql: "SELECT a FROM t WHERE EXISTS (SELECT count(*) FROM u WHERE u.a = t.a)", msg: "correlated subqueries other than by conditions of their WHERE in materialized views are not supported yet"},
		{sql: "SELECT a FROM t WHERE b NOT IN (SELECT a FROM u WHERE u.x < t.a)", msg: "correlated subqueries other than by conditions of their WHERE in materialized views are not supported yet"},
		{sql: "SELECT a, (SELECT x FROM u) FROM t", msg: "scalar subqueries that may return more than one row in materialized views are not supported yet"},
		{sql: "SELECT a FROM t WHERE b = 1 OR EXISTS (SELECT 1 FROM u)",
			msg: "EXISTS, IN, ANY, ALL and ARRAY subqueries other than as conditions of WHERE, alone or under NOT, ANDed in materialized views are not supported yet"},
		{sql: "SELECT a FROM t WHERE b IN (SELECT max(x + t.a) FROM u)", msg: "correlated subqueries other than by conditions of their WHERE in materialized views are not supported yet"},
		{sql: "SELECT a FROM t WHERE b > ALL (SELECT a FROM u)", msg: "EXISTS, IN, ANY, ALL and ARRAY subqueries other than as conditions of WHERE, alone or under NOT, ANDed in materialized views are not supported yet"},
		{sql: "SELECT a, random() FROM t", msg: "function random() is not supported here in materialized views"},
		{sql: "SELECT a FROM t WHERE random() < 0.5", msg: "function random() is not supported here in materialized views"},
		{sql: "SELECT a, now() FROM t", msg: "function now() is not supported here in materialized views"},
		{sql: "SELECT a FROM t WHERE ts > now() OR ts < now() - INTERVAL '1' HOUR", msg: "function now() is not supported here in materialized views"},
		{sql: "SELECT a FROM t WHERE ts > now() - (now() - ts)", msg: "function now() is not supported here in materialized views"},
		{sql: "SELECT a FROM t WHERE b = $1", params: []types.T{types.TInt4}, msg: "materialized views may not be defined using bound parameters"},
		{sql: "SELECT a FROM t ORDER BY b OFFSET 1 FETCH FIRST 2 ROWS WITH TIES", msg: "OFFSET with FETCH ... WITH TIES in materialized views are not supported yet"},
		{sql: "SELECT a FROM (SELECT a, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t) s WHERE rn <> 2",
			msg: "this condition on a row number cannot be maintained by a materialized view yet"},
		{sql: "SELECT a FROM (SELECT a, b, row_number() OVER (PARTITION BY b ORDER BY c) AS rn FROM t) s WHERE rn <= b",
			msg: "this condition on a row number cannot be maintained by a materialized view yet"},
		{sql: "SELECT a, g FROM t LEFT JOIN generate_series(1, t.b) g ON true",
			msg: "LATERAL subqueries that read the FROM items to their left other than by conditions of their WHERE in materialized views are not supported yet"},
		{sql: "SELECT t.a, s.x FROM t, LATERAL (SELECT x + t.b AS x FROM u WHERE u.a = t.a) s",
			msg: "LATERAL subqueries that read the FROM items to their left other than by conditions of their WHERE in materialized views are not supported yet"},
		{sql: "SELECT generate_series(1, (SELECT max(b) FROM t))", msg: "subqueries in materialized views are not supported yet"},
		{sql: "SELECT sum((SELECT max(x) FROM u)) FROM t", msg: "subqueries in materialized views are not supported yet"},
	}
	for _, tc := range tests {
		_, _, err := planView(t, tc.sql, tc.params...)
		var pe *pgerror.Error
		if !errors.As(err, &pe) || pe.Code != pgerror.CodeFeatureNotSupported || pe.Message != tc.msg {
			t.Errorf("PlanStream(%q) = %v, want 0A000 %q", tc.sql, err, tc.msg)
		}
	}
}

func TestPlanStreamLimitClauses(t *testing.T) {
	n := mustBind(t, "SELECT a FROM t")
	limit := func(count, offset int64) *planner.Limit {
		return &planner.Limit{Input: n, Count: expr.NewConst(types.NewInt(count), types.TInt8),
			Offset: expr.NewConst(types.NewInt(offset), types.TInt8)}
	}
	for _, tc := range []struct {
		plan *planner.Limit
		want string // the Top-N's explain line, or the error's SQLSTATE
	}{
		{limit(2, 1), "TopN group=[] order=[$0 NULLS LAST] limit=2 offset=1"},
		{&planner.Limit{Input: n, Count: expr.NewConst(types.Null, types.TInt8)}, ""},
		{limit(-1, 0), "2201W"},
		{limit(-1, -1), "2201X"},
	} {
		sp, err := planner.PlanStream(tc.plan, viewID, 16, false, func() uint32 { return firstState })
		got := ""
		var pe *pgerror.Error
		switch {
		case errors.As(err, &pe):
			got = pe.Code
		case err != nil:
			t.Fatalf("PlanStream(%s): %v", tc.want, err)
		default:
			for _, l := range sp.Graph.Explain() {
				if l = strings.TrimSpace(l); strings.HasPrefix(l, "TopN") {
					got = l
				}
			}
		}
		if got != tc.want {
			t.Errorf("PlanStream(%v, %v) = %q, want %q", tc.plan.Count, tc.plan.Offset, got, tc.want)
		}
	}
}

// TestPlanStreamSource plans a view over a source: an append-only stream
// keyed by the hidden row id, read without backfill; a batch read of the
// source is refused.
func TestPlanStreamSource(t *testing.T) {
	src := &meta.Table{ID: 7, Name: "events", Kind: meta.KindSource, AppendOnly: true, PK: []int{1},
		Columns: []meta.Column{{Name: "a", Type: types.TInt4}, {Name: meta.RowIDColumn, Type: types.TInt8, Hidden: true}}}
	scan := &planner.Scan{Table: src}
	sp, err := planner.PlanStream(scan, viewID, 16, false, func() uint32 { return firstState })
	if err != nil {
		t.Fatal(err)
	}
	explain := strings.Join(sp.Graph.Explain(), "\n")
	if !sp.AppendOnly || !strings.Contains(explain, "<- Source events") || !slices.Equal(sp.PK, []int{1}) {
		t.Errorf("plan over a source: append-only %v, pk %v:\n%s", sp.AppendOnly, sp.PK, explain)
	}
	in := sp.Graph.Fragments[0].Inputs[0]
	if !in.Table.Source {
		t.Errorf("input %+v is not marked as a source", in.Table)
	}
	var pe *pgerror.Error
	if err := planner.CheckBatch(scan); !errors.As(err, &pe) || pe.Code != pgerror.CodeFeatureNotSupported {
		t.Errorf("CheckBatch over a source = %v, want 0A000", err)
	}
	src.Kind = meta.KindTable
	if err := planner.CheckBatch(scan); err != nil {
		t.Errorf("CheckBatch over a table = %v", err)
	}
}

// TestJoinStoresOnlyReadColumns checks which columns of each side a join
// stores as NULL: those neither its condition nor anything above reads,
// apart from the stream key.
func TestJoinStoresOnlyReadColumns(t *testing.T) {
	tests := []struct {
		sql         string
		left, right []int
	}{
		// e: k, v, ..., _row_id (3); t: a, b, c, ... (_row_id 5).
		{"SELECT e1.k, e2.v FROM e e1 JOIN e e2 ON e1.k = e2.k", []int{1, 2}, []int{2}},
		{"SELECT e1.k FROM e e1 JOIN e e2 ON e1.k = e2.k AND e1.v < e2.v", []int{2}, []int{2}},
		// The root reads every column of a join it materializes.
		{"SELECT * FROM e e1 JOIN e e2 ON e1.k = e2.k", nil, nil},
	}
	for _, tt := range tests {
		sp, _, err := planView(t, tt.sql)
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		var join *dataflow.HashJoinSpec
		for _, f := range sp.Graph.Fragments {
			for _, op := range f.Chain {
				if j, ok := op.(*dataflow.HashJoinSpec); ok {
					join = j
				}
			}
		}
		if join == nil {
			t.Fatalf("%s: no join in the plan", tt.sql)
		}
		if !slices.Equal(join.LeftUnread, tt.left) || !slices.Equal(join.RightUnread, tt.right) {
			t.Errorf("%s: unread left %v right %v, want %v %v", tt.sql, join.LeftUnread, join.RightUnread, tt.left, tt.right)
		}
	}
}
