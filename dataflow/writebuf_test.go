package dataflow

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// Writes keep their bytes whichever slab they landed in: across slabs, in
// a slab of their own when larger than any, and when a row outgrows the
// room its slab was checked for.
func TestWriteBufSlabs(t *testing.T) {
	var w writeBuf
	type want struct{ key, value []byte }
	var wants []want
	big := bytes.Repeat([]byte("v"), maxSlab+10)
	wide := []types.Datum{types.NewString(string(bytes.Repeat([]byte("w"), 3*minSlab)))}
	for i := range 5000 {
		key := fmt.Appendf(nil, "key-%d", i)
		switch i % 500 {
		case 7:
			w.putValue(key, big)
			wants = append(wants, want{key, big})
		case 8:
			w.del(key)
			wants = append(wants, want{key, nil})
		case 9:
			w.put(key, wide)
			wants = append(wants, want{key, types.AppendRow(nil, wide)})
		default:
			row := []types.Datum{types.NewInt(int64(i)), types.NewString("x")}
			w.put(key, row)
			wants = append(wants, want{key, types.AppendRow(nil, row)})
		}
	}
	if len(w.writes) != len(wants) {
		t.Fatalf("%d writes, want %d", len(w.writes), len(wants))
	}
	size := 0
	for i, got := range w.writes {
		if !bytes.Equal(got.Key, wants[i].key) || !bytes.Equal(got.Value, wants[i].value) || (got.Value == nil) != (wants[i].value == nil) {
			t.Fatalf("write %d: %q = %.20q, want %q = %.20q", i, got.Key, got.Value, wants[i].key, wants[i].value)
		}
		size += len(got.Key) + len(got.Value)
	}
	w.stage(newEnv(t).Store, 1)
	if w.last != size || w.size != 0 || len(w.writes) != 0 || w.slab != nil {
		t.Fatalf("after stage: last %d (want %d), size %d, %d writes, slab %v", w.last, size, w.size, len(w.writes), w.slab != nil)
	}
	// The next epoch's first slab is as large as the last epoch wrote,
	// within the bounds.
	w.put([]byte("k"), []types.Datum{types.NewInt(1)})
	if cap(w.slab) != maxSlab {
		t.Errorf("first slab after a large epoch: %d bytes, want %d", cap(w.slab), maxSlab)
	}
}
