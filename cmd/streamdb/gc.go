package main

import (
	"os"
	"runtime/debug"
)

// defaultGCPercent is the garbage collector's target for a server unless
// the GOGC environment variable sets one. The operator state cache is a
// large, long-lived heap (up to an eighth of memory by default) that every
// collection marks again; Go's default of 100 starts one each time the
// heap grows by its live size, which under a fast write load spends a
// quarter of the CPU marking the cache. At 200 collections run half as
// often for about a third more peak memory.
const defaultGCPercent = 200

// tuneGC sets the garbage collector's target to defaultGCPercent unless
// GOGC is set.
func tuneGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(defaultGCPercent)
	}
}
