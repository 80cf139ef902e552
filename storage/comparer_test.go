package storage

import (
	"bytes"
	"cmp"
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"pgregory.net/rapid"
)

func TestCheckComparer(t *testing.T) {
	var prefixes, suffixes [][]byte
	for _, uk := range [][]byte{
		{}, {0}, {0, 0}, {1}, {9}, {0xff}, AppendKey(nil, 1000, 3, []byte("abc")),
		AppendKey(nil, 1000, 3, []byte("abc\x00")), AppendKey(nil, 1000, 3, []byte("abd")),
	} {
		prefixes = append(prefixes, appendBound(nil, uk))
	}
	for _, e := range []uint64{0, 1, 2, 255, 256, 1 << 40, ^uint64(0)} {
		suffixes = append(suffixes, appendVersioned(nil, nil, e)[1:])
	}
	if err := pebble.CheckComparer(Comparer, prefixes, suffixes); err != nil {
		t.Fatal(err)
	}
}

func TestFormatKey(t *testing.T) {
	tests := []struct {
		key  []byte
		want string
	}{
		{appendVersioned(nil, AppendKey(nil, 1000, 7, []byte{0xab}), 42), "t1000/v7/ab@42"},
		{appendBound(nil, AppendKey(nil, 5, 0, nil)), "t5/v0/"},
		{appendBound(nil, TablePrefix(5)), "0000000500"},
	}
	for _, tt := range tests {
		got := fmt.Sprint(formattedKey(tt.key))
		if got != tt.want {
			t.Errorf("format %x = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// userKeyGen draws short user keys over a small alphabet so that equal keys,
// prefixes and zero bytes are common.
var userKeyGen = rapid.SliceOfN(rapid.SampledFrom([]byte{0, 1, 9, 0x7f, 0xff}), 0, 6)

// TestCompareOrder checks that versioned keys order by user key, then newest
// epoch first, and that a bound sorts before every version of its key and
// after every smaller key.
func TestCompareOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		u1, u2 := userKeyGen.Draw(t, "u1"), userKeyGen.Draw(t, "u2")
		e1, e2 := rapid.Uint64().Draw(t, "e1"), rapid.Uint64().Draw(t, "e2")
		k1, k2 := appendVersioned(nil, u1, e1), appendVersioned(nil, u2, e2)
		want := bytes.Compare(u1, u2)
		if want == 0 {
			want = cmp.Compare(e2, e1)
		}
		if got := compare(k1, k2); got != want {
			t.Fatalf("compare(%x, %x) = %d, want %d", k1, k2, got, want)
		}
		b2 := appendBound(nil, u2)
		wantBound := bytes.Compare(u1, u2)
		if wantBound == 0 {
			wantBound = 1
		}
		if got := compare(k1, b2); got != wantBound {
			t.Fatalf("compare(%x, bound %x) = %d, want %d", k1, b2, got, wantBound)
		}
		if a1, a2 := abbreviatedKey(k1), abbreviatedKey(k2); (a1 < a2 && want >= 0) || (a1 > a2 && want <= 0) {
			t.Fatalf("abbreviated keys %x, %x disagree with compare %d", a1, a2, want)
		}
		if u, ok := userKey(k1); !ok || !bytes.Equal(u, u1) || versionEpoch(k1) != e1 {
			t.Fatalf("decode %x = %x %v @%d", k1, u, ok, versionEpoch(k1))
		}
	})
}

// TestSeparatorSuccessor checks the contracts Pebble relies on to build
// sstable indexes.
func TestSeparatorSuccessor(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := appendVersioned(nil, userKeyGen.Draw(t, "ua"), rapid.Uint64().Draw(t, "ea"))
		b := appendVersioned(nil, userKeyGen.Draw(t, "ub"), rapid.Uint64().Draw(t, "eb"))
		if compare(a, b) > 0 {
			a, b = b, a
		}
		if compare(a, b) < 0 {
			s := separator(nil, a, b)
			if compare(a, s) > 0 || compare(s, b) >= 0 || validateKey(s) != nil {
				t.Fatalf("separator(%x, %x) = %x", a, b, s)
			}
		}
		s := successor(nil, a)
		if compare(a, s) > 0 || validateKey(s) != nil {
			t.Fatalf("successor(%x) = %x", a, s)
		}
		// The immediate successor of a prefix is a prefix, greater, and no
		// greater than any greater prefix.
		pa, pb := a[:split(a)], b[:split(b)]
		is := immediateSuccessor(nil, pa)
		if compare(pa, is) >= 0 || split(is) != len(is) || (compare(pa, pb) < 0 && compare(is, pb) > 0) {
			t.Fatalf("immediateSuccessor(%x) = %x", pa, is)
		}
	})
}
