package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
)

// Phases of a rescale (RescaleProgress.Phase).
const (
	phaseMoving = "moving"
	phaseDone   = "done"
	phaseFailed = "failed"
)

// RescaleProgress is a job's rescale: where it stands or how it ended.
type RescaleProgress struct {
	Job      uint32
	Name     string
	Strategy string
	// Phase is moving, done or failed (Error says why).
	Phase    string
	From, To int
	// VNodesMoved of VNodesTotal have changed owner, in StepsDone of
	// StepsTotal switch steps; BytesMoved estimates their state's bytes in
	// storage and CacheBytesMoved the cached state their new owners got
	// at the switches (handed over, or loaded with cache = 'eager').
	VNodesMoved, VNodesTotal    int
	StepsDone, StepsTotal       int
	BytesMoved, CacheBytesMoved int64
	// Moves are the vnodes and bytes moved between each pair of nodes so
	// far (none on one node: state changes owner in place); MoveTime is
	// the time spent moving them: pre-copies and the switches that moved
	// vnodes between nodes (not the pauses between steps).
	Moves    []MoveProgress
	MoveTime time.Duration
	Elapsed  time.Duration
	Error    string
}

// MoveProgress is what a rescale moved from one node to another: vnodes,
// and the bytes of their state copied (pre-copies and switch deltas).
type MoveProgress struct {
	From, To string
	VNodes   int
	Bytes    int64
}

// addMove adds vnodes and bytes moved from one node to another to p.
func (p *RescaleProgress) addMove(from, to string, vnodes int, bytes int64) {
	for i := range p.Moves {
		if p.Moves[i].From == from && p.Moves[i].To == to {
			p.Moves[i].VNodes += vnodes
			p.Moves[i].Bytes += bytes
			return
		}
	}
	p.Moves = append(p.Moves, MoveProgress{From: from, To: to, VNodes: vnodes, Bytes: bytes})
}

// Rescaling is a job's latest rescale as this node runs it: its progress
// (SHOW JOBS) and its end, which the statement that began it may wait for.
type Rescaling struct {
	mu       sync.Mutex
	info     RescaleProgress
	started  time.Time
	finished time.Time
	done     chan struct{}
	err      error
}

// Done returns a channel closed once the rescale ends: every vnode moved,
// or failed (Err).
func (r *Rescaling) Done() <-chan struct{} { return r.done }

// Err returns, once Done is closed, why the rescale failed (nil: it
// moved every vnode).
func (r *Rescaling) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// progress returns the rescale's figures now.
func (r *Rescaling) progress() RescaleProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.info
	p.Moves = slices.Clone(p.Moves)
	end := r.finished
	if end.IsZero() {
		end = time.Now()
	}
	p.Elapsed = end.Sub(r.started)
	return p
}

// set updates the rescale's figures with fn.
func (r *Rescaling) set(fn func(p *RescaleProgress)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(&r.info)
}

// finish ends the rescale: done, or failed with err.
func (r *Rescaling) finish(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.info.Phase, r.err = phaseDone, err
	if err != nil {
		r.info.Phase, r.info.Error = phaseFailed, err.Error()
	}
	r.finished = time.Now()
	close(r.done)
}

// RescalingError refuses to begin a rescale of a job whose previous one
// is still moving.
type RescalingError struct {
	// Progress is where the running rescale stands.
	Progress RescaleProgress
}

// Error implements error.
func (e *RescalingError) Error() string {
	return fmt.Sprintf("%q is already being rescaled (to parallelism %d, %d of %d vnodes moved)",
		e.Progress.Name, e.Progress.To, e.Progress.VNodesMoved, e.Progress.VNodesTotal)
}

// Rescale begins the rescale plan of t's job, whose target rebalances the
// job's current vnode owners (Owners): it records plan in the catalog and
// moves the vnodes in the background, step by step, each step's
// assignment recorded with its checkpoint; vnodes that change node have
// their state copied there (DESIGN.md §6). It runs to its end whatever
// happens to ctx: a canceled statement stops waiting, not moving. A
// source's splits go with their vnodes, offsets included. A job already
// rescaling is refused (a *RescalingError).
func (s *Streaming) Rescale(ctx context.Context, t *meta.Table, plan *meta.Rescale) (*Rescaling, error) {
	r, err := s.beginRescale(ctx, t, plan, false)
	if err != nil {
		return nil, err
	}
	go s.runRescale(s.ctx, t, plan, r)
	return r, nil
}

// Placement returns the node of each actor slot of t's job as its actors
// run now (the catalog records it only as steps commit), slot 0 on the
// job's first node.
func (s *Streaming) Placement(t *meta.Table) []string {
	home := JobPlacement(s.meta.Catalog(), t)
	out := s.rt.Placement(t.ID)
	if len(out) == 0 {
		return home
	}
	for i := range out {
		if out[i] == "" || i == 0 {
			out[i] = home[0]
		}
	}
	return out
}

// RescaleJobs returns the latest rescale of each job since the node
// started, running or finished.
func (s *Streaming) RescaleJobs() []RescaleProgress {
	s.rescaleMu.Lock()
	defer s.rescaleMu.Unlock()
	out := make([]RescaleProgress, 0, len(s.rescales))
	for _, r := range s.rescales {
		out = append(out, r.progress())
	}
	return out
}

// beginRescale records plan as t's rescale in the catalog (unless it
// resumes the one recorded) and registers its progress; a job already
// rescaling is refused.
func (s *Streaming) beginRescale(ctx context.Context, t *meta.Table, plan *meta.Rescale, resume bool) (*Rescaling, error) {
	s.rescaleMu.Lock()
	if p, ok := s.movingLocked(t.ID); ok {
		s.rescaleMu.Unlock()
		return nil, &RescalingError{Progress: p}
	}
	r := &Rescaling{started: time.Now(), done: make(chan struct{}), info: RescaleProgress{
		Job: t.ID, Name: t.Name, Strategy: plan.Strategy, Phase: phaseMoving, From: plan.From, To: meta.Slots(plan.Target)}}
	s.rescales[t.ID] = r
	s.rescaleMu.Unlock()
	if !resume {
		plan.Runner = s.meta.NodeID()
		if err := s.meta.BeginRescale(ctx, t.ID, plan); err != nil {
			r.finish(err)
			return nil, err
		}
	}
	return r, nil
}

// movingLocked returns the progress of job's rescale if this node runs
// one that is still moving (call with rescaleMu held).
func (s *Streaming) movingLocked(job uint32) (RescaleProgress, bool) {
	if r := s.rescales[job]; r != nil {
		if p := r.progress(); p.Phase == phaseMoving {
			return p, true
		}
	}
	return RescaleProgress{}, false
}

// runRescale moves t's job from its current assignment to plan's target,
// one switch at a time as rescaleSteps decides, and records the outcome
// in r; a step that fails because the cluster recovered (a node died or
// restarted) does not end it: it goes on from the last committed step
// once the job runs again.
func (s *Streaming) runRescale(ctx context.Context, t *meta.Table, plan *meta.Rescale, r *Rescaling) (err error) {
	defer func() {
		if err != nil {
			s.endRescale(t)
		}
		r.finish(err)
	}()
	for attempt := 1; ; attempt++ {
		fence := s.ctrl.Worker().currentFence()
		err = s.moveSteps(ctx, t, plan, r)
		if err == nil || !resumable(err) || attempt == rescaleAttempts || ctx.Err() != nil {
			return err
		}
		// A node died or restarted mid-rescale: the cluster recovers with
		// the owners of the last committed step, and the rescale goes on
		// from there once the job runs again.
		s.opts.Logger.Warn("control: a rescale step failed; going on once the cluster's jobs run again", "relation", t.Name, "attempt", attempt, "err", err)
		if werr := s.waitRecovered(ctx, fence, t.ID, recoveryGrace); werr != nil {
			return err
		}
	}
}

// endRescale forgets in the catalog the rescale of t's job this node ran,
// which failed, so that any node may rescale the job again (a rescale
// recorded as this node's blocks the others until it ends). Until the
// catalog takes it (no leader for a while), this node alone may.
func (s *Streaming) endRescale(t *meta.Table) {
	for try := 0; try < 10; try++ {
		err := s.meta.EndRescale(s.ctx, t.ID, s.meta.NodeID())
		if err == nil || s.ctx.Err() != nil {
			return
		}
		s.opts.Logger.Warn("control: forgetting a failed rescale failed; trying again", "relation", t.Name, "err", err)
		if sleep(s.ctx, time.Second) != nil {
			return
		}
	}
}

// rescaleAttempts bounds the times a rescale goes on after a step failed
// because the cluster recovered.
const rescaleAttempts = 5

// resumable reports whether a rescale that failed with err may go on
// once the cluster has recovered: not one that another rescale overtook
// (55006), whose job was dropped, or that was refused as busy.
func resumable(err error) bool {
	var busy *RescalingError
	code := pgerror.Code(err)
	return !errors.As(err, &busy) && code != pgerror.CodeObjectInUse && code != pgerror.CodeUndefinedTable &&
		!errors.Is(err, context.Canceled)
}

// waitRecovered waits until a recovery after fence has restarted this
// node's jobs, and job's if not 0 (at most two minutes): its owners are
// then those of the last committed step. With grace, it also returns once
// the jobs run if no recovery began within grace: the failure had another
// cause, and the caller plans again from the owners as they are.
func (s *Streaming) waitRecovered(ctx context.Context, fence meta.Fence, job uint32, grace time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	start := time.Now()
	for {
		if (s.ctrl.Worker().currentFence() != fence || grace > 0 && time.Since(start) >= grace) && s.jobRuns(job) {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// jobRuns reports whether this node's jobs run (no recovery is
// restarting them), and job among them if not 0.
func (s *Streaming) jobRuns(job uint32) bool {
	select {
	case <-s.Ready():
		return job == 0 || s.Owners(job) != nil
	default:
		return false
	}
}

// recoveryGrace is how long a rescale whose step failed waits for a
// recovery before it goes on without one.
const recoveryGrace = time.Second

// moveSteps moves t's job from its current owners towards plan's target,
// one switch at a time, holding the jobs lock, and records each step in
// r.
func (s *Streaming) moveSteps(ctx context.Context, t *meta.Table, plan *meta.Rescale, r *Rescaling) error {
	defer s.LockJobs()()
	owner, err := s.runningOwners(ctx, t)
	if err != nil {
		return err
	}
	steps := newRescaleSteps(owner, plan)
	r.set(func(p *RescaleProgress) { p.VNodesTotal = p.VNodesMoved + steps.total })
	if steps.replace {
		epoch, err := s.ctrl.Pause(ctx)
		if err == nil {
			err = s.WaitCommitted(ctx, epoch)
		}
		if err != nil {
			return err
		}
		defer func() {
			if _, rerr := s.ctrl.Resume(s.ctx); err == nil {
				err = rerr
			}
		}()
	}
	place := plan.Placement
	if place == nil {
		place = s.Placement(t)
	}
	// Every vnode that changes node is copied there at once, while the
	// job runs: one stream per pair of nodes moves the bulk of the state
	// at the rate the stores export and ingest it, and each step then
	// catches up on what changed since and switches.
	bulkStart := time.Now()
	all := nodeMoves(steps.cur, steps.target, place)
	bulk, err := s.preCopy(ctx, t.ID, all)
	if err != nil {
		return err
	}
	r.set(func(p *RescaleProgress) {
		for i, m := range all {
			p.addMove(m.From, m.To, 0, bulk[i])
			p.BytesMoved += bulk[i]
		}
		if len(all) > 0 {
			p.MoveTime += time.Since(bulkStart)
		}
	})
	for {
		st := steps.next()
		if len(place) > 0 && slices.ContainsFunc(steps.cur, func(slot int) bool { return placementNode(place, slot) == "" }) {
			// The owners use slots the plan does not place: another
			// rescale (a drain's and auto_rebalance's at once) got in.
			return errOvertaken(t.ID)
		}
		moves := nodeMoves(steps.cur, st.to, place)
		copyStart := time.Now()
		copied, err := s.preCopy(ctx, t.ID, moves)
		if err != nil {
			return err
		}
		bytes := int64(0)
		if len(moves) == 0 {
			bytes = s.movedBytes(t, st.vnodes)
		}
		rec := &meta.RescaleStep{Table: t.ID, Assignment: st.to, Placement: place, Done: st.last}
		if st.last {
			rec.Placement = TrimPlacement(place, st.to)
		}
		start := time.Now()
		epoch, err := s.ctrl.Reassign(ctx, t.ID, steps.cur, st.to, place, steps.replace, plan.Cache, rec)
		if err == nil {
			// A gaining actor's gate opens within the epoch after the
			// switch (whose barrier waits for it): the step took until
			// that epoch committed.
			err = s.WaitCommitted(ctx, epoch+1)
		}
		if err != nil {
			return err
		}
		took := time.Since(start)
		delta := s.dropMoved(ctx, t.ID, moves, epoch)
		steps.switched(st, took)
		var done RescaleProgress
		r.set(func(p *RescaleProgress) {
			for i, m := range moves {
				p.addMove(m.From, m.To, len(m.VNodes), copied[i]+delta[i])
				bytes += copied[i] + delta[i]
			}
			if len(moves) > 0 {
				p.MoveTime += start.Sub(copyStart) + took
			}
			steps.record(p, st, bytes, s.ctrl.Worker().CacheBytes(t.ID))
			done = *p
		})
		s.opts.Logger.Info("control: rescale step", "relation", t.Name, "step", done.StepsDone, "epoch", epoch, "vnodes", len(st.vnodes),
			"moved", fmt.Sprintf("%d/%d", done.VNodesMoved, done.VNodesTotal), "bytes", bytes, "moves", fmt.Sprint(moves), "pause", took)
		s.steps.record(len(st.vnodes), bytes, took)
		if st.last {
			return s.catchUpCatalog(ctx)
		}
		// The job catches up on what the switch held back (every
		// commit waited for it): it spends at least half of the
		// rescale's time processing.
		if err := sleep(ctx, took); err != nil {
			return err
		}
	}
}

// runningOwners returns the vnode owners of t's job as it runs here,
// waiting (at most jobsBackTimeout) while the cluster recovers and
// restarts its jobs, as after a node left.
func (s *Streaming) runningOwners(ctx context.Context, t *meta.Table) ([]int, error) {
	deadline := time.Now().Add(jobsBackTimeout)
	for {
		if _, ok := s.meta.Catalog().TableByID(t.ID); !ok {
			return nil, pgerror.New(pgerror.CodeUndefinedTable, "%s %q was dropped while being rescaled", t.Kind, t.Name)
		}
		if owner := s.Owners(t.ID); owner != nil && s.jobRuns(0) {
			return owner, nil
		}
		if time.Now().After(deadline) {
			return nil, pgerror.New(pgerror.CodeCannotConnectNow, "the job of %s %q has not run on this node for %v: the cluster is recovering", t.Kind, t.Name, jobsBackTimeout).
				WithHint("Run the statement again once the cluster has recovered.")
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// jobsBackTimeout bounds how long a rescale waits for its job to run
// again while the cluster recovers.
const jobsBackTimeout = 30 * time.Second

// preCopy has each node that gains vnodes of job in moves copy their
// state from the node that loses them, as of committed epochs, all at
// once; it returns the bytes each move copied.
func (s *Streaming) preCopy(ctx context.Context, job uint32, moves []nodeMove) ([]int64, error) {
	copied := make([]int64, len(moves))
	err := inParallel(len(moves), func(i int) error {
		var err error
		copied[i], err = s.ctrl.transfer.PreCopyOn(ctx, moves[i].To, moves[i].From, job, moves[i].VNodes)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pre-copying the state of moved vnodes: %w", err)
	}
	return copied, nil
}

// dropMoved has each node that lost vnodes of job in moves at the switch
// of epoch, now committed, drop its copy of them (after a grace,
// Transfer.Excise); it returns the bytes each move's switch delta copied.
// A node that cannot be asked keeps a copy no read uses (logged).
func (s *Streaming) dropMoved(ctx context.Context, job uint32, moves []nodeMove, epoch uint64) []int64 {
	delta := make([]int64, len(moves))
	_ = inParallel(len(moves), func(i int) error {
		m := moves[i]
		n, err := s.ctrl.transfer.ExciseOn(ctx, m.From, job, m.VNodes, epoch)
		if err != nil {
			s.opts.Logger.Warn("control: dropping moved vnodes' state failed; it stays unused", "node", m.From, "job", job, "err", err)
		}
		delta[i] = n
		return nil
	})
	return delta
}

// movedBytes estimates the bytes in storage of the state of vnodes, which
// a switch moves: the job's state tables and its own rows. On one node
// they change owner in place; across nodes they are what would travel.
func (s *Streaming) movedBytes(t *meta.Table, vnodes []int) int64 {
	var n int64
	tables := append([]uint32{t.ID}, t.StateTables...)
	for _, v := range vnodes {
		for _, id := range tables {
			b, err := s.ctrl.reader.VNodeDiskUsage(id, uint16(v))
			if err == nil {
				n += int64(b)
			}
		}
	}
	return n
}

// resumeRescales finishes the rescales this node ran when it stopped
// (and, on the leader, those recorded without a runner): each job
// restarted with the assignment of its last committed step and goes on
// from there to its plan's target. They are registered at once (SHOW
// JOBS lists them, a new rescale of them is refused) and run in the
// background, one after the other. A relocation's record is forgotten:
// it did not commit, and the copies it made are stray.
func (s *Streaming) resumeRescales() {
	type resumed struct {
		t *meta.Table
		r *Rescaling
	}
	var todo []resumed
	self := s.meta.NodeID()
	for _, t := range s.meta.Catalog().Tables() {
		if t.Rescale == nil || t.Rescale.Runner != self && (t.Rescale.Runner != "" || !s.meta.IsLeader()) {
			continue
		}
		if t.Rescale.Strategy == strategyRelocate {
			s.endRescale(t)
			continue
		}
		r, err := s.beginRescale(s.ctx, t, t.Rescale, true)
		if err != nil {
			s.opts.Logger.Error("resuming an interrupted rescale failed; run ALTER ... SET PARALLELISM again", "relation", t.Name, "err", err)
			continue
		}
		todo = append(todo, resumed{t, r})
	}
	go func() {
		for _, rs := range todo {
			if err := s.runRescale(s.ctx, rs.t, rs.t.Rescale, rs.r); err != nil && s.ctx.Err() == nil {
				s.opts.Logger.Error("resuming an interrupted rescale failed; run ALTER ... SET PARALLELISM again", "relation", rs.t.Name, "err", err)
			}
		}
	}()
}
