package main

import "testing"

// TestMemoryLimit checks that the soft memory limit follows the state
// cache: 1.5 times it with Pebble's memtable taken off, never below the
// cache itself.
func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ cache, want int64 }{
		{256 * mib, 320 * mib},
		{1024 * mib, 1472 * mib},
		{64 * mib, 64 * mib},
	} {
		if got := memoryLimit(tc.cache); got != tc.want {
			t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", tc.cache/mib, got/mib, tc.want/mib)
		}
	}
}
