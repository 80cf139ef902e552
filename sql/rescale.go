package sql

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/sql/parser"
)

// Rescale strategies (ALTER ... SET PARALLELISM ... WITH (strategy = ...)).
const (
	// strategyFluid moves the vnodes in steps of at most step vnodes, one
	// step per barrier, while the job runs.
	strategyFluid = "fluid"
	// strategyAllAtOnce moves every vnode at one barrier while the job
	// runs.
	strategyAllAtOnce = "all_at_once"
	// strategyRestart is the stop-and-restart baseline: sources and
	// writes are held at a checkpoint, every actor is replaced and
	// restores its state (by default: cache = 'eager'), then the world
	// resumes.
	strategyRestart = "restart"
)

// Fluid steps without a given size adapt it so that each switch pauses
// the job for about stepPause: the first moves firstStep vnodes, the next
// ones scale by how long the last took, at most doubling.
const (
	stepPause = 50 * time.Millisecond
	firstStep = 4
)

// rescaleJob is the progress of a job's latest rescale, for SHOW JOBS.
type rescaleJob struct {
	mu       sync.Mutex
	info     planner.RescaleProgress
	started  time.Time
	finished time.Time
}

// progress returns the job's figures now.
func (j *rescaleJob) progress() planner.RescaleProgress {
	j.mu.Lock()
	defer j.mu.Unlock()
	p := j.info
	end := j.finished
	if end.IsZero() {
		end = time.Now()
	}
	p.Elapsed = end.Sub(j.started)
	return p
}

func (j *rescaleJob) set(fn func(p *planner.RescaleProgress)) {
	j.mu.Lock()
	defer j.mu.Unlock()
	fn(&j.info)
	if j.info.Phase != "moving" && j.finished.IsZero() {
		j.finished = time.Now()
	}
}

// rescalable are the kinds ALTER ... SET PARALLELISM names, by keyword.
var rescalable = map[string]meta.ObjectKind{
	"MATERIALIZED VIEW": meta.KindMaterializedView,
	"TABLE":             meta.KindTable,
	"SOURCE":            meta.KindSource,
}

// alterParallelism runs ALTER ... SET PARALLELISM: it plans the rescale,
// records it in meta and runs it, returning when it is done (or at once
// with wait = false). A job already rescaling is refused.
func (s *Session) alterParallelism(ctx context.Context, x *parser.AlterParallelism) (pgwire.Rows, error) {
	e := s.e
	kind, ok := rescalable[x.Kind]
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "ALTER %s is not supported: streamdb has no sinks yet", x.Kind)
	}
	schema := x.Name.Schema
	if schema == "" {
		schema = meta.DefaultSchema
	}
	t, ok := e.Meta.Catalog().Table(schema, x.Name.Name)
	if !ok {
		return nil, pgerror.New(pgerror.CodeUndefinedTable, "%s %q does not exist", strings.ToLower(x.Kind), x.Name.Name)
	}
	if t.Kind != kind {
		return nil, pgerror.New(pgerror.CodeWrongObjectType, "%q is not a %s", x.Name.Name, strings.ToLower(x.Kind)).
			WithHint("Use ALTER %s.", strings.ToUpper(t.Kind.String()))
	}
	if t.Kind == meta.KindTable && t.Connector() == "" {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "table %q is written by DML through one actor and has no parallel fragments to rescale", t.Name).
			WithHint("Rescale the materialized views that read it: ALTER MATERIALIZED VIEW ... SET PARALLELISM.")
	}
	opts, err := parseRescaleOptions(x.With)
	if err != nil {
		return nil, err
	}
	n := x.Parallelism
	if x.Default {
		n = e.parallelism(0)
	}
	if n > rowkey.VNodes {
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "parallelism %d is more than the job's %d key groups", n, rowkey.VNodes).
			WithHint("Choose a parallelism from 1 to %d.", rowkey.VNodes)
	}
	owner := e.stream.Owners(t.ID)
	if owner == nil {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "%s %q runs as one actor and has no parallel fragments to rescale", t.Kind, t.Name)
	}
	if _, err := e.rescaleNodes(t, nil); err != nil {
		return nil, err
	}
	target := meta.Rebalance(owner, n)
	plan := &meta.Rescale{Parallelism: x.Parallelism, Target: target, Strategy: opts.strategy, Step: opts.step, Cache: opts.cache, From: meta.Slots(owner)}
	job, err := e.beginRescale(ctx, t, plan, false)
	if err != nil {
		return nil, err
	}
	// The rescale runs to its end whatever happens to the session: a
	// canceled statement stops waiting, not moving.
	finished := make(chan error, 1)
	go func() { finished <- e.runRescale(e.ctx, t, plan, job) }()
	if !opts.wait {
		return done("ALTER " + x.Kind), nil
	}
	select {
	case err := <-finished:
		if err != nil {
			return nil, err
		}
		return done("ALTER " + x.Kind), nil
	case <-ctx.Done():
		return nil, pgerror.New(pgerror.CodeQueryCanceled, "canceling statement: stopped waiting for the rescale of %q", t.Name).
			WithHint("The rescale goes on in the background: SHOW JOBS shows its progress.")
	}
}

// rescaleOptions are the WITH options of ALTER ... SET PARALLELISM.
type rescaleOptions struct {
	strategy string
	step     int
	wait     bool
	cache    string
}

// cacheModes are the values of the cache option: how a moved vnode's new
// owner gets its cached state. By default fluid and all_at_once hand the
// old owner's cached groups over (the rescale bench's figures: the
// steadiest pauses, and no refill or garbage afterwards), and restart
// loads every vnode's state before the world resumes (eager), as
// restoring a savepoint does.
var cacheModes = map[string]bool{"handover": true, "eager": true, "lazy": true}

func parseRescaleOptions(with map[string]string) (rescaleOptions, error) {
	o := rescaleOptions{strategy: strategyFluid, wait: true}
	for k, v := range with {
		switch k {
		case "strategy":
			switch v = strings.ToLower(v); v {
			case strategyFluid, strategyAllAtOnce, strategyRestart:
				o.strategy = v
			default:
				return o, pgerror.New(pgerror.CodeInvalidParameterValue, "unknown rescale strategy %q", v).
					WithHint("Use fluid (vnodes move in steps while the job runs), all_at_once or restart.")
			}
		case "step":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > rowkey.VNodes {
				return o, pgerror.New(pgerror.CodeInvalidParameterValue, "step must be an integer from 1 to %d (vnodes moved per barrier), not %q", rowkey.VNodes, v)
			}
			o.step = n
		case "cache":
			if _, ok := cacheModes[strings.ToLower(v)]; !ok {
				return o, pgerror.New(pgerror.CodeInvalidParameterValue, "unknown cache mode %q", v).
					WithHint("Use handover (moved vnodes keep their cached state), lazy (read on first use) or eager (loaded from storage at the switch).")
			}
			o.cache = strings.ToLower(v)
		case "wait":
			b, ok := parseBool(v)
			if !ok {
				return o, pgerror.New(pgerror.CodeInvalidParameterValue, "wait must be true or false, not %q", v)
			}
			o.wait = b
		default:
			return o, pgerror.New(pgerror.CodeInvalidParameterValue, "unknown option %q of ALTER ... SET PARALLELISM", k).
				WithHint("The options are strategy, step, cache and wait.")
		}
	}
	if o.cache == "" {
		o.cache = "handover"
		if o.strategy == strategyRestart {
			o.cache = "eager"
		}
	}
	return o, nil
}

// parseBool reads a PostgreSQL boolean option value.
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true", "on", "yes", "1", "t":
		return true, true
	case "false", "off", "no", "0", "f":
		return false, true
	}
	return false, false
}

// beginRescale records plan as t's rescale in meta (unless it resumes
// the one recorded) and registers its progress; a job already rescaling
// is refused (55006).
func (e *Engine) beginRescale(ctx context.Context, t *meta.Table, plan *meta.Rescale, resume bool) (*rescaleJob, error) {
	e.rescaleMu.Lock()
	if j := e.rescales[t.ID]; j != nil {
		if p := j.progress(); p.Phase == "moving" {
			e.rescaleMu.Unlock()
			return nil, pgerror.New(pgerror.CodeObjectInUse, "%s %q is already being rescaled (to parallelism %d, %d of %d vnodes moved)",
				t.Kind, t.Name, p.To, p.VNodesMoved, p.VNodesTotal).
				WithHint("Wait until SHOW JOBS reports it done, then run ALTER ... SET PARALLELISM again.")
		}
	}
	job := &rescaleJob{started: time.Now(), info: planner.RescaleProgress{
		Job: t.ID, Name: t.Name, Strategy: plan.Strategy, Phase: "moving", From: plan.From, To: meta.Slots(plan.Target)}}
	e.rescales[t.ID] = job
	e.rescaleMu.Unlock()
	if !resume {
		if err := e.Meta.BeginRescale(ctx, t.ID, plan); err != nil {
			job.set(func(p *planner.RescaleProgress) { p.Phase, p.Error = "failed", err.Error() })
			return nil, err
		}
	}
	return job, nil
}

// runRescale moves t's job from its current assignment to plan's target,
// step by step (each step's assignment recorded with its checkpoint), and
// records the outcome in job.
func (e *Engine) runRescale(ctx context.Context, t *meta.Table, plan *meta.Rescale, job *rescaleJob) (err error) {
	e.ddlMu.Lock()
	defer e.ddlMu.Unlock()
	defer func() {
		job.set(func(p *planner.RescaleProgress) {
			p.Phase = "done"
			if err != nil {
				p.Phase, p.Error = "failed", err.Error()
			}
		})
	}()
	owner := e.stream.Owners(t.ID)
	if owner == nil {
		return pgerror.New(pgerror.CodeUndefinedTable, "%s %q was dropped while being rescaled", t.Kind, t.Name)
	}
	replace := plan.Strategy == strategyRestart
	total := 0
	for v := range owner {
		if owner[v] != plan.Target[v] || replace {
			total++
		}
	}
	job.set(func(p *planner.RescaleProgress) { p.VNodesTotal = total })
	if replace {
		epoch, err := e.ctrl.Pause(ctx)
		if err == nil {
			err = e.stream.WaitCommitted(ctx, epoch)
		}
		if err != nil {
			return err
		}
		defer func() {
			if _, rerr := e.ctrl.Resume(e.ctx); err == nil {
				err = rerr
			}
		}()
	}
	size := plan.Step
	if plan.Strategy == strategyFluid && size == 0 {
		size = firstStep
	} else if plan.Strategy != strategyFluid {
		size = rowkey.VNodes
	}
	for cur := owner; ; {
		next := meta.NextStep(cur, plan.Target, size)
		last := slices.Equal(next, plan.Target)
		bytes := e.movedBytes(t, cur, next, replace)
		nodes, err := e.rescaleNodes(t, next)
		if err != nil {
			return err
		}
		rec := &meta.RescaleStep{Table: t.ID, Assignment: next, Placement: nodes, Done: last}
		moved := 0
		for v := range cur {
			if cur[v] != next[v] || replace {
				moved++
			}
		}
		start := time.Now()
		epoch, err := e.ctrl.Reassign(ctx, t.ID, next, nodes, replace, plan.Cache, rec)
		if err == nil {
			err = e.stream.WaitCommitted(ctx, epoch)
		}
		if err != nil {
			return err
		}
		took := time.Since(start)
		if plan.Strategy == strategyFluid && plan.Step == 0 {
			size = max(1, min(2*size, int(float64(size)*float64(stepPause)/float64(max(took, time.Millisecond)))))
		}
		job.set(func(p *planner.RescaleProgress) {
			p.StepsDone++
			p.VNodesMoved = min(p.VNodesMoved+moved, p.VNodesTotal)
			p.StepsTotal = p.StepsDone + (p.VNodesTotal-p.VNodesMoved+size-1)/size
			p.BytesMoved += bytes
			p.CacheBytesMoved += e.ctrl.Worker().CacheBytes(t.ID)
		})
		if last {
			return nil
		}
		// The job catches up on what the switch held back: it spends at
		// least half of the rescale's time processing.
		select {
		case <-time.After(took):
		case <-ctx.Done():
			return ctx.Err()
		}
		cur = next
	}
}

// movedBytes estimates the bytes in storage of the state of the vnodes
// that change owner from one assignment to the next (all with replace):
// the job's state tables and its own rows. On one node they change owner
// in place; across nodes they are what would travel.
func (e *Engine) movedBytes(t *meta.Table, from, to []int, replace bool) int64 {
	var n int64
	tables := append([]uint32{t.ID}, t.StateTables...)
	for v := range from {
		if from[v] == to[v] && !replace {
			continue
		}
		for _, id := range tables {
			b, err := e.reader.VNodeDiskUsage(id, uint16(v))
			if err == nil {
				n += int64(b)
			}
		}
	}
	return n
}

// rescaleNodes returns the placement of a job's slots under assignment
// (nil: just check): every slot on the one node the job runs on. Moving
// key groups between nodes is not supported yet.
func (e *Engine) rescaleNodes(t *meta.Table, assignment []int) ([]string, error) {
	cat := e.Meta.Catalog()
	nodes := control.JobPlacement(cat, t)
	for _, n := range nodes {
		if n != nodes[0] || len(cat.Nodes()) > 1 {
			return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "%s %q runs on a cluster of several nodes: rescaling there moves key groups between nodes, which is not supported yet", t.Kind, t.Name).
				WithHint("Rescale on a one-node cluster; moving work between nodes comes with online migration.")
		}
	}
	slots := 0
	for _, s := range assignment {
		slots = max(slots, s+1)
	}
	out := make([]string, slots)
	for i := range out {
		out[i] = nodes[0]
	}
	return out, nil
}

// resumeRescales finishes the rescales a crash interrupted: each job
// restarted with the assignment of its last committed step and goes on
// from there to its plan's target. They are registered at once (SHOW
// JOBS lists them, ALTER refuses to start another) and run in the
// background, one after the other.
func (e *Engine) resumeRescales() {
	type resumed struct {
		t   *meta.Table
		job *rescaleJob
	}
	var todo []resumed
	for _, t := range e.Meta.Catalog().Tables() {
		if t.Rescale == nil {
			continue
		}
		job, err := e.beginRescale(e.ctx, t, t.Rescale, true)
		if err != nil {
			e.opts.Logger.Error("resuming an interrupted rescale failed; run ALTER ... SET PARALLELISM again", "relation", t.Name, "err", err)
			continue
		}
		todo = append(todo, resumed{t, job})
	}
	go func() {
		for _, r := range todo {
			if err := e.runRescale(e.ctx, r.t, r.t.Rescale, r.job); err != nil && e.ctx.Err() == nil {
				e.opts.Logger.Error("resuming an interrupted rescale failed; run ALTER ... SET PARALLELISM again", "relation", r.t.Name, "err", err)
			}
		}
	}()
}

// RescaleJobs implements planner.Status: the latest rescale of each job
// since the node started.
func (e *Engine) RescaleJobs() []planner.RescaleProgress {
	e.rescaleMu.Lock()
	defer e.rescaleMu.Unlock()
	out := make([]planner.RescaleProgress, 0, len(e.rescales))
	for _, j := range e.rescales {
		out = append(out, j.progress())
	}
	return out
}
