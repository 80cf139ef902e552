package sql

import (
	"bytes"
	"testing"

	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// TestCopyRoundTrip encodes awkward rows with COPY TO's encoder in each
// format and reads them back with COPY FROM's decoder: every value, NULL
// and empty string included, comes back as it was.
func TestCopyRoundTrip(t *testing.T) {
	values := []string{"plain", "", "tab\tnew\nline\rcr", `back\slash`, `"quoted", comma;semi`, `\.`, `\N`, "NULL", "é ü"}
	var rows [][]types.Datum
	for i, v := range values {
		rows = append(rows, []types.Datum{types.NewInt(int64(i)), types.NewString(v)})
	}
	rows = append(rows, []types.Datum{types.Null, types.Null})
	ts := []types.T{types.TInt8, types.TText}
	for _, opts := range []string{"", "(FORMAT csv)", "(FORMAT csv, NULL 'NULL', DELIMITER ';', QUOTE '''')", "(FORMAT text, DELIMITER ',')", "(FORMAT binary)"} {
		t.Run(opts, func(t *testing.T) {
			to, err := parser.Parse("COPY t TO STDOUT " + opts)
			if err != nil {
				t.Fatal(err)
			}
			from, err := parser.Parse("COPY t FROM STDIN " + opts)
			if err != nil {
				t.Fatal(err)
			}
			x := to[0].Utility.(*parser.Copy)
			enc := &copyEncoder{opts: x, types: ts}
			var data []byte
			if x.Format == "binary" {
				data = append(data, newCopyOut(nil, x, nil, nil).header...)
			}
			for _, r := range rows {
				if data, err = enc.row(data, r); err != nil {
					t.Fatal(err)
				}
			}
			if x.Format == "binary" {
				data = append(data, 0xff, 0xff)
			}
			d := newCopyDecoder(from[0].Utility.(*parser.Copy), "t", []string{"a", "b"}, ts, bytes.NewReader(data), nil)
			for i, want := range rows {
				got, err := d.next()
				if err != nil {
					t.Fatalf("row %d: %v\n%q", i, err, data)
				}
				for j := range want {
					if !types.Identical(got[j], want[j]) {
						t.Errorf("row %d column %d: %v, want %v\n%q", i, j, got[j], want[j], data)
					}
				}
			}
			if _, err := d.next(); err != copyEnd {
				t.Errorf("after the rows: %v, want the end", err)
			}
		})
	}
}
