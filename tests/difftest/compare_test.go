package difftest

import (
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func vals(s ...string) []Value {
	out := make([]Value, len(s))
	for i, v := range s {
		if v == "NULL" {
			out[i] = Value{Null: true}
		} else {
			out[i] = Value{S: v}
		}
	}
	return out
}

func TestRowsDiffNormalizes(t *testing.T) {
	for _, c := range []struct {
		name     string
		pg, sdb  uint32
		a, b     string
		want     bool // equal
		orderedB string
	}{
		{"numeric scale", oidNumeric, oidNumeric, "1.50", "1.5", true, ""},
		{"numeric zero", oidNumeric, oidNumeric, "-0.000", "0", true, ""},
		{"numeric value", oidNumeric, oidNumeric, "0.3333333333333333", "0.33333333333333333333", false, ""},
		{"int and numeric", oidInt8, oidNumeric, "42", "42.0", true, ""},
		{"float tolerance", oidFloat8, oidFloat8, "0.30000000000000004", "0.3", true, ""},
		{"float differs", oidFloat8, oidFloat8, "0.3001", "0.3", false, ""},
		{"float vs numeric", oidFloat8, oidNumeric, "0.3333333333333333", "0.33333333333333333333", true, ""},
		{"float minus zero", oidFloat8, oidFloat8, "-0", "0", true, ""},
		{"float specials", oidFloat8, oidFloat8, "NaN", "NaN", true, ""},
		{"float infinities", oidFloat8, oidFloat8, "Infinity", "-Infinity", false, ""},
		{"interval day", oidInterval, oidInterval, "1 day", "24:00:00", true, ""},
		{"interval month", oidInterval, oidInterval, "1 mon -1 days", "29 days", true, ""},
		{"interval mixed", oidInterval, oidInterval, "1 year 2 mons -3 days +04:05:06.5", "14 mons -2 days -19:54:53.5", true, ""},
		{"interval differs", oidInterval, oidInterval, "1 day", "1 day 00:00:01", false, ""},
		{"text exact", 25, 25, "a", "a ", false, ""},
		{"null vs text", 25, 25, "NULL", "'NULL'", false, ""},
	} {
		got := rowsDiff([]uint32{c.pg}, []uint32{c.sdb}, [][]Value{vals(c.a)}, [][]Value{vals(c.b)}, false)
		if (got == "") != c.want {
			t.Errorf("%s: %q vs %q: diff %q, want equal=%v", c.name, c.a, c.b, got, c.want)
		}
	}
}

func TestRowsDiffOrder(t *testing.T) {
	oids := []uint32{oidInt4, 25}
	a := [][]Value{vals("1", "x"), vals("2", "NULL"), vals("2", "NULL")}
	b := [][]Value{vals("2", "NULL"), vals("1", "x"), vals("2", "NULL")}
	if d := rowsDiff(oids, oids, a, b, false); d != "" {
		t.Errorf("multisets: %s", d)
	}
	if d := rowsDiff(oids, oids, a, b, true); d != "same rows in another order" {
		t.Errorf("ordered: %q", d)
	}
	if d := rowsDiff(oids, oids, a, b[:2], false); !strings.Contains(d, "only in PostgreSQL: 1 row") {
		t.Errorf("missing row: %q", d)
	}
	if d := rowsDiff(oids, oids[:1], nil, nil, false); d == "" {
		t.Error("column counts differ, no difference found")
	}
}

func TestIntervalValue(t *testing.T) {
	for s, ok := range map[string]bool{"00:00:00": true, "-178000000 years": true, "2147483647 days": true,
		"-2562047788:00:54.775808": true, "1 fortnight": false, "1": false} {
		if _, got := intervalValue(s); got != ok {
			t.Errorf("intervalValue(%q) ok=%v, want %v", s, got, ok)
		}
	}
}

func pgErr(code string) *pgconn.PgError { return &pgconn.PgError{Code: code, Message: "m"} }

func TestCompareClassifies(t *testing.T) {
	rows := Outcome{OIDs: []uint32{oidInt4}, Rows: [][]Value{vals("1")}, Tag: "SELECT 1"}
	other := Outcome{OIDs: []uint32{oidInt4}, Rows: [][]Value{vals("2")}, Tag: "SELECT 1"}
	wider := Outcome{OIDs: []uint32{oidInt8}, Rows: [][]Value{vals("1")}, Tag: "SELECT 1"}
	for _, c := range []struct {
		name    string
		pg, sdb Outcome
		view    bool
		want    Kind
	}{
		{"same rows", rows, rows, false, ""},
		{"rows", rows, other, false, KindRows},
		{"view rows", rows, other, true, KindViewRows},
		{"type", rows, wider, false, KindType},
		{"error vs rows", Outcome{Err: pgErr("22003")}, rows, false, KindErrorVsRows},
		{"rows vs error", rows, Outcome{Err: pgErr("42883")}, false, KindErrorVsRows},
		{"same error", Outcome{Err: pgErr("22003")}, Outcome{Err: pgErr("22003")}, false, ""},
		{"sqlstate", Outcome{Err: pgErr("22003")}, Outcome{Err: pgErr("22008")}, false, KindSQLState},
		{"error class", Outcome{Err: pgErr("22003")}, Outcome{Err: pgErr("42601")}, false, KindErrorClass},
		{"internal error", rows, Outcome{Err: pgErr("XX000")}, false, KindCrash},
		{"lost", rows, Outcome{Lost: "EOF"}, false, KindCrash},
		{"timeout", rows, Outcome{Lost: "deadline", Timeout: true}, false, KindTimeout},
		{"both time out", Outcome{Lost: "deadline", Timeout: true}, Outcome{Lost: "deadline", Timeout: true}, false, ""},
	} {
		d := compare(c.pg, c.sdb, false, c.view)
		var got Kind
		if d != nil {
			got = d.kind
		}
		if got != c.want {
			t.Errorf("%s: kind %q, want %q", c.name, got, c.want)
		}
	}
}

func TestKnownDifferences(t *testing.T) {
	known, err := ParseKnown(knownDifferences)
	if err != nil {
		t.Fatalf("the checked-in list: %v", err)
	}
	if len(known) == 0 {
		t.Fatal("the checked-in list is empty")
	}
	if _, err := ParseKnown("rows pg=rows sdb=rows | *\n"); err == nil {
		t.Error("an entry without a reason was accepted")
	}
	list, err := ParseKnown("# reason\n* sdb=0A000 «X is not supported» | *\n")
	if err != nil {
		t.Fatal(err)
	}
	sig := signaturePrefix(&diff{kind: KindErrorVsRows, sdb: Outcome{Err: &pgconn.PgError{Code: "0A000", Message: "X is not supported"}}}) + " | query: SELECT 1"
	if k := match(list, sig); k == nil || k.Reason != "reason" {
		t.Errorf("%q did not match", sig)
	}
	if k := match(list, strings.Replace(sig, "X is", "Y is", 1)); k != nil {
		t.Error("another message matched")
	}
}

func TestMessageShape(t *testing.T) {
	a := messageShape(`invalid input syntax for type integer: "abc"`)
	b := messageShape(`invalid input syntax for type integer: "x y"`)
	c := messageShape("index out of range [5] with length 2")
	if a != b || c != "«index out of range [N] with length N»" {
		t.Errorf("shapes %q %q %q", a, b, c)
	}
}

func TestParseSeeds(t *testing.T) {
	got, err := parseSeeds("1-3,7")
	if err != nil || len(got) != 4 || got[3] != 7 {
		t.Errorf("parseSeeds: %v %v", got, err)
	}
	for _, bad := range []string{"", "3-1", "x"} {
		if _, err := parseSeeds(bad); err == nil {
			t.Errorf("parseSeeds(%q) accepted", bad)
		}
	}
}

// query builds SELECT items FROM rel AS alias.
func query(rel, alias string, items ...*Expr) *Query {
	q := &Query{Sel: &Select{From: &From{Rel: rel, Alias: alias}}, Limit: -1, Offset: -1}
	for i, e := range items {
		q.Sel.Items = append(q.Sel.Items, Item{E: e, Alias: "x" + string(rune('0'+i))})
	}
	return q
}

func TestShapeAndOrder(t *testing.T) {
	q := query("t0", "r1", mk(Int4, "+", "($ + $)", leaf(Int4, colLeaf, "r1.c0"), leaf(Int4, litLeaf, "5")), leaf(Text, colLeaf, "r1.c1"))
	if got, want := q.SQL(), "SELECT (r1.c0 + 5) AS x0, r1.c1 AS x1 FROM t0 AS r1"; got != want {
		t.Errorf("SQL %q, want %q", got, want)
	}
	if got, want := q.Shape(), "SELECT (c:int4 + l:int4), c:text FROM T"; got != want {
		t.Errorf("Shape %q, want %q", got, want)
	}
	q.OrderBy = []Order{{Ordinal: 2}}
	if q.totalOrder() {
		t.Error("ORDER BY 2 of 2 columns is total")
	}
	q.OrderBy = append(q.OrderBy, Order{Ordinal: 1, Desc: true})
	if !q.totalOrder() {
		t.Error("ORDER BY 2, 1 DESC is not total")
	}
}

func TestPrunedAndProbes(t *testing.T) {
	// SELECT s2.x0 FROM (SELECT r1.c0 AS x0, (r1.c1 / 0) AS x1 FROM t0 AS r1) AS s2 CROSS JOIN t1 AS r3
	inner := query("t0", "r1", leaf(Int4, colLeaf, "r1.c0"), mk(Int4, "/", "($ / 0)", leaf(Int4, colLeaf, "r1.c1")))
	q := &Query{Sel: &Select{Items: []Item{{E: leaf(Int4, colLeaf, "s2.x0")}},
		From: &From{Join: "CROSS JOIN", L: &From{Sub: inner, Alias: "s2"}, R: &From{Rel: "t1", Alias: "r3"}}}, Limit: -1, Offset: -1}
	p := pruned(q)
	if p == nil || !strings.Contains(p.SQL(), "CAST(NULL AS int4) AS x1") || strings.Contains(p.SQL(), "/ 0") {
		t.Errorf("pruned: %v", p)
	}
	if !strings.Contains(q.SQL(), "/ 0") {
		t.Error("pruned changed its argument")
	}
	var sqls []string
	for _, pq := range probes(check{query: q}, "22012", true) {
		sqls = append(sqls, pq.SQL())
	}
	if len(sqls) != 1 || sqls[0] != "SELECT (r1.c1 / 0) FROM t0 AS r1" {
		t.Errorf("probes: %q", sqls)
	}
}

func TestSame(t *testing.T) {
	rows := Outcome{OIDs: []uint32{oidInt4}}
	syntax := Outcome{Err: pgErr("42601")}
	data := Outcome{Err: pgErr("22003")}
	want := &diff{kind: KindErrorClass, pg: data, sdb: syntax}
	if !same(want, &diff{kind: KindErrorVsRows, pg: rows, sdb: syntax}) {
		t.Error("a refusal where PostgreSQL then answers is not the same")
	}
	if same(&diff{kind: KindErrorVsRows, pg: rows, sdb: syntax}, &diff{kind: KindErrorClass, pg: data, sdb: syntax}) {
		t.Error("a refusal of a valid query became one of an invalid one")
	}
	if same(&diff{kind: KindErrorVsRows, pg: rows, sdb: data}, &diff{kind: KindErrorVsRows, pg: rows, sdb: data, tag: tagUnused}) {
		t.Error("a tagged difference is the same as an untagged one")
	}
}

// TestUnchanged checks which DML outcomes leave the table as it was, so
// that explain may evaluate subexpressions over it.
func TestUnchanged(t *testing.T) {
	for tag, want := range map[string]bool{"DELETE 0": true, "UPDATE 0": true, "INSERT 0 0": true, "DELETE 1": false, "UPDATE 10": false, "INSERT 0 3": false} {
		if got := unchanged(Outcome{Tag: tag}); got != want {
			t.Errorf("unchanged(%q) = %v, want %v", tag, got, want)
		}
	}
	if unchanged(Outcome{Tag: "DELETE 0", Lost: "timeout"}) {
		t.Error("a lost statement counts as unchanged")
	}
}

// TestInputsOuterJoin checks that an expression reading a relation under
// an outer join is probed over that relation and over the whole FROM,
// whose NULL-extended rows it sees, and one reading plain relations over
// them alone.
func TestInputsOuterJoin(t *testing.T) {
	r1, r2, r3 := &From{Rel: "t0", Alias: "r1"}, &From{Rel: "t1", Alias: "r2"}, &From{Rel: "t2", Alias: "r3"}
	left := &From{Join: "LEFT JOIN", L: r1, R: r2}
	from := &From{Join: "CROSS JOIN", L: left, R: r3}
	if got, ok := inputs(leaf(Int4, colLeaf, "r2.c1"), from); !ok || len(got) != 2 || got[0] != r2 || got[1] != from {
		t.Errorf("over an outer join's side: %v, %v", got, ok)
	}
	if got, ok := inputs(leaf(Int4, colLeaf, "r3.c1"), from); !ok || len(got) != 1 || got[0] != r3 {
		t.Errorf("over a plain relation: %v, %v", got, ok)
	}
}

// TestCaseFolded checks the CASEs PostgreSQL's planner settles.
func TestCaseFolded(t *testing.T) {
	lit := func(s string) *Expr { return leaf(Bool, litLeaf, s) }
	one, two := leaf(Int4, litLeaf, "1"), leaf(Int4, litLeaf, "2")
	col := leaf(Bool, colLeaf, "r1.c0")
	case2 := func(c1, r1, c2, r2, els *Expr) *Expr {
		return mk(Int4, "case", "CASE WHEN $ THEN $ WHEN $ THEN $ ELSE $ END", c1, r1, c2, r2, els)
	}
	sum := func(a *Expr) *Expr { return mk(Int4, "+", "($ + $)", a, one) }
	for _, c := range []struct {
		e    *Expr
		want string
	}{
		{sum(case2(lit("true"), two, col, one, one)), "(2 + 1)"},
		{sum(case2(lit("false"), two, nullOf(Bool), one, two)), "(2 + 1)"},
		{sum(case2(lit("false"), two, lit("true"), one, two)), "(1 + 1)"},
		{sum(mk(Int4, "case", "CASE WHEN $ THEN $ END", lit("false"), two)), "(CAST(NULL AS int4) + 1)"},
		{sum(case2(col, two, lit("true"), one, two)), ""},
	} {
		f, changed := caseFolded(c.e)
		got := "" // not folded
		if changed {
			got = f.SQL()
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.e.SQL(), got, c.want)
		}
	}
}

// TestPulledUp checks that a constant column of a derived table is seen
// through, as PostgreSQL pulls the table up or pushes conditions into it,
// and one of a table with a LIMIT or under an outer join is not.
func TestPulledUp(t *testing.T) {
	sub := func(limited bool) *Query {
		q := query("t0", "r1", leaf(Bool, litLeaf, "false"))
		q.Sel.Items[0].Alias = "x5"
		if limited {
			q.Limit = 1
		}
		return q
	}
	e := mk(Int4, "%", "($ % $)", mk(Int4, "cast int4", "($)::int4", leaf(Bool, colLeaf, "s6.x5")), leaf(Int4, litLeaf, "0"))
	if f, ok := pulledUp(e, &From{Sub: sub(false), Alias: "s6"}); !ok || f.SQL() != "((false)::int4 % 0)" {
		t.Errorf("simple: %v %v", f.SQL(), ok)
	}
	if _, ok := pulledUp(e, &From{Sub: sub(true), Alias: "s6"}); ok {
		t.Error("with a LIMIT: pulled up")
	}
	outer := &From{Join: "LEFT JOIN", L: &From{Rel: "t1", Alias: "r2"}, R: &From{Sub: sub(false), Alias: "s6"}}
	if _, ok := pulledUp(e, outer); ok {
		t.Error("under an outer join: pulled up")
	}
}

// TestExpandKeys checks that a column standing for a grouping expression
// is probed as that expression.
func TestExpandKeys(t *testing.T) {
	key := mk(Numeric, "neg", "(- $)", leaf(Numeric, litLeaf, "1.5"))
	e := mk(Int8, "cast numeric to int8", "CAST($ AS int8)", leaf(Numeric, colLeaf, key.SQL()))
	if got := expandKeys(e, []*Expr{key, leaf(Int4, colLeaf, "r1.c0")}); got.SQL() != "CAST((- 1.5) AS int8)" || holds(got, readsRows) {
		t.Errorf("expanded: %s", got.SQL())
	}
	if got := expandKeys(e, nil); got != e {
		t.Error("changed without keys")
	}
}

// TestInputsOuterColumns checks that an expression of a subquery reading
// a column of the enclosing query is probed over both relations.
func TestInputsOuterColumns(t *testing.T) {
	r2, r4 := &From{Rel: "t0", Alias: "r2"}, &From{Rel: "t1", Alias: "r4"}
	e := mk(Date, "+", "($ + $)", leaf(Date, colLeaf, "r2.c2"), leaf(Int4, colLeaf, "r4.c0"))
	got, ok := inputs(e, r4, r2)
	if !ok || len(got) != 1 || got[0].Join != "CROSS JOIN" || got[0].L != r2 || got[0].R != r4 {
		t.Errorf("inputs: %v %v", got, ok)
	}
	var sqls []string
	sub := &Query{Sel: &Select{Items: []Item{{E: e, Alias: "x0"}}, From: r4}, Limit: -1, Offset: -1}
	q := &Query{Sel: &Select{Items: []Item{{E: subquery(Date, "scalar subquery", "(", sub), Alias: "x1"}}, From: r2}, Limit: -1, Offset: -1}
	for _, p := range probes(check{query: q}, "22008", true) {
		sqls = append(sqls, p.SQL())
	}
	if !slices.Contains(sqls, "SELECT (r2.c2 + r4.c0) FROM (t0 AS r2 CROSS JOIN t1 AS r4)") {
		t.Errorf("probes: %q", sqls)
	}
}

// TestPushedDown checks that an expression over a set operation's column
// is probed in each arm, over what the arm computes.
func TestPushedDown(t *testing.T) {
	arm := func(rel, alias string, e *Expr) *Query {
		q := query(rel, alias, e)
		q.Sel.Items[0].Alias = "c3"
		return q
	}
	setop := &Query{SetOp: "INTERSECT", Left: arm("t2", "r2", nullOf(Timestamp)), Right: arm("t0", "r5", mk(Timestamp, "cast", "CAST($ AS timestamp)", leaf(Date, colLeaf, "r5.c6"))), Limit: -1, Offset: -1}
	e := mk(Bool, "cast bool", "($)::bool", mk(Text, "cast text", "CAST($ AS text)", leaf(Timestamp, colLeaf, "s6.c3")))
	var sqls []string
	for _, p := range pushedDown(e, &From{Sub: setop, Alias: "s6"}) {
		sqls = append(sqls, p.SQL())
	}
	if !slices.Contains(sqls, "SELECT (CAST(CAST(r5.c6 AS timestamp) AS text))::bool FROM t0 AS r5") {
		t.Errorf("probes: %q", sqls)
	}
	setop.Limit = 1
	if got := pushedDown(e, &From{Sub: setop, Alias: "s6"}); got != nil {
		t.Errorf("past a LIMIT: %v", got)
	}
}
