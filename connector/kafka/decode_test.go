package kafka

import (
	"encoding/json"
	"strings"
	"testing"

	"pgregory.net/rapid"

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

// checkDecode decodes in and checks that it gives the row rendered as
// want, or an error if want is ""; it returns the error.
func checkDecode(t *testing.T, cols []Column, cfg *Config, in, want string) error {
	t.Helper()
	row := make([]types.Datum, len(cols))
	err := newDecoder(cols, cfg).decode([]byte(in), row)
	switch {
	case want == "" && err == nil:
		t.Errorf("%q: decoded %s, want an error", in, render(row))
	case want != "" && err != nil:
		t.Errorf("%q: %v", in, err)
	case want != "" && render(row) != want:
		t.Errorf("%q: got %s, want %s", in, render(row), want)
	}
	return err
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
		checkDecode(t, decodeCols, cfg, c.in, c.want)
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
		if err := checkDecode(t, cols, &c.cfg, c.in, c.want); c.isHeader != (err == errHeader) {
			t.Errorf("%q: %v, header %v", c.in, err, c.isHeader)
		}
	}
}

// TestDecodeJSONRoundTrip checks that any object encoding/json writes of
// an int and a text column, in any key case and with other fields around,
// decodes to its values; and that any record, valid or not, decodes or
// fails without panicking.
func TestDecodeJSONRoundTrip(t *testing.T) {
	cols := []Column{{"n", types.TInt8}, {"s", types.TText}}
	dec := newDecoder(cols, &Config{Encoding: JSON})
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64().Draw(t, "n")
		s := rapid.StringMatching(`[^\x00]*`).Draw(t, "s")
		obj := map[string]any{rapid.SampledFrom([]string{"n", "N"}).Draw(t, "nkey"): n, "s": s,
			"other": rapid.SliceOf(rapid.String()).Draw(t, "other")}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		row := make([]types.Datum, 2)
		if err := dec.decode(b, row); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if row[0].Int() != n || row[1].String() != s {
			t.Fatalf("%s: decoded %d, %q", b, row[0].Int(), row[1].String())
		}
		_ = dec.decode(b[:rapid.IntRange(0, len(b)).Draw(t, "cut")], row)
	})
}
