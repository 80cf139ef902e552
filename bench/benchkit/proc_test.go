package benchkit

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

// TestParseCPUTimes checks the parsers of a process's CPU time
// (/proc/PID/stat) and the machine's (/proc/stat).
func TestParseCPUTimes(t *testing.T) {
	stat, procStat := parseStatCPU, parseProcStat
	tests := []struct {
		parse func(string) (time.Duration, error)
		text  string
		want  time.Duration
		ok    bool
	}{
		{stat, "1234 (streamdb) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 130 0 0 20 0 12 0 100 0 0", 3800 * time.Millisecond, true},
		// A command name with spaces and parentheses.
		{stat, "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 0 0", 30 * time.Millisecond, true},
		{stat, "7 (short) R 1 2", 0, false},
		{stat, "no name here", 0, false},
		{stat, "7 (x) R 1 7 7 0 -1 0 0 0 0 0 x 2 0 0", 0, false},
		// Idle and I/O wait are not busy.
		{procStat, "cpu  100 5 50 9000 300 10 20 15 0 0\ncpu0 50 2 25 4500 150 5 10 7 0 0\n", 2000 * time.Millisecond, true},
		{procStat, "cpu  1 2 3\n", 0, false},
		{procStat, "intr 1 2 3 4 5 6 7 8 9\n", 0, false},
		{procStat, "cpu  1 2 3 4 5 x 7 8\n", 0, false},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.text)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parsing %q = %v, %v; want %v (ok %v)", tt.text, got, err, tt.want, tt.ok)
		}
	}
}

func TestParseStatusHWM(t *testing.T) {
	tests := []struct {
		status string
		want   int64
		ok     bool
	}{
		{"Name:\tstreamdb\nVmPeak:\t  900000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40000 kB\n", 51200 << 10, true},
		{"Name:\tx\nVmRSS:\t 1 kB\n", 0, false},
		{"VmHWM:\t 12 MB\n", 0, false},
	}
	for _, tt := range tests {
		got, err := parseStatusHWM(bufio.NewScanner(strings.NewReader(tt.status)))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseStatusHWM(%q) = %d, %v; want %d (ok %v)", tt.status, got, err, tt.want, tt.ok)
		}
	}
}

// TestProcOfSelf reads this test process's own figures and the machine's.
func TestProcOfSelf(t *testing.T) {
	if _, err := CPUTime(os.Getpid()); err != nil {
		t.Error(err)
	}
	if rss, err := PeakRSS(os.Getpid()); err != nil || rss <= 0 {
		t.Errorf("PeakRSS = %d, %v", rss, err)
	}
	if busy, err := MachineCPU(); err != nil || busy <= 0 {
		t.Errorf("MachineCPU = %v, %v", busy, err)
	}
}
