package node

import (
	"os"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/storage"
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
// again, at least 192 MiB), so the default leaves a laptop's memory to its
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

// StoreOptions sizes the state store's memory, outside the Go heap, from
// the state cache: a memtable of an eighth of the cache (Pebble holds two
// while one flushes) and a block cache of a quarter, each at most its
// default and at least minStoreMemory. A server with a cache of 512 MiB or
// more gets the defaults; a small one keeps its whole process near twice
// its cache (memtables at 64 MiB beside a 256 MiB cache were a quarter of
// the server's memory).
func StoreOptions(stateCache int64) storage.Options {
	return storage.Options{
		MemTableSize: uint64(min(storage.DefaultMemTableSize, max(minStoreMemory, stateCache/8))),
		CacheSize:    min(storage.DefaultCacheSize, max(minStoreMemory, stateCache/4)),
	}
}

// minStoreMemory is the least memory StoreOptions gives a memtable or the
// block cache.
const minStoreMemory = 8 << 20
