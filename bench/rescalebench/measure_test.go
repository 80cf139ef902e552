package rescalebench

import (
	"testing"
	"time"
)

// at is a time ms milliseconds after an arbitrary origin.
func at(ms float64) time.Time {
	return time.Unix(1_000_000, 0).Add(time.Duration(ms * float64(time.Millisecond)))
}

// stmt is a successful statement of 10 rows due at due, sent at sent and
// done at done (in ms).
func stmt(due, sent, done float64) sample {
	return sample{due: at(due), sent: at(sent), done: at(done), rows: 10}
}

func TestPhaseStats(t *testing.T) {
	samples := []sample{
		stmt(0, 0, 2),
		stmt(10, 10, 14),
		stmt(95, 95, 105),   // done after the steady window: in the rescale's
		stmt(120, 120, 400), // in flight during the rescale
		stmt(100, 300, 310), // behind its schedule: latency from due
		{due: at(130), sent: at(130), done: at(135), rows: 10, failed: true},
		stmt(600, 600, 602), // after the rescale
	}
	steady, during := span{at(0), at(100)}, span{at(100), at(500)}
	st := steadyStats(samples, steady)
	if st.Latency.Count != 2 || st.Latency.Max != 4*time.Millisecond || st.Failed != 0 {
		t.Errorf("steady: %+v, want 2 statements, max 4ms", st)
	}
	re := rescaleStats(samples, during)
	if re.Latency.Count != 3 || re.Latency.Max != 280*time.Millisecond || re.Failed != 1 {
		t.Errorf("rescale: %+v, want 3 statements, max 280ms, 1 failed", re)
	}
	// The longest INSERT leaves out the wait behind the schedule.
	if re.InsertMax != 280*time.Millisecond {
		t.Errorf("rescale insert max %v, want 280ms", re.InsertMax)
	}
	if n := committedRows(samples, span{at(0), at(400)}); n != 40 {
		t.Errorf("committedRows = %d, want 40 (the failed statement and those done at 400 ms or later not counted)", n)
	}
	if r := rowsPerSecond(samples, steady); r != 200 {
		t.Errorf("rowsPerSecond = %v, want 200", r)
	}
}

// steadyRows are 10 rows acknowledged every 10 ms from 0 to 1000 ms, and
// a stall from 1000 to 1300 ms, then the same rate again until 3000 ms.
func steadyRows() []sample {
	var s []sample
	for ms := 0.0; ms < 3000; ms += 10 {
		if ms >= 1000 && ms < 1300 {
			continue
		}
		s = append(s, stmt(ms, ms, ms+1))
	}
	return s
}

func TestThroughputDip(t *testing.T) {
	samples := steadyRows()
	steady := span{at(0), at(1000)}
	tests := []struct {
		name   string
		during span
		width  time.Duration
		want   float64
	}{
		// The window 1000-1500 ms acknowledged 200 of 500 rows.
		{"stall in the first window", span{at(1000), at(1600)}, 500 * time.Millisecond, 60},
		// A window reaching past the end of the rescale is still full.
		{"short rescale", span{at(1000), at(1010)}, 500 * time.Millisecond, 60},
		{"no stall", span{at(2000), at(2900)}, 500 * time.Millisecond, 0},
		{"nothing acknowledged", span{at(1000), at(1100)}, 250 * time.Millisecond, 100},
		{"empty span", span{at(1000), at(1000)}, 500 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		if got := throughputDip(samples, steady, tt.during, tt.width); got < tt.want-0.01 || got > tt.want+0.01 {
			t.Errorf("%s: dip %.2f%%, want %.2f%%", tt.name, got, tt.want)
		}
	}
	if got := throughputDip(nil, steady, span{at(1000), at(1500)}, dipWindow); got != 0 {
		t.Errorf("no steady rate: dip %v, want 0", got)
	}
}

func TestLongestGap(t *testing.T) {
	changes := []time.Time{at(0), at(10), at(20), at(500), at(510), at(900), at(905)}
	tests := []struct {
		w    span
		want time.Duration
	}{
		{span{at(0), at(15)}, 10 * time.Millisecond},
		// A gap that goes on after the window counts.
		{span{at(0), at(30)}, 480 * time.Millisecond},
		// A gap that began before the window counts.
		{span{at(100), at(200)}, 480 * time.Millisecond},
		{span{at(505), at(1000)}, 390 * time.Millisecond},
		{span{at(2000), at(3000)}, 0},
	}
	for _, tt := range tests {
		if got := longestGap(changes, tt.w); got != tt.want {
			t.Errorf("longestGap in %v-%v = %v, want %v", tt.w.from, tt.w.to, got, tt.want)
		}
	}
}

func TestReadStats(t *testing.T) {
	reads := []span{{at(0), at(1)}, {at(5), at(6)}, {at(10), at(400)}, {at(405), at(406)}}
	got := readStats(reads, span{at(100), at(500)})
	if got.Count != 2 || got.Max != 390*time.Millisecond {
		t.Errorf("readStats = %+v, want 2 reads, max 390ms", got)
	}
}
