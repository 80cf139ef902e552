package main

import (
	"os"
	"runtime/debug"

	"github.com/streamdb/streamdb/node"
)

// defaultGCPercent is the garbage collector's target for a server unless
// the GOGC environment variable sets one. The operator state cache is a
// large, long-lived heap that every collection marks again; Go's default of
// 100 starts one each time the heap grows by its live size, which under a
// fast write load spends a quarter of the CPU marking the cache. At 200
// collections run half as often; the memory limit (memoryLimit) keeps the
// extra garbage from growing the process once the heap nears it.
const defaultGCPercent = 200

// memoryLimit is the Go runtime's soft memory limit for a server whose
// state cache is cacheBytes: the cache, and for everything else (rows in
// flight, staged writes, join indexes, sessions) half as much again, at
// least minWorkingSet, less Pebble's memtables, which live outside the Go
// heap (the active one and the one Pebble keeps to reuse after a flush).
// The working set does not shrink with the cache, and a limit the live
// heap nearly fills makes the collector run without pause (Nexmark q7 with
// 256 MiB of cache and 64 MiB of room ran at a quarter of its speed). Near
// the limit the collector runs more often instead of letting garbage grow
// the heap to three times what is live (GOGC=200), so the process follows
// the cache, not the event rate: with 256 MiB of cache, q5 and q7 peak
// under 512 MiB. A heap whose live data exceeds the limit is not refused
// memory: the limit is soft, and the collector then takes at most half the
// CPU.
func memoryLimit(cacheBytes int64) int64 {
	return cacheBytes + max(cacheBytes/2, minWorkingSet) - 2*int64(node.StoreOptions(cacheBytes).MemTableSize)
}

// minWorkingSet is the least memory a server's limit leaves beside its
// state cache.
const minWorkingSet = 192 << 20

// tuneMemory sets the collector's target to defaultGCPercent unless GOGC
// is set, and the soft memory limit to memoryLimit(cacheBytes) unless
// GOMEMLIMIT is set; it returns the target and the limit in force.
func tuneMemory(cacheBytes int64) (gcPercent int, limit int64) {
	gcPercent = defaultGCPercent
	if _, ok := os.LookupEnv("GOGC"); ok {
		gcPercent = debug.SetGCPercent(defaultGCPercent) // GOGC's, put back below
	}
	debug.SetGCPercent(gcPercent)
	if _, ok := os.LookupEnv("GOMEMLIMIT"); !ok {
		debug.SetMemoryLimit(memoryLimit(cacheBytes))
	}
	return gcPercent, debug.SetMemoryLimit(-1)
}
