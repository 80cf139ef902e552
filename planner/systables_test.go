package planner_test

import (
	"slices"
	"testing"
)

// TestSystemTables checks pg_catalog and information_schema rows against
// the test catalog (tables t, u, w, e, view v, materialized view mv,
// source src).
func TestSystemTables(t *testing.T) {
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname IN ('t', 'v', 'mv', 'src') ORDER BY 2",
			[]string{"public|mv|m", "public|src|f", "public|t|r", "public|v|v"}},
		{"SELECT relname FROM pg_class WHERE oid = 'w'::regclass", []string{"w"}},
		{"SELECT relnatts FROM pg_class WHERE oid = 'public.u'::pg_catalog.regclass", []string{"3"}},
		{"SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef FROM pg_attribute a WHERE a.attrelid = 'u'::regclass ORDER BY 1",
			[]string{"1|a|integer|f|f", "2|x|bigint|f|f", "3|y|character varying(10)|f|f"}},
		{"SELECT a.attname, a.attnotnull FROM pg_attribute a WHERE a.attrelid = 't'::regclass AND a.attnum <= 2 ORDER BY a.attnum",
			[]string{"a|t", "b|f"}},
		{"SELECT d.adnum, pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = 'w'::regclass",
			[]string{"2|'none'"}},
		{"SELECT typname FROM pg_type WHERE oid = 1043", []string{"varchar"}},
		{"SELECT count(*) FROM pg_catalog.pg_index WHERE indrelid = 0", []string{"0"}},
		// t's primary key (a) is an index and a constraint.
		{"SELECT c2.relname, c2.relkind, i.indisprimary, i.indisunique, i.indkey, pg_get_indexdef(i.indexrelid, 0, true), pg_get_constraintdef(con.oid, true), con.contype, con.conkey " +
			"FROM pg_class c, pg_class c2, pg_index i LEFT JOIN pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x')) " +
			"WHERE c.oid = 't'::regclass AND c.oid = i.indrelid AND i.indexrelid = c2.oid",
			[]string{"t_pkey|i|t|t|{1}|CREATE UNIQUE INDEX t_pkey ON public.t USING btree (a)|PRIMARY KEY (a)|p|{1}"}},
		{"SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename = 't'",
			[]string{"t|t_pkey|CREATE UNIQUE INDEX t_pkey ON public.t USING btree (a)"}},
		{"SELECT relhasindex FROM pg_class WHERE relname IN ('t', 'mv') ORDER BY relname", []string{"f", "t"}},
		{"SELECT datname FROM pg_database", []string{"streamdb"}},
		{"SELECT table_name, table_type FROM information_schema.tables WHERE table_name IN ('t', 'v', 'mv', 'src') ORDER BY 1",
			[]string{"mv|MATERIALIZED VIEW", "src|SOURCE", "t|BASE TABLE", "v|VIEW"}},
		{"SELECT column_name, ordinal_position, column_default, is_nullable, data_type, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 't' AND ordinal_position IN (1, 4)",
			[]string{"a|1|NULL|NO|integer|32|0", "n|4|NULL|YES|numeric|10|2"}},
		{"SELECT column_name, column_default, is_nullable, udt_name FROM information_schema.columns WHERE table_name = 'w' ORDER BY ordinal_position",
			[]string{"a|NULL|YES|int4", "c|'none'|NO|text"}},
		{"SELECT pg_get_viewdef('v'::regclass, true), pg_get_viewdef('t'::regclass), pg_get_viewdef(NULL)",
			[]string{" SELECT a, c FROM t;|NULL|NULL"}},
		{"SELECT 'pg_catalog.pg_extension'::regclass, 'pg_class'::regclass", []string{"3079|1259"}},
		{"SELECT count(*) FROM pg_policy pol WHERE pol.polroles = '{0}'", []string{"0"}},
		{"SELECT rolname, rolsuper, oid FROM pg_roles", []string{"streamdb|t|10"}},
		{"SELECT spcname FROM pg_tablespace t JOIN pg_database d ON d.dattablespace = t.oid", []string{"pg_default"}},
		{"SELECT a.attname, a.attstorage FROM pg_attribute a WHERE a.attrelid = 't'::regclass AND a.attnum IN (1, 3, 4) ORDER BY 1",
			[]string{"a|p", "c|x", "n|m"}},
		{"SELECT array_to_string(c.reloptions || ARRAY(SELECT 'toast.' || x FROM unnest(c.reloptions) x), ', ') FROM pg_class c WHERE c.relname = 't'",
			[]string{""}},
	}
	for _, tt := range tests {
		if got := runQuery(t, tt.sql); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.sql, got, tt.want)
		}
	}
	if _, _, err := bindQuery(t, "SELECT 'missing'::regclass"); err == nil {
		t.Error("'missing'::regclass: want an error")
	}
}
