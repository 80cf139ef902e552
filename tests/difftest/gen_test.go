package difftest

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// testGenerator runs what the generator makes for some seeds on
// PostgreSQL alone: tables, rows, queries, views over tables and views,
// and DML. PostgreSQL must accept every statement: it may fail only on
// data (class 22: an overflow, a bad cast), on a scalar subquery's second
// row (21000) or on a FULL JOIN it cannot plan (0A000). Most queries must
// return rows.
func testGenerator(t *testing.T, dsn string) {
	ctx := context.Background()
	pg := &conn{name: "PostgreSQL", dsn: dsn, timeout: 20 * time.Second}
	if err := pg.open(ctx); err != nil {
		t.Fatal(err)
	}
	defer pg.close()
	run := func(seed uint64, sql string) Outcome {
		o := pg.exec(ctx, sql)
		if o.Lost != "" {
			t.Fatalf("seed %d: %s: %s", seed, sql, o.Lost)
		}
		if o.Err != nil && !strings.HasPrefix(o.Err.Code, "22") && o.Err.Code != "21000" && o.Err.Code != "0A000" {
			t.Errorf("seed %d: PostgreSQL refuses a generated statement: %s: %s", seed, o.Err.Code, o.Err.Message)
			t.Logf("statement: %s", sql)
		}
		return o
	}
	queries, answered, errors := 0, 0, map[string]int{}
	for seed := uint64(1000); seed < 1008; seed++ {
		g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed))}
		tables := g.schema()
		for _, tb := range tables {
			pg.exec(ctx, "DROP TABLE IF EXISTS "+tb.Name+" CASCADE")
			run(seed, tb.DDL())
			if len(tb.Rows) > 0 {
				run(seed, tb.insertSQL(tb.Rows))
			}
			g.rels = append(g.rels, tb.relation())
		}
		for range 30 {
			queries++
			if o := run(seed, g.topQuery().SQL()); o.Err == nil {
				answered++
			} else {
				errors[o.Err.Code+" "+messageShape(o.Err.Message)]++
			}
		}
		g.view = true
		for i := range 6 {
			v := &viewDef{name: "gv" + string(rune('0'+i)), q: g.topQuery()}
			pg.exec(ctx, "DROP VIEW IF EXISTS "+v.name+" CASCADE")
			if o := run(seed, v.postgresDDL()); o.Err != nil {
				continue
			}
			o := run(seed, "SELECT * FROM "+v.name)
			if o.Err != nil {
				continue
			}
			rel := &relation{name: v.name}
			for j, oid := range o.OIDs {
				typ, _ := typeOfOID(oid)
				rel.cols = append(rel.cols, column{name: o.Names[j], t: typ})
			}
			g.rels = append(g.rels, rel)
			run(seed, g.dml(tables).SQL())
		}
	}
	t.Logf("%d of %d queries answered; PostgreSQL's errors: %v", answered, queries, errors)
	if answered*2 < queries {
		t.Errorf("only %d of %d generated queries return rows on PostgreSQL", answered, queries)
	}
}

// TestGeneratorDeterministic checks that a seed always makes the same SQL.
func TestGeneratorDeterministic(t *testing.T) {
	make := func() string {
		g := &gen{r: rand.New(rand.NewPCG(7, 0x5eed))}
		var b strings.Builder
		for _, tb := range g.schema() {
			b.WriteString(tb.DDL() + tb.insertSQL(tb.Rows))
			g.rels = append(g.rels, tb.relation())
		}
		for range 20 {
			b.WriteString(g.topQuery().SQL())
		}
		return b.String()
	}
	if a, b := make(), make(); a != b {
		t.Fatal("one seed made two different scripts")
	}
}

// TestGeneratorJoinsGlobalAggregates checks that views over views join
// global aggregates, whose one row may be all NULL, with FULL JOIN: a
// view that is a global aggregate joined with itself, and derived global
// aggregates joined with each other.
func TestGeneratorJoinsGlobalAggregates(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(1, 2)), view: true, rels: []*relation{
		{name: "t0", cols: []column{{name: "a", t: Int4}, {name: "b", t: Int4}}},
		{name: "mv", cols: []column{{name: "ma", t: Int4}, {name: "mb", t: Int4}}},
	}}
	global := func(f *From) bool {
		if f.Sub == nil || f.Sub.Sel == nil || f.Sub.Sel.GroupBy != nil {
			return false
		}
		agg := false
		for _, it := range f.Sub.Sel.Items {
			walkExpr(it.E, func(e *Expr) { agg = agg || e.Agg })
		}
		return agg
	}
	selfJoins, aggJoins := 0, 0
	for range 3000 {
		g.topQuery().walk(nil, nil, func(f *From) {
			if f.Join != "FULL JOIN" {
				return
			}
			if f.L.Rel == "mv" && f.R.Rel == "mv" {
				selfJoins++
			}
			if global(f.L) && global(f.R) {
				aggJoins++
			}
		}, nil)
	}
	if selfJoins == 0 || aggJoins == 0 {
		t.Errorf("in 3000 view queries, %d FULL JOINs of mv with itself and %d of two global aggregates", selfJoins, aggJoins)
	}
	t.Logf("%d FULL JOINs of mv with itself, %d of two global aggregates", selfJoins, aggJoins)
}
