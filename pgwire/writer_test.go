package pgwire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jackc/pgproto3/v2"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// decodeOne decodes the single message in b into m.
func decodeOne(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, b []byte, m pgproto3.BackendMessage) {
	t.Helper()
	if len(b) < 5 || int(b[1])<<24|int(b[2])<<16|int(b[3])<<8|int(b[4]) != len(b)-1 {
		t.Fatalf("not one whole message: %x", b)
	}
	if err := m.Decode(b[5:]); err != nil {
		t.Fatal(err)
	}
}

func TestRowDescriptionFields(t *testing.T) {
	var w writer
	cols := []Column{
		{Name: "a", Type: types.T{Family: types.Varchar, Mod: 10}, TableOID: 16384, AttrNum: 2},
		{Name: "b", Type: types.TInt8},
	}
	w.rowDescription(cols, []int16{0, 1})
	var got pgproto3.RowDescription
	decodeOne(t, w.buf, &got)
	want := []pgproto3.FieldDescription{
		{Name: []byte("a"), TableOID: 16384, TableAttributeNumber: 2, DataTypeOID: 1043, DataTypeSize: -1, TypeModifier: 14, Format: 0},
		{Name: []byte("b"), DataTypeOID: 20, DataTypeSize: 8, TypeModifier: -1, Format: 1},
	}
	if len(got.Fields) != len(want) {
		t.Fatalf("got %d fields", len(got.Fields))
	}
	for i, f := range got.Fields {
		w := want[i]
		if !bytes.Equal(f.Name, w.Name) || f.TableOID != w.TableOID || f.TableAttributeNumber != w.TableAttributeNumber ||
			f.DataTypeOID != w.DataTypeOID || f.DataTypeSize != w.DataTypeSize || f.TypeModifier != w.TypeModifier || f.Format != w.Format {
			t.Errorf("field %d: got %+v, want %+v", i, f, w)
		}
	}
}

// TestDataRowRoundTrip checks that pgproto3 decodes every DataRow the
// writer builds into the values' text forms, with NULLs as nil.
func TestDataRowRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 8).Draw(t, "columns")
		cols := make([]Column, n)
		row := make([]types.Datum, n)
		for i := range cols {
			cols[i] = Column{Type: types.TText}
			if s := rapid.Ptr(rapid.String(), true).Draw(t, "value"); s != nil {
				row[i] = types.NewString(*s)
			}
		}
		w := writer{buf: []byte("prefix")}
		if err := w.dataRow(row, cols, nil); err != nil {
			t.Fatal(err)
		}
		var got pgproto3.DataRow
		decodeOne(t, w.buf[len("prefix"):], &got)
		if len(got.Values) != n {
			t.Fatalf("got %d values, want %d", len(got.Values), n)
		}
		for i, v := range got.Values {
			if row[i].IsNull() != (v == nil) || string(v) != row[i].Str() {
				t.Fatalf("value %d: got %q, want %q", i, v, row[i].Str())
			}
		}
	})
}

func TestDataRowWidthMismatch(t *testing.T) {
	w := writer{buf: []byte("x")}
	if err := w.dataRow([]types.Datum{types.NewInt(1)}, nil, nil); err == nil {
		t.Error("a row wider than its columns was encoded")
	}
	if string(w.buf) != "x" {
		t.Errorf("a failed row left output behind: %q", w.buf)
	}
}

// failingWriter fails every write after the first.
type failingWriter struct{ writes int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes > 1 {
		return 0, errors.New("gone")
	}
	return len(p), nil
}

func TestWriterKeepsFirstError(t *testing.T) {
	out := &failingWriter{}
	w := writer{w: out}
	for range 3 {
		w.send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		w.flush()
	}
	if w.err == nil || out.writes != 2 || len(w.buf) != 0 {
		t.Errorf("err %v after %d writes, %d bytes buffered", w.err, out.writes, len(w.buf))
	}
}

func TestWriterFlushesLargeOutput(t *testing.T) {
	var out bytes.Buffer
	w := writer{w: &out}
	cols := []Column{{Type: types.TText}}
	row := []types.Datum{types.NewString(string(make([]byte, flushThreshold)))}
	if err := w.dataRow(row, cols, nil); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 || len(w.buf) != 0 {
		t.Errorf("a row over the threshold was not written: %d written, %d buffered", out.Len(), len(w.buf))
	}
}
