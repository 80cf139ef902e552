package main

import (
	"runtime/debug"
	"testing"
)

// TestMemoryLimit checks that the soft memory limit follows the state
// cache: the cache and half as much again, at least 192 MiB again, with
// Pebble's two memtables (node.StoreOptions) taken off.
func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ cache, want int64 }{
		{256 * mib, 256*mib + 192*mib - 2*32*mib},
		{1024 * mib, 1024*mib + 512*mib - 2*64*mib},
		{64 * mib, 64*mib + 192*mib - 2*8*mib},
	} {
		if got := memoryLimit(tc.cache); got != tc.want {
			t.Errorf("memoryLimit(%d MiB) = %d MiB, want %d MiB", tc.cache/mib, got/mib, tc.want/mib)
		}
	}
}

// TestTuneMemory checks that GOGC and GOMEMLIMIT win over the defaults and
// that the values in force are reported, the collector left running.
func TestTuneMemory(t *testing.T) {
	gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) }()
	const mib = 1 << 20
	if gogc, lim := tuneMemory(256 * mib); gogc != defaultGCPercent || lim != memoryLimit(256*mib) {
		t.Errorf("defaults: GOGC %d, limit %d MiB; want %d and %d MiB", gogc, lim/mib, defaultGCPercent, memoryLimit(256*mib)/mib)
	}
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(1024 * mib)
	if gogc, lim := tuneMemory(256 * mib); gogc != 150 || lim != 1024*mib || debug.SetGCPercent(150) != 150 {
		t.Errorf("with GOGC=150 and GOMEMLIMIT=1GiB: GOGC %d, limit %d MiB", gogc, lim/mib)
	}
}
