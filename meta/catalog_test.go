package meta

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// checkInvariants verifies that the catalog's maps agree, that Tables is
// sorted, that no object depends on a missing one, and that the catalog
// survives a JSON round trip.
func checkInvariants(t *rapid.T, c *Catalog) {
	nIndexes := 0
	for id, tb := range c.byID {
		if tb.ID != id || id >= c.nextID || c.byName[qualName{tb.Schema, tb.Name}] != tb {
			t.Fatalf("table %d: maps disagree", id)
		}
		for _, idx := range tb.Indexes {
			if c.indexes[qualName{tb.Schema, idx.Name}] != tb {
				t.Fatalf("index %s: maps disagree", idx.Name)
			}
		}
		nIndexes += len(tb.Indexes)
		for _, dep := range tb.DependsOn {
			if _, ok := c.byID[dep]; !ok {
				t.Fatalf("%s depends on missing %d", tb.Name, dep)
			}
		}
		if !c.HasSchema(tb.Schema) {
			t.Fatalf("%s is in missing schema %s", tb.Name, tb.Schema)
		}
	}
	if len(c.byName) != len(c.byID) || len(c.indexes) != nIndexes || len(c.ordered) != len(c.byID) {
		t.Fatalf("map sizes differ: %d %d %d %d", len(c.byName), len(c.byID), len(c.indexes), len(c.ordered))
	}
	if !slices.IsSortedFunc(c.ordered, func(a, b *Table) int { return strings.Compare(a.Schema+"."+a.Name, b.Schema+"."+b.Name) }) {
		t.Fatalf("Tables not sorted: %v", names(c.ordered))
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Catalog
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(&back)
	if !bytes.Equal(data, again) {
		t.Fatalf("JSON round trip differs:\n%s\n%s", data, again)
	}
}

// TestCatalogProperties applies random DDL over a few names in two
// schemas and checks the invariants after every step.
func TestCatalogProperties(t *testing.T) {
	nameGen := rapid.SampledFrom([]string{"a", "b", "c", "d"})
	schemaGen := rapid.SampledFrom([]string{DefaultSchema, "s"})
	kindGen := rapid.SampledFrom([]ObjectKind{KindTable, KindView, KindMaterializedView, KindSource})
	rapid.Check(t, func(t *rapid.T) {
		c := newCatalog().seal()
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			name := nameGen.Draw(t, "name")
			// Failures are expected; the catalog must stay consistent either way.
			switch rapid.IntRange(0, 7).Draw(t, "op") {
			case 0:
				tb := tbl(name, kindGen.Draw(t, "kind"))
				tb.Schema = schemaGen.Draw(t, "schema")
				for _, dep := range c.Tables() {
					if rapid.Bool().Draw(t, "dep") {
						tb.DependsOn = append(tb.DependsOn, dep.ID)
					}
				}
				c, _, _ = c.createTable(tb, rapid.Bool().Draw(t, "ifNotExists"))
			case 1:
				c, _, _ = c.dropObject(kindGen.Draw(t, "kind"), schemaGen.Draw(t, "schema"), name, rapid.Bool().Draw(t, "ifExists"), rapid.Bool().Draw(t, "cascade"))
			case 4:
				c, _ = c.createSchema("s", rapid.Bool().Draw(t, "ifNotExists"), 0)
			case 6:
				c, _ = c.addColumn(schemaGen.Draw(t, "schema"), name, col(rapid.SampledFrom([]string{"b", "c"}).Draw(t, "column"), types.TInt8), rapid.Bool().Draw(t, "ifNotExists"))
			case 7:
				before, _ := c.Table(DefaultSchema, name)
				var err error
				if c, err = c.dropColumn(DefaultSchema, name, "b", rapid.Bool().Draw(t, "ifExists")); err == nil && before != nil && before.ColumnIndex("b") >= 0 {
					after, _ := c.Table(DefaultSchema, name)
					if after.ColumnIndex("b") >= 0 || len(after.Columns) != len(before.Columns) {
						t.Fatalf("dropColumn: %v -> %v", before.Columns, after.Columns)
					}
				}
			case 5:
				before := len(c.Tables())
				var dropped []*Table
				var err error
				c, dropped, err = c.dropSchema("s", rapid.Bool().Draw(t, "ifExists"), rapid.Bool().Draw(t, "cascade"))
				if err == nil && len(c.Tables()) != before-len(dropped) {
					t.Fatalf("dropSchema removed %d tables, reported %d", before-len(c.Tables()), len(dropped))
				}
			case 2:
				idx := Index{Name: nameGen.Draw(t, "index") + "_i", Columns: []string{"a"}}
				if rapid.Bool().Draw(t, "unnamed") {
					idx.Name = ""
				}
				c, _ = c.createIndex("", name, idx, rapid.Bool().Draw(t, "ifNotExists"))
			default:
				c, _ = c.dropIndex("", name+"_i", rapid.Bool().Draw(t, "ifExists"))
			}
			checkInvariants(t, c)
		}
	})
}

func TestShownOption(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"url", "postgres://app:s3cret@db:5432/x?sslmode=disable", "postgres://app:********@db:5432/x?sslmode=disable"},
		{"url", "postgres://app@db/x", "postgres://app@db/x"},
		{"password", "s3cret", "********"},
		{"properties.sasl.password", "p", "********"},
		{"jdbc.url", "jdbc:postgresql://db/x", "jdbc:postgresql://db/x"},
		{"topic", "t", "t"},
	} {
		if got := ShownOption(c.key, c.value); got != c.want {
			t.Errorf("ShownOption(%q, %q) = %q, want %q", c.key, c.value, got, c.want)
		}
	}
}
