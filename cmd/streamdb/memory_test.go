package main

import "testing"

// TestMemoryLimit checks that the soft memory limit follows the state
// cache: the cache and half as much again, at least 256 MiB again, with
// Pebble's memtable taken off.
func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ cache, want int64 }{
		{256 * mib, 448 * mib},
		{1024 * mib, 1472 * mib},
		{64 * mib, 256 * mib},
	} {
		if got := memoryLimit(tc.cache); got != tc.want {
			t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", tc.cache/mib, got/mib, tc.want/mib)
		}
	}
}
