package sqllogic

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	const f = "t.test"
	stmt := func(line int, sql string) record {
		return record{kind: kindStatement, file: f, line: line, sql: sql, count: -1}
	}
	tests := []struct {
		name string
		src  string
		want []record
	}{
		{
			name: "sqlite statements and comments",
			src: "# leading comment\n" +
				"statement ok\nCREATE TABLE t1(a INTEGER,\n# inner comment\n b INTEGER)\n\n\n" +
				"statement error\nINSERT INTO nope VALUES(1)\n",
			want: []record{
				stmt(2, "CREATE TABLE t1(a INTEGER,\n b INTEGER)"),
				{kind: kindStatement, file: f, line: 8, sql: "INSERT INTO nope VALUES(1)", count: -1, expectErr: true},
			},
		},
		{
			name: "crlf line endings",
			src:  "statement ok\r\nSELECT 1\r\n\r\nquery I nosort\r\nSELECT 1\r\n----\r\n1\r\n",
			want: []record{
				stmt(1, "SELECT 1"),
				{kind: kindQuery, file: f, line: 4, sql: "SELECT 1", count: -1, types: "I", expected: []string{"1"}},
			},
		},
		{
			name: "sqlite query with sort mode, label and hash",
			src:  "query II rowsort label-7\nSELECT a,\n b FROM t1\n----\n30 values hashing to 3c13dee48d9356ae19af2515e05e6b54\n",
			want: []record{{kind: kindQuery, file: f, line: 1, sql: "SELECT a,\n b FROM t1", count: -1,
				types: "II", sort: rowSort, label: "label-7",
				expected: []string{"30 values hashing to 3c13dee48d9356ae19af2515e05e6b54"}}},
		},
		{
			name: "query without results",
			src:  "query T valuesort\nSELECT x FROM t WHERE false\n",
			want: []record{{kind: kindQuery, file: f, line: 1, sql: "SELECT x FROM t WHERE false", count: -1, types: "T", sort: valueSort}},
		},
		{
			name: "conditions with comments, halt, hash-threshold",
			src: "hash-threshold 8\n\nskipif mysql # not compatible\nonlyif postgresql\nstatement ok\nSELECT 1\n\n" +
				"onlyif mssql\nhalt\n",
			want: []record{
				{kind: kindStatement, file: f, line: 5, sql: "SELECT 1", count: -1,
					conds: []condition{{engine: "mysql"}, {only: true, engine: "postgresql"}}},
				{kind: kindHalt, file: f, line: 9, count: -1, conds: []condition{{only: true, engine: "mssql"}}},
			},
		},
		{
			name: "condition carries over a blank line",
			src:  "onlyif can-use-recover\n\nquery I retry 11 backoff 1s\nselect * from m1;\n----\n1 2 3\n",
			want: []record{{kind: kindQuery, file: f, line: 3, sql: "select * from m1;", count: -1, types: "I",
				conds:    []condition{{only: true, engine: "can-use-recover"}},
				retry:    retry{attempts: 11, backoff: time.Second},
				expected: []string{"1 2 3"}}},
		},
		{
			name: "rs statements",
			src: "statement error Column name `vxx` (.*) not found\ncreate mv\n\n" +
				"statement count 3\ninsert into t values (1),(2),(3)\n\n" +
				"statement ok retry 3 backoff 500ms\nflush;\n",
			want: []record{
				{kind: kindStatement, file: f, line: 1, sql: "create mv", count: -1, expectErr: true, errPattern: "Column name `vxx` (.*) not found"},
				{kind: kindStatement, file: f, line: 4, sql: "insert into t values (1),(2),(3)", count: 3},
				{kind: kindStatement, file: f, line: 7, sql: "flush;", count: -1, retry: retry{attempts: 3, backoff: 500 * time.Millisecond}},
			},
		},
		{
			name: "multi-line expected error ends at two blank lines",
			src: "statement error\ncreate mv v5\n----\ndb error: ERROR: Failed\n\nCaused by:\n  bad\n\n\n" +
				"query error division by zero\nselect 1/0\n\n" +
				"statement ok\ndrop table txx;\n",
			want: []record{
				{kind: kindStatement, file: f, line: 1, sql: "create mv v5", count: -1, expectErr: true},
				{kind: kindQuery, file: f, line: 10, sql: "select 1/0", count: -1, expectErr: true, errPattern: "division by zero"},
				stmt(13, "drop table txx;"),
			},
		},
		{
			name: "rs rows with timestamps and connection",
			src:  "connection other\nquery TII rowsort\nSELECT * FROM mv;\n----\n2024-01-01 00:00:00+00:00 10 1\nNULL (empty) 2\n",
			want: []record{{kind: kindQuery, file: f, line: 2, sql: "SELECT * FROM mv;", count: -1, conn: "other",
				types: "TII", sort: rowSort,
				expected: []string{"2024-01-01 00:00:00+00:00 10 1", "NULL (empty) 2"}}},
		},
		{
			name: "control, let, sleep, include, system",
			src: "control substitution on\n\nlet state_table_id, state_table\nSELECT id, name\nFROM t\n\n" +
				"sleep 2s\n\ninclude ./join*.slt.part\n\n" +
				"system ok\n./risedev ctl \"$x\"\n----\nout\n\n\n" +
				"control substitution off\n",
			want: []record{
				{kind: kindSubstitution, file: f, line: 1, count: -1, on: true},
				{kind: kindLet, file: f, line: 3, sql: "SELECT id, name\nFROM t", count: -1, vars: []string{"state_table_id", "state_table"}},
				{kind: kindSleep, file: f, line: 7, count: -1, dur: 2 * time.Second},
				{kind: kindInclude, file: f, line: 9, count: -1, arg: "./join*.slt.part"},
				{kind: kindSystem, file: f, line: 11, count: -1},
				{kind: kindSubstitution, file: f, line: 17, count: -1},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse(f, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"frobnicate\n", `t.slt:1: unknown record type "frobnicate"`},
		{"statement ok\n", "t.slt:1: record has no SQL"},
		{"\nstatement maybe\nSELECT 1\n", `t.slt:2: statement "maybe"`},
		{"statement count x\nSELECT 1\n", `statement count: "x" is not a row count`},
		{"query I retry 0 backoff 1s\nSELECT 1\n", `retry count "0"`},
		{"query I nosort label-1 extra\nSELECT 1\n", `unexpected "extra"`},
		{"statement ok retry 3\nSELECT 1\n", "expected \"retry N backoff DURATION\""},
		{"sleep soon\n", "t.slt:1: sleep:"},
		{"control sortmode rowsort\n", "unsupported control"},
		{"hash-threshold many\n", "not a number"},
		{"skipif\nstatement ok\nSELECT 1\n", "skipif takes one engine name"},
		{"let\nSELECT 1\n", "let needs"},
		{"include\n", "include needs a file pattern"},
	}
	for _, tc := range tests {
		_, err := parse("t.slt", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse(%q) error = %v, want it to contain %q", tc.src, err, tc.want)
		}
	}
}

func TestSkip(t *testing.T) {
	tests := []struct {
		conds []condition
		want  bool
	}{
		{nil, false},
		{[]condition{{engine: "mysql"}}, false},
		{[]condition{{engine: "PostgreSQL"}}, true},
		{[]condition{{only: true, engine: "postgresql"}}, false},
		{[]condition{{only: true, engine: "sqlite"}}, true},
		{[]condition{{engine: "mysql"}, {only: true, engine: "mssql"}}, true},
	}
	for _, tc := range tests {
		if got := skip(tc.conds, "postgresql"); got != tc.want {
			t.Errorf("skip(%v) = %v, want %v", tc.conds, got, tc.want)
		}
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadIncludes(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"main.slt":            "statement ok\nSELECT 'main'\n\nonlyif x\ninclude ./sub/*.slt.part\n\nstatement ok\nSELECT 'end'\n",
		"sub/a.slt.part":      "statement ok\nSELECT 'a'\n\ninclude ../nested.slt.part\n",
		"sub/b.slt.part":      "skipif y\nstatement ok\nSELECT 'b'\n",
		"nested.slt.part":     "statement ok\nSELECT 'nested'\n",
		"loop.slt":            "include loop.slt\n",
		"missing.slt":         "statement ok\nSELECT 1\n\ninclude nothing-*.part\n",
		"bad-included.slt":    "include broken.slt.part\n",
		"broken.slt.part":     "statement nope\nSELECT 1\n",
		"unrelated.slt.part~": "",
	})
	recs, err := load(filepath.Join(dir, "main.slt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		line := r.sql + " @" + filepath.Base(r.file)
		for _, c := range r.conds {
			line += " " + map[bool]string{false: "skipif ", true: "onlyif "}[c.only] + c.engine
		}
		got = append(got, line)
	}
	want := []string{
		"SELECT 'main' @main.slt",
		"SELECT 'a' @a.slt.part onlyif x",
		"SELECT 'nested' @nested.slt.part onlyif x",
		"SELECT 'b' @b.slt.part onlyif x skipif y",
		"SELECT 'end' @main.slt",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}

	for name, want := range map[string]string{
		"loop.slt":         "nested deeper than",
		"missing.slt":      `missing.slt:4: include "nothing-*.part" matches no file`,
		"bad-included.slt": `broken.slt.part:1: statement "nope"`,
		"absent.slt":       "no such file",
	} {
		_, err := load(filepath.Join(dir, name))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("load(%s) error = %v, want it to contain %q", name, err, want)
		}
	}
}

func TestCollect(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"b.slt":          "",
		"a/z.test":       "",
		"a/y.slt.part":   "",
		"a.slt":          "",
		"c/readme.md":    "",
		"c/deep/x.slt":   "",
		"single.txt":     "",
		"c/deep/w.test~": "",
	})
	got, err := collect([]string{dir, filepath.Join(dir, "single.txt")})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i], _ = filepath.Rel(dir, got[i])
	}
	want := []string{"a.slt", filepath.Join("a", "z.test"), "b.slt", filepath.Join("c", "deep", "x.slt"), "single.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("collect = %q, want %q", got, want)
	}
	if _, err := collect([]string{filepath.Join(dir, "nope")}); err == nil {
		t.Error("collect of a missing path succeeded")
	}
}
