package dataflow

import (
	"fmt"
	"testing"
)

// TestInStorageOrder checks the order of a checkpoint batch: keys ascending
// (also past the abbreviated 16 bytes), epochs descending, and per key and
// epoch only the last write staged.
func TestInStorageOrder(t *testing.T) {
	w := func(key, value string) Write { return Write{Key: []byte(key), Value: []byte(value)} }
	long := "0123456789abcdef" // keys sharing the 16 abbreviated bytes
	stages := []staged{
		{5, []Write{w("b", "b5"), w("a", "a5"), w(long+"z", "z5")}},
		{7, []Write{w("b", "b7"), w(long, "l7"), {Key: []byte("a")}}},
		{5, []Write{w("b", "b5'"), w(long+"y", "y5"), w("", "empty")}},
		{7, []Write{w("b", "b7'")}},
	}
	var got []string
	inStorageOrder(stages, func(w Write, epoch uint64) {
		got = append(got, fmt.Sprintf("%s@%d=%s", w.Key, epoch, w.Value))
	})
	want := []string{
		"@5=empty", long + "@7=l7", long + "y@5=y5", long + "z@5=z5",
		"a@7=", "a@5=a5", "b@7=b7'", "b@5=b5'",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
