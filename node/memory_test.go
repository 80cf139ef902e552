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
