package node

import "testing"

// TestDefaultStateCache checks the default cache's bounds: a sixteenth of
// the usable memory, between 256 MiB and 1 GiB, whatever the machine.
func TestDefaultStateCache(t *testing.T) {
	got := DefaultStateCache()
	if got < minStateCache || got > maxStateCache {
		t.Fatalf("DefaultStateCache() = %d MiB, want between %d and %d MiB", got>>20, minStateCache>>20, maxStateCache>>20)
	}
	if mem := usableMemory(); mem/16 >= minStateCache && mem/16 <= maxStateCache && got != mem/16 {
		t.Fatalf("DefaultStateCache() = %d MiB with %d MiB usable, want a sixteenth", got>>20, mem>>20)
	}
}

// TestStoreOptions checks that the store's memtable and block cache follow
// the state cache: an eighth and a quarter of it, at most Pebble's
// defaults here, at least 8 MiB.
func TestStoreOptions(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		cache                int64
		memtable, blockCache int64
	}{
		{256 * mib, 32 * mib, 64 * mib},
		{1024 * mib, 64 * mib, 128 * mib},
		{512 * mib, 64 * mib, 128 * mib},
		{32 * mib, 8 * mib, 8 * mib},
	} {
		o := StoreOptions(tc.cache)
		if int64(o.MemTableSize) != tc.memtable || o.CacheSize != tc.blockCache {
			t.Errorf("StoreOptions(%d MiB): memtable %d MiB, block cache %d MiB; want %d and %d MiB",
				tc.cache/mib, o.MemTableSize/mib, o.CacheSize/mib, tc.memtable/mib, tc.blockCache/mib)
		}
	}
}
