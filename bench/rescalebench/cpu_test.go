package rescalebench

import (
	"testing"
	"time"
)

func TestCores(t *testing.T) {
	a := cpuMark{at: at(0), machine: 10 * time.Second, server: 4 * time.Second, self: time.Second}
	b := cpuMark{at: at(2000), machine: 13 * time.Second, server: 5 * time.Second, self: 1500 * time.Millisecond}
	// Over 2 s the machine used 3 s of CPU, the server 1 s, the bench 0.5 s.
	if srv, others := cores(a, b); srv != 0.5 || others != 0.75 {
		t.Errorf("cores = %v, %v; want 0.5, 0.75", srv, others)
	}
	if srv, others := cores(a, a); srv != 0 || others != 0 {
		t.Errorf("cores over no time = %v, %v; want 0, 0", srv, others)
	}
}
