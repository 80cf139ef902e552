package sqllogic

import (
	"reflect"
	"testing"
)

func TestCreatedObjects(t *testing.T) {
	tests := []struct {
		sql  string
		want []object
	}{
		{"CREATE TABLE t1(a INTEGER)", []object{{"TABLE", "t1"}}},
		{"create table if not exists T2 (x int) append only;", []object{{"TABLE", "T2"}}},
		{"create materialized view mv as\nselect 1", []object{{"MATERIALIZED VIEW", "mv"}}},
		{"CREATE MATERIALIZED\n  VIEW IF NOT EXISTS s.mv2 AS SELECT 1", []object{{"MATERIALIZED VIEW", "s.mv2"}}},
		{"CREATE OR REPLACE TEMP VIEW \"My View\" AS SELECT 1", []object{{"VIEW", `"My View"`}}},
		{"CREATE UNIQUE INDEX t1i1 ON t1(x)", []object{{"INDEX", "t1i1"}}},
		{"CREATE INDEX ON t1(x)", nil},
		{"create source src with (connector='datagen')", []object{{"SOURCE", "src"}}},
		{"create sink snk from mv", []object{{"SINK", "snk"}}},
		{"-- set up\ncreate table a (x int); create view v as select * from a", []object{{"TABLE", "a"}, {"VIEW", "v"}}},
		{"CREATE TRIGGER t1r1 UPDATE ON t1 BEGIN SELECT 1; END;", nil},
		{"INSERT INTO t VALUES ('create table x')", nil},
		{"SELECT 1", nil},
	}
	for _, tc := range tests {
		if got := createdObjects(tc.sql); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("createdObjects(%q) = %v, want %v", tc.sql, got, tc.want)
		}
	}
}

func TestObjectsDrops(t *testing.T) {
	var objs objects
	for _, o := range []object{{"TABLE", "t"}, {"MATERIALIZED VIEW", "mv"}, {"TABLE", "u"}, {"TABLE", "T"}} {
		objs.add(o)
	}
	want := []string{
		"DROP TABLE IF EXISTS T",
		"DROP TABLE IF EXISTS u",
		"DROP MATERIALIZED VIEW IF EXISTS mv",
	}
	if got := objs.drops(); !reflect.DeepEqual(got, want) {
		t.Errorf("drops = %q, want %q", got, want)
	}
}
