//go:build !linux

package node

// physicalMemory returns 0: unknown outside Linux, where the default state
// cache is its minimum.
func physicalMemory() int64 { return 0 }
