package pgcdc

import (
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerror"
)

func TestParseOptions(t *testing.T) {
	created := time.UnixMicro(1700000000000000)
	for _, tc := range []struct {
		name string
		opts map[string]string
		want Config
		code string
	}{
		{"streamdb spelling", map[string]string{"url": "postgres://u@h/db", "table": "public.orders", "slot": "s1"},
			Config{URL: "postgres://u@h/db", Schema: "public", Table: "orders", Slot: "s1", Publication: "streamdb_orders_1700000000000000", DropPublication: true}, ""},
		{"risingwave spelling", map[string]string{"hostname": "h", "port": "5433", "username": "u", "password": "p",
			"database.name": "db", "schema.name": "s", "table.name": "Orders", "slot.name": "sl", "publication.name": "pub"},
			Config{URL: "postgres://u:p@h:5433/db", Schema: "s", Table: "Orders", Slot: "sl", Publication: "pub"}, ""},
		{"default schema and slot", map[string]string{"url": "postgres://h/db", "table": "My-Orders"},
			Config{URL: "postgres://h/db", Schema: "public", Table: "My-Orders", Slot: "streamdb_my_orders_1700000000000000", Publication: "streamdb_my_orders_1700000000000000",
				DropSlot: true, DropPublication: true}, ""},
		{"no url", map[string]string{"table": "t"}, Config{}, pgerror.CodeSyntaxError},
		{"no table", map[string]string{"url": "postgres://h/db"}, Config{}, pgerror.CodeSyntaxError},
		{"bad slot", map[string]string{"url": "postgres://h/db", "table": "t", "slot": "Bad-Slot"}, Config{}, pgerror.CodeInvalidParameterValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, resolved, err := ParseOptions(tc.opts, created)
			if tc.code != "" {
				if pe, ok := err.(*pgerror.Error); !ok || pe.Code != tc.code {
					t.Fatalf("error %v, want SQLSTATE %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("config %+v, want %+v", got, tc.want)
			}
			// The resolved options open the same configuration later:
			// what streamdb named stays streamdb's to drop (owned).
			again, _, err := ParseOptions(resolved, time.Time{})
			if err != nil || again != got {
				t.Fatalf("resolved options %v give %+v, %v", resolved, again, err)
			}
		})
	}
}
