package kafka

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// render renders a decoded row as text, NULL for nulls.
func render(row []types.Datum) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if d.IsNull() {
			parts[i] = "NULL"
		} else {
			parts[i] = d.String()
		}
	}
	return strings.Join(parts, "|")
}

var decodeCols = []Column{
	{"id", types.TInt8}, {"Name", types.TText}, {"price", types.TFloat8},
	{"ok", types.TBool}, {"at", types.TTimestamp}, {"extra", types.TJsonb},
}

func TestDecodeJSON(t *testing.T) {
	cfg := &Config{Encoding: JSON}
	for _, c := range []struct {
		in, want string // want "" for a malformed record
	}{
		{`{"id": 1, "name": "a", "price": 2.5, "ok": true, "at": "2024-01-02 03:04:05", "extra": {"k": [1, "}"]}}`,
			`1|a|2.5|t|2024-01-02 03:04:05|{"k": [1, "}"]}`},
		// Names match case-insensitively; missing fields and nulls are NULL;
		// unknown fields are ignored; strings feed the types' input.
		{`{"ID":"7","NAME":null,"other":[1,2],"price":"1e3"}`, `7|NULL|1000|NULL|NULL|NULL`},
		{` { } `, `NULL|NULL|NULL|NULL|NULL|NULL`},
		{`{"name":"quote \" tab\t \u00e9"}`, "NULL|quote \" tab\t é|NULL|NULL|NULL|NULL"},
		{`{"na\u006de":"escaped key"}`, `NULL|escaped key|NULL|NULL|NULL|NULL`},
		{`{"extra":"s"}`, `NULL|NULL|NULL|NULL|NULL|"s"`},
		{`{"id": 1.5}`, ``},
		{`{"id": "x"}`, ``},
		{`{"ok": 3}`, ``},
		{`{"at": "yesterday-ish"}`, ``},
		{`[1]`, ``},
		{`{"id": 1`, ``},
		{`{"id": 1} x`, ``},
		{`{"id" 1}`, ``},
		{`{"id": tru}`, ``},
		{`{"name": "unterminated}`, ``},
		{`{"extra": {"a": 1}`, ``},
		{``, ``},
	} {
		row := make([]types.Datum, len(decodeCols))
		err := newDecoder(decodeCols, cfg).decode([]byte(c.in), row)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: decoded %s, want an error", c.in, render(row))
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.in, err)
		case c.want != "" && render(row) != c.want:
			t.Errorf("%s: got %s, want %s", c.in, render(row), c.want)
		}
	}
}

func TestDecodeCSV(t *testing.T) {
	cols := decodeCols[:4]
	for _, c := range []struct {
		cfg      Config
		in, want string // want "" for a malformed record
		isHeader bool
	}{
		{Config{Delimiter: ','}, "1,a,2.5,t", "1|a|2.5|t", false},
		{Config{Delimiter: ','}, "1,a,2.5,t\r\n", "1|a|2.5|t", false},
		{Config{Delimiter: '|'}, `2|"x|""y"""||`, `2|x|"y"|NULL|NULL`, false},
		{Config{Delimiter: ','}, `3,"",,`, "3||NULL|NULL", false},
		{Config{Delimiter: ','}, "1,a,2.5", "", false},
		{Config{Delimiter: ','}, "1,a,2.5,t,x", "", false},
		{Config{Delimiter: ','}, "x,a,2.5,t", "", false},
		{Config{Delimiter: ','}, `1,"a"b,2,t`, "", false},
		{Config{Delimiter: ','}, `1,"a,2,t`, "", false},
		{Config{Delimiter: ','}, "id,name,price,ok", "", false},
		{Config{Delimiter: ',', Header: true}, "ID,name,price,ok", "", true},
		{Config{Delimiter: ',', Header: true}, "id,name,price,x", "", false},
		{Config{Delimiter: ',', Header: true}, "4,b,1,f", "4|b|1|f", false},
	} {
		c.cfg.Encoding = CSV
		row := make([]types.Datum, len(cols))
		err := newDecoder(cols, &c.cfg).decode([]byte(c.in), row)
		switch {
		case c.isHeader:
			if err != errHeader {
				t.Errorf("%q: %v, want the header", c.in, err)
			}
		case c.want == "" && err == nil:
			t.Errorf("%q: decoded %s, want an error", c.in, render(row))
		case c.want != "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.want != "" && render(row) != c.want:
			t.Errorf("%q: got %s, want %s", c.in, render(row), c.want)
		}
	}
}
