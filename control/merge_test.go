package control

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestMergePairs checks that sources in key order merge into one stream
// in key order with every pair, and that an error of fn or of a source
// ends the merge with it.
func TestMergePairs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfDistinct(rapid.SliceOfN(rapid.Byte(), 1, 4), func(k []byte) string { return string(k) }).Draw(t, "keys")
		n := rapid.IntRange(1, 4).Draw(t, "sources")
		parts := make([][][]byte, n)
		for _, k := range keys {
			i := rapid.IntRange(0, n-1).Draw(t, "source")
			parts[i] = append(parts[i], k)
		}
		var sources []func() ([]byte, []byte, bool, error)
		for _, p := range parts {
			slices.SortFunc(p, bytes.Compare)
			sources = append(sources, func() ([]byte, []byte, bool, error) {
				if len(p) == 0 {
					return nil, nil, false, nil
				}
				k := p[0]
				p = p[1:]
				return k, append([]byte("v"), k...), true, nil
			})
		}
		var got [][]byte
		if err := mergePairs(sources, func(k, v []byte) error {
			if !bytes.Equal(v, append([]byte("v"), k...)) {
				t.Fatalf("key %q came with value %q", k, v)
			}
			got = append(got, k)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(keys)
		slices.SortFunc(want, bytes.Compare)
		if !slices.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("merged %q, want %q", got, want)
		}
	})
	stop := errors.New("stop")
	one := func() func() ([]byte, []byte, bool, error) {
		done := false
		return func() ([]byte, []byte, bool, error) {
			if done {
				return nil, nil, false, stop
			}
			done = true
			return []byte("a"), nil, true, nil
		}
	}
	if err := mergePairs([]func() ([]byte, []byte, bool, error){one()}, func([]byte, []byte) error { return nil }); err != stop {
		t.Errorf("a source's error: %v", err)
	}
	if err := mergePairs([]func() ([]byte, []byte, bool, error){one()}, func([]byte, []byte) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}
