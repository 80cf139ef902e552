package dataflow

import (
	"math"
	"sync"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Watermark alignment. The actors of a source read their splits each at
// its own pace, and nothing ties their event times together: on a busy
// node one split's actor can run minutes of event time ahead of
// another's. Downstream, a window or an interval join keeps its state
// until the watermark merged over every actor (the lowest) passes it, so
// the state grows with the gap: Nexmark q7 at parallelism 2 held six
// times the state of parallelism 1. As Flink's watermark alignment does,
// a source actor whose watermark is more than maxDrift ahead of the
// lowest of the job's other actors on this node holds back (still passing
// barriers) until they catch up. Only actors that are reading count: one
// with nothing due (an idle or finished split) does not hold back the
// others. Actors on other nodes are not aligned.

// maxDrift is how far in event time a source actor may run ahead of the
// slowest of its job's actors on the node.
const maxDrift = time.Second

// alignPoll is how long a held-back source actor waits before it looks
// again (barriers and other messages wake it sooner).
const alignPoll = time.Millisecond

// alignGroup is one source job's actors on a node.
type alignGroup struct {
	mu      sync.Mutex
	members map[*alignMember]struct{}
}

// alignMember is one actor's part in its group: its watermark in
// microseconds of event time (math.MinInt64: none yet) and whether it is
// reading.
type alignMember struct {
	group   *alignGroup
	wm      int64
	reading bool
}

// join adds a member to g (nil for a nil group: no alignment).
func (g *alignGroup) join() *alignMember {
	if g == nil {
		return nil
	}
	m := &alignMember{group: g, wm: math.MinInt64}
	g.mu.Lock()
	if g.members == nil {
		g.members = map[*alignMember]struct{}{}
	}
	g.members[m] = struct{}{}
	g.mu.Unlock()
	return m
}

// leave removes m from its group.
func (m *alignMember) leave() {
	if m == nil {
		return
	}
	m.group.mu.Lock()
	delete(m.group.members, m)
	m.group.mu.Unlock()
}

// advance records m's watermark, when it is a timestamp.
func (m *alignMember) advance(w types.Datum) {
	if m == nil || w.Kind() != types.KindTimestamp && w.Kind() != types.KindTimestampTZ {
		return
	}
	m.group.mu.Lock()
	m.wm = w.Micros()
	m.group.mu.Unlock()
}

// setReading records whether m's actor has rows due.
func (m *alignMember) setReading(reading bool) {
	if m == nil || m.reading == reading {
		return
	}
	m.group.mu.Lock()
	m.reading = reading
	m.group.mu.Unlock()
}

// ahead reports whether m's watermark is more than maxDrift ahead of the
// lowest of the group's other reading members that have one.
func (m *alignMember) ahead() bool {
	if m == nil {
		return false
	}
	g := m.group
	g.mu.Lock()
	defer g.mu.Unlock()
	if m.wm == math.MinInt64 {
		return false
	}
	for o := range g.members {
		if o != m && o.reading && o.wm != math.MinInt64 && m.wm-o.wm > maxDrift.Microseconds() {
			return true
		}
	}
	return false
}
