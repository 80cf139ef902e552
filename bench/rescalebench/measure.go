package rescalebench

import (
	"time"

	"github.com/streamdb/streamdb/latency"
)

// sample is one writer statement: its rows were due at due (the events'
// time; a writer behind its schedule sends at once but keeps the due
// time, so a stall is charged to every event it delayed), sent at sent
// and acknowledged at done, when their epoch was committed and they were
// visible in the view.
type sample struct {
	due, sent, done time.Time
	rows            int
	// failed says the statement returned an error.
	failed bool
}

// latency is the sample's end-to-end latency: from due to visible.
func (s sample) latency() time.Duration { return s.done.Sub(s.due) }

// span is the time from from to to.
type span struct{ from, to time.Time }

// contains reports whether t is in [from, to).
func (w span) contains(t time.Time) bool { return !t.Before(w.from) && t.Before(w.to) }

// overlaps reports whether [a, b] meets the span.
func (w span) overlaps(a, b time.Time) bool { return a.Before(w.to) && b.After(w.from) }

// phaseStats are the figures of one phase's statements.
type phaseStats struct {
	// Latency summarizes the successful statements' end-to-end latency.
	Latency latency.Summary
	// InsertMax is the longest time one INSERT took (from sent to done),
	// without the wait behind the writer's schedule.
	InsertMax time.Duration
	// Failed counts the statements that returned an error.
	Failed int
}

// statsOf summarizes the samples that in reports as belonging to a phase.
func statsOf(samples []sample, in func(sample) bool) phaseStats {
	var h latency.Histogram
	var st phaseStats
	for _, s := range samples {
		if !in(s) {
			continue
		}
		if s.failed {
			st.Failed++
			continue
		}
		h.Record(s.latency())
		st.InsertMax = max(st.InsertMax, s.done.Sub(s.sent))
	}
	st.Latency = h.Summary()
	return st
}

// steadyStats summarizes the statements due and done within w.
func steadyStats(samples []sample, w span) phaseStats {
	return statsOf(samples, func(s sample) bool { return !s.due.Before(w.from) && !s.done.After(w.to) })
}

// rescaleStats summarizes the statements in flight at some time of w,
// from due to done: those the rescale could have delayed.
func rescaleStats(samples []sample, w span) phaseStats {
	return statsOf(samples, func(s sample) bool { return w.overlaps(s.due, s.done) })
}

// committedRows counts the rows of the successful statements acknowledged
// within w.
func committedRows(samples []sample, w span) int64 {
	var n int64
	for _, s := range samples {
		if !s.failed && w.contains(s.done) {
			n += int64(s.rows)
		}
	}
	return n
}

// rowsPerSecond is the rate of rows acknowledged within w.
func rowsPerSecond(samples []sample, w span) float64 {
	d := w.to.Sub(w.from)
	if d <= 0 {
		return 0
	}
	return float64(committedRows(samples, w)) / d.Seconds()
}

// dipWindow is the width of the windows whose throughput a rescale's dip
// compares with the steady rate.
const dipWindow = 500 * time.Millisecond

// throughputDip returns by how many percent the lowest throughput over a
// window of width width, of those tiling during from its start (the last
// one may reach past its end), fell below the mean rate over steady: 0
// when it did not fall, 100 when nothing was acknowledged in a window.
func throughputDip(samples []sample, steady, during span, width time.Duration) float64 {
	mean := rowsPerSecond(samples, steady)
	if mean <= 0 || width <= 0 {
		return 0
	}
	lowest := -1.0
	for at := during.from; at.Before(during.to); at = at.Add(width) {
		r := rowsPerSecond(samples, span{at, at.Add(width)})
		if lowest < 0 || r < lowest {
			lowest = r
		}
	}
	if lowest < 0 {
		return 0
	}
	return max(0, 100*(1-lowest/mean))
}

// longestGap returns the longest time between successive visible changes
// (changes, in order) that overlaps w: how long a reader of the view saw
// nothing new.
func longestGap(changes []time.Time, w span) time.Duration {
	var longest time.Duration
	for i := 1; i < len(changes); i++ {
		if a, b := changes[i-1], changes[i]; w.overlaps(a, b) {
			longest = max(longest, b.Sub(a))
		}
	}
	return longest
}

// readStats summarizes how long the reads that overlap w took.
func readStats(reads []span, w span) latency.Summary {
	var h latency.Histogram
	for _, r := range reads {
		if w.overlaps(r.from, r.to) {
			h.Record(r.to.Sub(r.from))
		}
	}
	return h.Summary()
}
