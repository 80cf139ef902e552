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
	{Name: "id", Type: types.TInt8}, {Name: "Name", Type: types.TText}, {Name: "price", Type: types.TFloat8},
	{Name: "ok", Type: types.TBool}, {Name: "at", Type: types.TTimestamp}, {Name: "extra", Type: types.TJsonb},
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
	cols := []Column{{Name: "n", Type: types.TInt8}, {Name: "s", Type: types.TText}}
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

// keyedCols are a table's columns with the two-column primary key (a, b).
var keyedCols = []Column{
	{Name: "a", Type: types.TInt8, Key: true}, {Name: "b", Type: types.TText, Key: true}, {Name: "v", Type: types.TFloat8},
}

// TestDecodeChange checks the keyed formats: what each record means (an
// upsert, a delete by key, skipped) and the row it gives.
func TestDecodeChange(t *testing.T) {
	oneKey := []Column{{Name: "id", Type: types.TInt8, Key: true}, {Name: "v", Type: types.TText}}
	const tombstone = "\x00" // stands for a null value
	for _, c := range []struct {
		format     Format
		cols       []Column
		key, value string
		want       string // the row; "" for a malformed record
		del        bool
		err        error // a skipped record's error
	}{
		// UPSERT: the value is the row; a tombstone deletes the key's row.
		{format: Upsert, cols: keyedCols, key: `{"a":1,"b":"x"}`, value: `{"a":1,"b":"x","v":2.5}`, want: "1|x|2.5"},
		{format: Upsert, cols: keyedCols, value: `{"a":1,"b":"x","v":null}`, want: "1|x|NULL"},
		// Key columns missing from the value come from the key.
		{format: Upsert, cols: keyedCols, key: `{"a":1,"B":"x"}`, value: `{"v":3}`, want: "1|x|3"},
		{format: Upsert, cols: keyedCols, key: `{"a":1,"b":"x"}`, value: tombstone, want: "1|x|NULL", del: true},
		// A one-column key may be its value alone, as JSON or as text.
		{format: Upsert, cols: oneKey, key: `7`, value: tombstone, want: "7|NULL", del: true},
		{format: Upsert, cols: oneKey, key: `"8"`, value: tombstone, want: "8|NULL", del: true},
		{format: Upsert, cols: oneKey, key: `9`, value: `{"v":"y"}`, want: "9|y"},
		// Malformed: no key value anywhere, a null key column, a scalar
		// key for a two-column key, a bad key.
		{format: Upsert, cols: keyedCols, value: `{"a":1,"v":2}`},
		{format: Upsert, cols: keyedCols, key: `{"a":1,"b":null}`, value: tombstone},
		{format: Upsert, cols: keyedCols, key: `1`, value: tombstone},
		{format: Upsert, cols: oneKey, key: `x`, value: tombstone},
		{format: Upsert, cols: oneKey, value: tombstone},
		// DEBEZIUM: c, r, u upsert the after image, d deletes by the before
		// image; with or without the schema envelope; tombstones skipped.
		{format: Debezium, cols: keyedCols, value: `{"before":null,"after":{"a":1,"b":"x","v":1},"op":"c","ts_ms":1}`, want: "1|x|1"},
		{format: Debezium, cols: keyedCols, value: `{"schema":{"type":"struct"},"payload":{"before":{"a":1,"b":"x","v":1},"after":{"a":1,"b":"x","v":2},"op":"u"}}`, want: "1|x|2"},
		{format: Debezium, cols: keyedCols, value: `{"op":"r","after":{"a":2,"b":"y"}}`, want: "2|y|NULL"},
		{format: Debezium, cols: keyedCols, value: `{"before":{"a":1,"b":"x"},"after":null,"op":"d"}`, want: "1|x|NULL", del: true},
		{format: Debezium, cols: keyedCols, key: `{"a":1,"b":"x"}`, value: tombstone, err: errTombstone},
		{format: Debezium, cols: keyedCols, value: `{"before":null,"after":null,"op":"d"}`},
		{format: Debezium, cols: keyedCols, value: `{"after":{"a":1,"b":"x"}}`},
		{format: Debezium, cols: keyedCols, value: `{"op":"t"}`},
		{format: Debezium, cols: keyedCols, value: `{"op":"c","after":{"a":1}}`},
	} {
		dec := newDecoder(c.cols, &Config{Format: c.format, Encoding: JSON})
		var key, value []byte
		if c.key != "" {
			key = []byte(c.key)
		}
		if c.value != tombstone {
			value = []byte(c.value)
		}
		row := make([]types.Datum, len(c.cols))
		del, err := dec.decodeChange(key, value, row)
		name := c.key + " " + c.value
		switch {
		case c.err != nil && err != c.err:
			t.Errorf("%s: err %v, want %v", name, err, c.err)
		case c.err != nil:
		case c.want == "" && err == nil:
			t.Errorf("%s: decoded %s (delete %v), want an error", name, render(row), del)
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want != "" && (render(row) != c.want || del != c.del):
			t.Errorf("%s: got %s delete %v, want %s delete %v", name, render(row), del, c.want, c.del)
		}
	}
}
