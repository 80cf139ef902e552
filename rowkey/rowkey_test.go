package rowkey

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

func TestVNode(t *testing.T) {
	// Keys and vnodes are persistent: these values must never change.
	key, null := AppendCols(nil, []types.Datum{types.NewInt(42), types.NewString("abc")}, []int{0, 1})
	if got, want := hex.EncodeToString(key), "11800000000000002a"+"196162630001"; got != want || null {
		t.Fatalf("key = %s (NULL %v), want %s", got, null, want)
	}
	if got, want := VNode(key, 256), uint16(68); got != want {
		t.Errorf("VNode(int 42, text abc) = %d, want %d", got, want)
	}
	if VNode(key, 1) != 0 {
		t.Error("one group must be group 0")
	}
	if _, null := AppendCols(nil, []types.Datum{types.NewInt(1), types.Null}, []int{0, 1}); !null {
		t.Error("a NULL key column is reported")
	}
}

func TestTable(t *testing.T) {
	row := []types.Datum{types.NewString("x"), types.NewInt(42), types.NewString("abc")}
	pk, _ := AppendCols(nil, row, []int{1, 2})
	want := storage.AppendKey(nil, 7, VNode(pk, VNodes), pk)
	if got := Table(nil, 7, []int{1, 2}, row); !bytes.Equal(got, want) {
		t.Errorf("Table = %x, want %x", got, want)
	}
}
