package node

import (
	"os"
	"strconv"
	"strings"
)

// minStateCache is the smallest default state cache.
const minStateCache int64 = 256 << 20

// defaultStateCache is the state cache a node gets unless configured: an
// eighth of the memory it may use (the machine's, or its cgroup's limit if
// lower), and at least minStateCache. A fixed small default would push
// state to Pebble on machines with memory to spare; peers size their
// operator caches as a share of memory too.
func defaultStateCache() int64 {
	return max(minStateCache, usableMemory()/8)
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
