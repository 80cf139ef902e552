package sql

import (
	"bytes"
	"errors"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// FuzzCopyText decodes arbitrary COPY FROM STDIN data into rows of
// bigint, text, numeric, timestamptz, jsonb and bigint[] columns, as each
// COPY statement of fuzzCopyStatements reads it (text, CSV, headers,
// delimiters, quotes, null markers, binary): it must never panic, end
// with copyEnd or a *pgerror.Error, and each row has a value per column.
func FuzzCopyText(f *testing.F) {
	for i, data := range []string{
		"1\tx\t1.5\t2024-01-01 00:00:00+00\t{\"a\": 1}\t{1,2}\n\\N\t\\N\t\\N\t\\N\t\\N\t\\N\n\\.\n",
		"1\ta\\tb\\\\c\\nd\\101\\x41\t-0.0\tinfinity\tnull\t{}\r\n",
		"a,b,c,d,e,f\n1,\"x,\"\"y\"\"\",NaN,2024-01-01,\"[1,{}]\",\"{NULL}\"\n",
		"1;'a;''b';2;2024-02-29 12:00:00-08;'\"s\"';'{3}'\n",
		"PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x06\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
	} {
		f.Add(uint8(i), []byte(data))
	}
	var stmts []*parser.Copy
	for _, s := range fuzzCopyStatements {
		parsed, err := parser.Parse(s)
		if err != nil {
			f.Fatal(err)
		}
		stmts = append(stmts, parsed[0].Utility.(*parser.Copy))
	}
	ints, _ := types.ArrayOf(types.TInt8)
	names := []string{"a", "b", "c", "d", "e", "f"}
	ts := []types.T{types.TInt8, types.TText, types.TNumeric, types.TTimestampTZ, types.TJsonb, ints}
	f.Fuzz(func(t *testing.T, pick uint8, data []byte) {
		d := newCopyDecoder(stmts[int(pick)%len(stmts)], "t", names, ts, bytes.NewReader(data), nil)
		for {
			row, err := d.next()
			if err == copyEnd {
				return
			}
			if err != nil {
				if !errors.As(err, new(*pgerror.Error)) {
					t.Fatalf("error %T %v is not a *pgerror.Error", err, err)
				}
				return
			}
			if len(row) != len(ts) {
				t.Fatalf("a row of %d values, want %d", len(row), len(ts))
			}
		}
	})
}

// fuzzCopyStatements are the COPY statements FuzzCopyText reads data as.
var fuzzCopyStatements = []string{
	"copy t from stdin",
	"copy t from stdin (delimiter ',', null 'NA')",
	"copy t from stdin (format csv, header)",
	"copy t from stdin (format csv, delimiter ';', quote '''', escape '\\')",
	"copy t from stdin (format binary)",
}
