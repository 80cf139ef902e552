package control

import (
	"errors"
	"testing"

	"github.com/streamdb/streamdb/meta"
)

// TestRescaleRegistry: a job is refused a second rescale while one moves,
// and may rescale again once it ended; SHOW JOBS sees the latest.
func TestRescaleRegistry(t *testing.T) {
	s := &Streaming{rescales: map[uint32]*Rescaling{}}
	view := &meta.Table{ID: 7, Name: "v", Kind: meta.KindMaterializedView}
	plan := &meta.Rescale{Target: []int{0, 1, 2, 2}, Strategy: StrategyFluid, From: 2}
	r, err := s.beginRescale(t.Context(), view, plan, true)
	if err != nil {
		t.Fatal(err)
	}
	r.set(func(p *RescaleProgress) { p.VNodesTotal, p.VNodesMoved = 2, 1 })
	var busy *RescalingError
	if _, err := s.beginRescale(t.Context(), view, plan, true); !errors.As(err, &busy) ||
		busy.Progress.To != 3 || busy.Progress.VNodesMoved != 1 || busy.Progress.Phase != phaseMoving {
		t.Fatalf("second rescale while moving: %v", err)
	}
	r.finish(errors.New("boom"))
	<-r.Done()
	if jobs := s.RescaleJobs(); len(jobs) != 1 || jobs[0].Phase != phaseFailed || jobs[0].Error != "boom" || r.Err() == nil {
		t.Fatalf("after failing: %+v", jobs)
	}
	again, err := s.beginRescale(t.Context(), view, plan, true)
	if err != nil {
		t.Fatalf("a rescale after a failed one: %v", err)
	}
	again.finish(nil)
	if jobs := s.RescaleJobs(); len(jobs) != 1 || jobs[0].Phase != phaseDone || jobs[0].Error != "" || again.Err() != nil {
		t.Fatalf("after moving: %+v", jobs)
	}
}
