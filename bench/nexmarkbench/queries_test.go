package nexmarkbench

import (
	"strings"
	"testing"
	"time"
)

func TestDDLNamesEveryColumnAndOption(t *testing.T) {
	got := DDL("SOURCE", "bid", SourceOptions{Events: 1000, Splits: 2, Seed: 7})
	for _, want := range []string{
		"CREATE SOURCE bid (auction bigint, bidder bigint, price bigint, channel character varying",
		"nexmark.table.type = 'Bid'", "nexmark.event.num = '1000'",
		"nexmark.min.event.gap.in.ns = '0'", "nexmark.split.num = '2'", "nexmark.seed = '7'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("DDL = %s\nmissing %q", got, want)
		}
	}
}

func TestDDLDeclaresTheWatermark(t *testing.T) {
	got := DDL("SOURCE", "auction", SourceOptions{Events: 10, Watermark: 4 * time.Second})
	want := "category bigint, extra character varying, WATERMARK FOR date_time AS date_time - INTERVAL '4000 milliseconds') WITH ("
	if !strings.Contains(got, want) {
		t.Errorf("DDL = %s\nmissing %q", got, want)
	}
}

func TestPlainDDLHasNoConnector(t *testing.T) {
	got := PlainDDL("person")
	want := "CREATE TABLE person (id bigint, name character varying, email_address character varying, credit_card character varying, city character varying, state character varying, date_time timestamp without time zone, extra character varying)"
	if got != want {
		t.Errorf("PlainDDL = %s\nwant %s", got, want)
	}
}

func TestQueriesReadDeclaredTables(t *testing.T) {
	seen := map[string]bool{}
	for _, q := range Queries {
		if seen[q.Name] {
			t.Errorf("%s listed twice", q.Name)
		}
		seen[q.Name] = true
		if got, ok := Lookup(strings.TrimPrefix(q.Name, "q")); !ok || got.Name != q.Name {
			t.Errorf("Lookup(%s) = %v, %v", q.Name, got.Name, ok)
		}
		for _, tbl := range q.Tables {
			if !strings.Contains(strings.ToLower(q.SQL), tbl) {
				t.Errorf("%s declares table %s it does not read", q.Name, tbl)
			}
		}
	}
}
