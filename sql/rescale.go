package sql

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/sql/parser"
)

// rescalable are the kinds ALTER ... SET PARALLELISM names, by keyword.
var rescalable = map[string]meta.ObjectKind{
	"MATERIALIZED VIEW": meta.KindMaterializedView,
	"TABLE":             meta.KindTable,
	"SOURCE":            meta.KindSource,
	"SINK":              meta.KindSink,
	"SUBSCRIPTION":      meta.KindSubscription,
}

// alterParallelism runs ALTER ... SET PARALLELISM: it plans the rescale
// and has the streaming run it, returning when it is done (or at once
// with wait = false). A job already rescaling is refused (55006).
func (s *Session) alterParallelism(ctx context.Context, x *parser.AlterParallelism) (pgwire.Rows, error) {
	e := s.e
	kind, ok := rescalable[x.Kind]
	if !ok {
		return nil, pgerror.New(pgerror.CodeFeatureNotSupported, "ALTER %s ... SET PARALLELISM is not supported", x.Kind)
	}
	t, ok := e.Meta.Catalog().Resolve(s.searchPath(), x.Name.Schema, x.Name.Name)
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
	target, placement := control.PlanRescale(t.ID, e.stream.Placement(t), owner, control.ActiveNodes(e.Meta.Catalog()), n)
	plan := &meta.Rescale{Parallelism: x.Parallelism, Target: target, Placement: placement, Strategy: opts.strategy, Step: opts.step, Cache: opts.cache, From: meta.Slots(owner)}
	r, err := e.stream.Rescale(ctx, t, plan)
	var busy *control.RescalingError
	if errors.As(err, &busy) {
		p := busy.Progress
		return nil, pgerror.New(pgerror.CodeObjectInUse, "%s %q is already being rescaled (to parallelism %d, %d of %d vnodes moved)",
			t.Kind, t.Name, p.To, p.VNodesMoved, p.VNodesTotal).
			WithHint("Wait until SHOW JOBS reports it done, then run ALTER ... SET PARALLELISM again.")
	}
	if err != nil {
		return nil, err
	}
	// The rescale runs to its end whatever happens to the session: a
	// canceled statement stops waiting, not moving.
	if !opts.wait {
		return done("ALTER " + x.Kind), nil
	}
	select {
	case <-r.Done():
		if err := r.Err(); err != nil {
			return nil, err
		}
		return done("ALTER " + x.Kind), nil
	case <-ctx.Done():
		return nil, pgerror.New(pgerror.CodeQueryCanceled, "canceling statement: stopped waiting for the rescale of %q", t.Name).
			WithHint("The rescale goes on in the background: SHOW JOBS shows its progress.")
	}
}

// rebalance runs ALTER SYSTEM REBALANCE (every view spread over the
// nodes) or ALTER SYSTEM DRAIN NODE (every view moved off a node), with
// the rescale options of ALTER ... SET PARALLELISM; with wait = false it
// returns at once and the views move in the background (SHOW JOBS).
func (s *Session) rebalance(ctx context.Context, x *parser.Rebalance) (pgwire.Rows, error) {
	opts, err := parseRescaleOptions(x.With)
	if err != nil {
		return nil, err
	}
	how := &meta.Rescale{Strategy: opts.strategy, Step: opts.step, Cache: opts.cache}
	run := func(ctx context.Context) error {
		if x.Drain != "" {
			return s.e.stream.Drain(ctx, x.Drain, how)
		}
		return s.e.stream.Rebalance(ctx, how)
	}
	if !opts.wait {
		go func() {
			if err := run(context.WithoutCancel(ctx)); err != nil {
				s.e.opts.Logger.Warn("ALTER SYSTEM in the background failed", "err", err)
			}
		}()
		return done("ALTER SYSTEM"), nil
	}
	if err := run(ctx); err != nil {
		return nil, err
	}
	return done("ALTER SYSTEM"), nil
}

// rescaleOptions are the WITH options of ALTER ... SET PARALLELISM.
type rescaleOptions struct {
	strategy string
	step     int
	wait     bool
	cache    string
}

// parseRescaleOptions checks the WITH options of ALTER ... SET
// PARALLELISM and fills in the defaults: a fluid rescale with adaptive
// steps that the statement waits for. By default fluid and all_at_once
// hand the old owner's cached groups over (the rescale bench's figures:
// the steadiest pauses, and no refill or garbage afterwards), and restart
// loads every vnode's state before the world resumes (eager), as
// restoring a savepoint does.
func parseRescaleOptions(with map[string]string) (rescaleOptions, error) {
	o := rescaleOptions{strategy: control.StrategyFluid, wait: true}
	for k, v := range with {
		switch k {
		case "strategy":
			switch v = strings.ToLower(v); v {
			case control.StrategyFluid, control.StrategyAllAtOnce, control.StrategyRestart:
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
			switch mode := strings.ToLower(v); mode {
			case control.CacheHandover, control.CacheEager, control.CacheLazy:
				o.cache = mode
			default:
				return o, pgerror.New(pgerror.CodeInvalidParameterValue, "unknown cache mode %q", v).
					WithHint("Use handover (moved vnodes keep their cached state), lazy (read on first use) or eager (loaded from storage at the switch).")
			}
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
		o.cache = control.CacheHandover
		if o.strategy == control.StrategyRestart {
			o.cache = control.CacheEager
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
