package dataflow

import "testing"

// TestHeapBudget checks how the cache's budget in force follows the live
// heap: down by the excess over two thirds of the memory limit (no lower
// than half the configured budget), back up by half the room,
// never above the configured budget, and the configured one without a
// limit.
func TestHeapBudget(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name                                   string
		configured, inForce, used, live, limit int64
		want                                   int64
	}{
		{name: "no limit", configured: 256 * mib, inForce: 100 * mib, used: 50 * mib, live: 900 * mib, limit: 1<<63 - 1, want: 256 * mib},
		{name: "room: back up by half", configured: 256 * mib, inForce: 130 * mib, used: 90 * mib, live: 200 * mib, limit: 384 * mib, want: 158 * mib},
		{name: "room: up to the configured", configured: 256 * mib, inForce: 250 * mib, used: 90 * mib, live: 100 * mib, limit: 384 * mib, want: 256 * mib},
		{name: "over: down by the excess from what is used", configured: 256 * mib, inForce: 256 * mib, used: 200 * mib, live: 276 * mib, limit: 384 * mib, want: 180 * mib},
		{name: "over: down from the budget in force", configured: 256 * mib, inForce: 150 * mib, used: 200 * mib, live: 266 * mib, limit: 384 * mib, want: 140 * mib},
		{name: "over: not below half", configured: 256 * mib, inForce: 256 * mib, used: 40 * mib, live: 600 * mib, limit: 384 * mib, want: 128 * mib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := heapBudget(tc.configured, tc.inForce, tc.used, tc.live, tc.limit); got != tc.want {
				t.Fatalf("heapBudget = %d MiB, want %d MiB", got/mib, tc.want/mib)
			}
		})
	}
}
