package node

import (
	"os"
	"strconv"
	"strings"
)

// Bounds of the default state cache.
const (
	minStateCache int64 = 256 << 20
	maxStateCache int64 = 1 << 30
)

// DefaultStateCache is the state cache a node gets unless configured: a
// sixteenth of the memory it may use (the machine's, or its cgroup's limit
// if lower), between 256 MiB and 1 GiB. The server's whole memory follows
// the cache (cmd/streamdb's memory limit: the cache and half as much
// again, at least 256 MiB), so the default leaves a laptop's memory to its
// other programs; state beyond the cache stays in Pebble and its block
// cache. Larger machines running big views set --state-cache-mb.
func DefaultStateCache() int64 {
	return min(maxStateCache, max(minStateCache, usableMemory()/16))
}

// usableMemory returns the memory available to the process in bytes, 0 if
// unknown.
func usableMemory() int64 {
	total := physicalMemory()
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if limit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && (total == 0 || limit < total) {
			total = limit
		}
	}
	return total
}
