package control

import (
	"testing"
	"time"
)

// TestCollectHorizon checks that the horizon is the newest epoch committed
// at least collectLag ago, and that older samples are dropped.
func TestCollectHorizon(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration, epoch uint64) committedAt { return committedAt{t0.Add(d), epoch} }
	seen := []committedAt{at(0, 3), at(collectLag/4, 5), at(collectLag/2, 8), at(3*collectLag/2, 12)}
	for _, c := range []struct {
		now  time.Duration
		want uint64
		kept int
	}{
		{collectLag / 2, 0, 4},
		{collectLag, 3, 4},
		{5 * collectLag / 4, 5, 3},
		{3 * collectLag, 12, 1},
	} {
		kept, h := collectHorizon(seen, t0.Add(c.now))
		if h != c.want || len(kept) != c.kept {
			t.Errorf("at %v: horizon %d with %d samples kept, want %d with %d", c.now, h, len(kept), c.want, c.kept)
		}
	}
}
