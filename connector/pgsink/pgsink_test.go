package pgsink

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/types"
)

func TestParse(t *testing.T) {
	cols := []changes.Column{{Name: "k", Type: types.TInt4}, {Name: "n", Type: types.TInt8}, {Name: "name", Type: types.TText}}
	for _, tc := range []struct {
		name       string
		opts       map[string]string
		appendOnly bool
		code       string // SQLSTATE of the error, "" for none
		conn       string
		key        []int
	}{
		{name: "upsert", opts: map[string]string{"url": "postgres://u@h:5432/db", "table": "t", "type": "upsert", "primary_key": "K"},
			conn: "postgres://u@h:5432/db", key: []int{0}},
		{name: "primary key implies upsert", opts: map[string]string{"url": "postgres://u@h/db", "table": "t", "primary_key": "k, name"},
			conn: "postgres://u@h/db", key: []int{0, 2}},
		{name: "jdbc url", opts: map[string]string{"jdbc.url": "jdbc:postgresql://h:5432/db", "table.name": "t", "type": "append-only"}, appendOnly: true,
			conn: "postgresql://h:5432/db"},
		{name: "pieces", opts: map[string]string{"host": "h", "port": "5433", "user": "u", "password": "p w", "database": "db", "table": "t", "type": "append-only"}, appendOnly: true,
			conn: "postgres://u:p%20w@h:5433/db"},
		{name: "append-only of a changing stream", opts: map[string]string{"url": "postgres://h/db", "table": "t"}, code: pgerror.CodeInvalidParameterValue},
		{name: "forced append-only", opts: map[string]string{"url": "postgres://h/db", "table": "t", "force_append_only": "true"}, conn: "postgres://h/db"},
		{name: "upsert without key", opts: map[string]string{"url": "postgres://h/db", "table": "t", "type": "upsert"}, code: pgerror.CodeSyntaxError},
		{name: "unknown key column", opts: map[string]string{"url": "postgres://h/db", "table": "t", "primary_key": "x"}, code: pgerror.CodeUndefinedColumn},
		{name: "no table", opts: map[string]string{"url": "postgres://h/db", "type": "append-only"}, appendOnly: true, code: pgerror.CodeSyntaxError},
		{name: "no url", opts: map[string]string{"table": "t", "type": "append-only"}, appendOnly: true, code: pgerror.CodeSyntaxError},
		{name: "bad url", opts: map[string]string{"url": "mysql://h/db", "table": "t", "type": "append-only"}, appendOnly: true, code: pgerror.CodeInvalidParameterValue},
		{name: "unknown option", opts: map[string]string{"url": "postgres://h/db", "table": "t", "colour": "red"}, code: pgerror.CodeInvalidParameterValue},
		{name: "bad type", opts: map[string]string{"url": "postgres://h/db", "table": "t", "type": "merge"}, code: pgerror.CodeInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.opts, cols, tc.appendOnly)
			if tc.code != "" {
				var pe *pgerror.Error
				if !errors.As(err, &pe) || pe.Code != tc.code {
					t.Fatalf("error %v, want SQLSTATE %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.connString != tc.conn {
				t.Errorf("connection string %q, want %q", c.connString, tc.conn)
			}
			if len(c.key) != len(tc.key) || len(tc.key) > 0 && c.key[len(c.key)-1] != tc.key[len(tc.key)-1] {
				t.Errorf("key %v, want %v", c.key, tc.key)
			}
		})
	}
}
