package sql

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// decodeAll decodes data as the COPY statement stmt would, over columns a
// int8 and b text, and renders the rows as "a|b" (NULL for NULL), or the
// error as "error CODE: message (detail)".
func decodeAll(t *testing.T, stmt, data string) string {
	t.Helper()
	parsed, err := parser.Parse(stmt)
	if err != nil {
		t.Fatal(err)
	}
	opts := parsed[0].Utility.(*parser.Copy)
	d := newCopyDecoder(opts, "t", []string{"a", "b"}, []types.T{types.TInt8, types.TText}, strings.NewReader(data), nil)
	var out []string
	for {
		row, err := d.next()
		if err == copyEnd {
			return strings.Join(out, "\n")
		}
		if err != nil {
			pe := pgerror.From(err)
			return "error " + pe.Code + ": " + pe.Message + " (" + pe.Detail + ")"
		}
		var vals []string
		for _, v := range row {
			if v.IsNull() {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, v.String())
			}
		}
		out = append(out, strings.Join(vals, "|"))
	}
}

func TestCopyText(t *testing.T) {
	for _, c := range []struct{ name, stmt, data, want string }{
		{"rows", "copy t from stdin", "1\tx\n2\ty\n", "1|x\n2|y"},
		{"no final newline, CRLF", "copy t from stdin", "1\tx\r\n2\ty", "1|x\n2|y"},
		{"null marker and empty string", "copy t from stdin", "\\N\t\n3\t\\N\n", "NULL|\n3|NULL"},
		{"escapes", "copy t from stdin", "1\ta\\tb\\\\c\\nd\\101\\x41\\q\\x\n", "1|a\tb\\c\nd" + "AAqx"},
		{"escaped delimiter", "copy t from stdin (delimiter ',')", "1,a\\,b\n", "1|a,b"},
		{"end marker", "copy t from stdin", "1\tx\n\\.\n2\ty\n", "1|x"},
		{"header", "copy t from stdin (header)", "a\tb\n1\tx\n", "1|x"},
		{"own null marker", "copy t from stdin (null 'NA')", "NA\t\\N\n", "NULL|N"},
		{"too many fields", "copy t from stdin", "1\tx\ty\n", `error 22P04: extra data after last expected column (COPY t, line 1.)`},
		{"too few fields", "copy t from stdin", "1\tx\n2\n", `error 22P04: missing data for column "b" (COPY t, line 2.)`},
		{"bad value", "copy t from stdin", "1\tx\nten\ty\n", `error 22P02: invalid input syntax for type bigint: "ten" (COPY t, line 2, column a: "ten".)`},
	} {
		if got := decodeAll(t, c.stmt, c.data); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestCopyCSV(t *testing.T) {
	for _, c := range []struct{ name, stmt, data, want string }{
		{"rows", "copy t from stdin csv", "1,x\n2,y\n", "1|x\n2|y"},
		{"quotes", "copy t from stdin csv", "1,\"a,\"\"b\"\"\"\n", `1|a,"b"`},
		{"null is unquoted empty", "copy t from stdin csv", "1,\n2,\"\"\n,z\n", "1|NULL\n2|\nNULL|z"},
		{"quoted newline", "copy t from stdin csv", "1,\"two\r\nlines\"\n2,x\n", "1|two\r\nlines\n2|x"},
		{"escape", "copy t from stdin (format csv, escape '\\')", "1,\"a\\\"b\\\\c\"\n", `1|a"b\c`},
		{"header and end marker", "copy t from stdin (format csv, header true)", "a,b\n1,x\n\\.\n", "1|x"},
		{"own delimiter and quote", "copy t from stdin (format csv, delimiter ';', quote '''')", "1;'x;y'\n", "1|x;y"},
		{"unterminated quote", "copy t from stdin csv", "1,\"open\n", `error 22P04: unterminated CSV quoted field (COPY t, line 1.)`},
	} {
		if got := decodeAll(t, c.stmt, c.data); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// binaryCopy encodes rows of an int8 and a text (nil: NULL) in the binary
// format, with the trailer if trailer is set.
func binaryCopy(trailer bool, rows ...[2]any) string {
	var b bytes.Buffer
	b.WriteString(copySignature)
	b.Write(make([]byte, 8))
	be := binary.BigEndian
	for _, r := range rows {
		b.Write(be.AppendUint16(nil, 2))
		for _, v := range r {
			switch v := v.(type) {
			case nil:
				b.Write(be.AppendUint32(nil, 0xffffffff))
			case int64:
				b.Write(be.AppendUint32(nil, 8))
				b.Write(be.AppendUint64(nil, uint64(v)))
			case string:
				b.Write(be.AppendUint32(nil, uint32(len(v))))
				b.WriteString(v)
			}
		}
	}
	if trailer {
		b.Write([]byte{0xff, 0xff})
	}
	return b.String()
}

func TestCopyBinary(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"rows and trailer", binaryCopy(true, [2]any{int64(1), "x"}, [2]any{nil, "é"}), "1|x\nNULL|é"},
		{"no trailer", binaryCopy(false, [2]any{int64(-5), nil}), "-5|NULL"},
		{"no rows", binaryCopy(true), ""},
		{"bad signature", "PGCOPY\n", `error 22P04: COPY file signature not recognized (COPY t, line 0.)`},
		{"field count", binaryCopy(true)[:19] + "\x00\x01\x00\x00\x00\x00", `error 22P04: row field count is 1, expected 2 (COPY t, line 1.)`},
		{"cut short", binaryCopy(true, [2]any{int64(1), "xyz"})[:30], `error 22P04: unexpected EOF in COPY data (COPY t, line 1.)`},
		{"bad value", binaryCopy(true, [2]any{"abc", "x"}), `error 22P03: incorrect binary data format (Malformed binary value for type bigint. COPY t, line 1, column a.)`},
	} {
		if got := decodeAll(t, "copy t from stdin binary", c.data); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}
