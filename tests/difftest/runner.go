package difftest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
)

// Config configures a Runner.
type Config struct {
	// PostgresDSN and StreamdbDSN are the servers' connection strings.
	PostgresDSN, StreamdbDSN string
	// Queries and Views are how many queries and views each seed tries
	// (default 30 and 6); DML how many statements change the tables
	// between view rounds (default 4).
	Queries, Views, DML int
	// ReduceSteps bounds the statements one minimization may try; 0 means
	// no minimization.
	ReduceSteps int
	// Timeout bounds one statement (default 20 s).
	Timeout time.Duration
	// Known are the accepted differences (default: the checked-in list).
	Known []Known
	// Restart, if set, replaces a streamdb server that stopped answering
	// or refuses every write by a new one and returns its connection
	// string; without it the run stops there.
	Restart func() (string, error)
	// Logf, if set, receives progress lines.
	Logf func(format string, args ...any)
}

// Runner runs seeds against PostgreSQL and streamdb and collects the
// differences.
type Runner struct {
	cfg     Config
	pg, sdb *conn
	// bad are the values the servers read differently (found by Probe);
	// generators avoid them.
	bad map[Type]map[string]bool
	// created and createdViews are the names the current script created.
	created, createdViews []string
	// lastPG is PostgreSQL's outcome in the last check.
	lastPG Outcome
	// probed caches explain's probes while the tables stay the same.
	probed map[string][2]Outcome
	// Stats are the run's figures; Findings the distinct differences.
	Stats    Stats
	Findings []*Finding
}

// Stats are a run's figures.
type Stats struct {
	Seeds int
	// Checks counts the statements compared by mode (query, dml, view)
	// and, for queries, by what they use (join, aggregate, ...).
	Checks map[string]int
	// Outcomes counts what the compared statements gave on PostgreSQL:
	// rows or an error class.
	Outcomes map[string]int
	// Found counts the differences by kind, duplicates included; Known
	// those that matched the known list.
	Found, Known map[Kind]int
	// Unsupported counts views streamdb refused with 0A000, by message;
	// PostgresRefused the generated statements PostgreSQL refused (a
	// view PostgreSQL cannot create, a FULL JOIN it cannot plan): they
	// compare nothing.
	Unsupported     map[string]int
	PostgresRefused int
	// Diverged counts seeds cut short because the tables differed;
	// Restarts how often streamdb had to restart (it stopped answering, or
	// refused every write).
	Diverged, Restarts int
	// Skipped counts statements PostgreSQL failed on over an expression
	// streamdb did not evaluate, and fails on too when made to (see
	// explain): not a difference.
	Skipped int
	Elapsed time.Duration
}

// New connects to both servers.
func New(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.Queries == 0 {
		cfg.Queries = 30
	}
	if cfg.Views == 0 {
		cfg.Views = 6
	}
	if cfg.DML == 0 {
		cfg.DML = 4
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second
	}
	if cfg.Known == nil {
		known, err := ParseKnown(knownDifferences)
		if err != nil {
			return nil, err
		}
		cfg.Known = known
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	ru := &Runner{
		cfg: cfg,
		pg: &conn{name: "PostgreSQL", dsn: cfg.PostgresDSN, timeout: cfg.Timeout,
			init: []string{"SET statement_timeout = '" + cfg.Timeout.String() + "'", "SET TimeZone = 'UTC'", "SET DateStyle = 'ISO, MDY'", "SET IntervalStyle = 'postgres'", "SET extra_float_digits = 1"}},
		sdb:    &conn{name: "streamdb", dsn: cfg.StreamdbDSN, timeout: cfg.Timeout + 5*time.Second},
		bad:    map[Type]map[string]bool{},
		probed: map[string][2]Outcome{},
		Stats:  Stats{Checks: map[string]int{}, Outcomes: map[string]int{}, Unsupported: map[string]int{}, Found: map[Kind]int{}, Known: map[Kind]int{}},
	}
	for _, c := range []*conn{ru.pg, ru.sdb} {
		if err := c.open(ctx); err != nil {
			return nil, err
		}
	}
	return ru, nil
}

// Close closes the connections.
func (ru *Runner) Close() {
	ru.pg.close()
	ru.sdb.close()
}

// candidate is a difference found, before minimizing.
type candidate struct {
	seed uint64
	s    *script
	c    check
	d    *diff
}

// Probe reads every value the generator uses as a literal on both
// servers; values read differently become findings and are left out of
// generated data and queries.
func (ru *Runner) Probe(ctx context.Context) error {
	var found []candidate
	for t := range numTypes {
		for _, v := range slices.Concat(edgeValues[t], ordinaryValues[t]) {
			q := &Query{Sel: &Select{Items: []Item{{E: leaf(t, litLeaf, literalSQL(t, v))}}}, Limit: -1, Offset: -1}
			c := check{query: q}
			ru.Stats.Checks["query"]++
			d, err := ru.run(ctx, c)
			if err != nil {
				return err
			}
			if d != nil {
				if ru.bad[t] == nil {
					ru.bad[t] = map[string]bool{}
				}
				ru.bad[t][v] = true
				found = append(found, candidate{s: &script{}, c: c, d: d})
			}
		}
	}
	return ru.record(ctx, found)
}

// Seed runs one seed: a schema with data, queries over it, then views
// created before and after rounds of DML, compared after each FLUSH.
func (ru *Runner) Seed(ctx context.Context, seed uint64) error {
	start := time.Now()
	defer func() { ru.Stats.Elapsed += time.Since(start) }()
	ru.Stats.Seeds++
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), bad: ru.bad}
	tables := g.schema()
	var found []candidate
	err := ru.seed(ctx, seed, g, tables, &found)
	if errors.Is(err, errDiverged) {
		ru.cfg.Logf("seed %d cut short: %v", seed, err)
		ru.Stats.Diverged++
		err = nil
	}
	if err != nil {
		return err
	}
	return ru.record(ctx, found)
}

// seed runs seed's checks, adding what differs to found. It returns
// errDiverged when the tables no longer agree, so that the seed stops.
func (ru *Runner) seed(ctx context.Context, seed uint64, g *gen, tables []*Table, found *[]candidate) error {
	add := func(s *script, c check, d *diff) {
		ru.Stats.Found[d.kind]++
		*found = append(*found, candidate{seed: seed, s: s, c: c, d: d})
	}
	// The tables, filled by one INSERT each: a check of its own.
	empty := make([]*Table, len(tables))
	for i, t := range tables {
		cp := *t
		cp.Rows = nil
		empty[i] = &cp
	}
	if err := ru.replay(ctx, &script{tables: empty}); err != nil {
		return err
	}
	for i, t := range tables {
		if len(t.Rows) == 0 {
			continue
		}
		c, d, err := ru.checked(ctx, check{dml: &DML{Table: t, Rows: t.Rows}})
		if d != nil {
			add(&script{tables: slices.Concat(tables[:i], empty[i:])}, c, d)
			return errDiverged
		}
		if err != nil {
			return err
		}
	}
	initial := &script{tables: tables}
	g.rels = nil
	for _, t := range tables {
		g.rels = append(g.rels, t.relation())
	}
	for range ru.cfg.Queries {
		c, d, err := ru.checked(ctx, check{query: g.topQuery()})
		if d != nil {
			add(initial, c, d)
		}
		if err != nil {
			return err
		}
	}
	return ru.viewRounds(ctx, g, tables, add)
}

// viewRounds creates views, changes the tables, flushes and compares the
// views, twice: views created in the second round see the first round's
// changes through backfill, and may read the first round's views.
func (ru *Runner) viewRounds(ctx context.Context, g *gen, tables []*Table, add func(*script, check, *diff)) error {
	g.view = true
	type live struct {
		v      *viewDef
		at     int // its index in steps
		failed bool
	}
	var (
		steps []step
		views []*live
	)
	before := func(i int) *script { return &script{tables: tables, steps: slices.Clone(steps[:i])} }
	for range 2 {
		for range ru.cfg.Views / 2 {
			v := &viewDef{name: fmt.Sprintf("v%d", len(ru.createdViews)), q: g.topQuery()}
			ru.Stats.Checks["view created"]++
			pg, sdb, err := ru.createView(ctx, v)
			switch {
			case errors.Is(err, errUnsupported):
				ru.Stats.Unsupported[messageShape(sdb.Err.Message)]++
				ru.dropView(ctx, v.name, true, false)
			case pg.Err != nil:
				ru.Stats.PostgresRefused++
				ru.dropView(ctx, v.name, false, true)
			case sdb.Lost != "" || sdb.Err != nil:
				if d := ru.judge(ru.pg.exec(ctx, "SELECT * FROM "+v.name), sdb, false, true); d != nil {
					add(before(len(steps)), check{view: v}, d)
				}
				ru.dropView(ctx, v.name, true, false)
			default:
				steps = append(steps, step{view: v})
				views = append(views, &live{v: v, at: len(steps) - 1})
				if rel := ru.viewRelation(ctx, v); rel != nil {
					g.rels = append(g.rels, rel)
				}
			}
		}
		for range ru.cfg.DML {
			dml := g.dml(tables)
			c, d, err := ru.checked(ctx, check{dml: dml})
			if d != nil {
				add(before(len(steps)), c, d)
				return errDiverged
			}
			if err != nil {
				return err
			}
			steps = append(steps, step{dml: dml})
		}
		if o := ru.sdb.exec(ctx, "FLUSH"); o.code() != "rows" {
			// Some view's job failed: a view check reproduces it (with the
			// views before it in its setup).
			if len(views) > 0 {
				l := views[len(views)-1]
				add(before(l.at), check{view: l.v, after: slices.Clone(steps[l.at+1:])}, &diff{kind: KindCrash, sdb: o, detail: flushFailed})
			}
			return errDiverged
		}
		for _, l := range views {
			if l.failed {
				continue
			}
			ru.Stats.Checks["view rows"]++
			pg, sdb := ru.both(ctx, "SELECT * FROM "+l.v.name)
			if d := ru.judge(pg, sdb, false, true); d != nil {
				l.failed = true
				add(before(l.at), check{view: l.v, after: slices.Clone(steps[l.at+1:])}, d)
			}
		}
	}
	return nil
}

// viewRelation returns v as a relation later queries may read, with the
// column types PostgreSQL gives them, or nil if a type is not one the
// generator knows.
func (ru *Runner) viewRelation(ctx context.Context, v *viewDef) *relation {
	o := ru.pg.exec(ctx, "SELECT * FROM "+v.name+" LIMIT 0")
	if o.Err != nil {
		return nil
	}
	rel := &relation{name: v.name}
	for i, oid := range o.OIDs {
		t, ok := typeOfOID(oid)
		if !ok {
			return nil
		}
		rel.cols = append(rel.cols, column{name: o.Names[i], t: t})
	}
	return rel
}

// checked runs c on the current state, counting it. It returns the check
// to report with the difference: c, or a check of the subexpression the
// difference is about (see explain). After streamdb restarted, the error
// is errDiverged: its tables are gone.
func (ru *Runner) checked(ctx context.Context, c check) (check, *diff, error) {
	ru.Stats.Checks[c.mode()]++
	if c.query != nil {
		for _, cat := range categories(c.query) {
			ru.Stats.Checks["query: "+cat]++
		}
	}
	ru.lastPG = Outcome{}
	d, err := ru.run(ctx, c)
	ru.countOutcome()
	if err != nil {
		return c, nil, err
	}
	d, cc := ru.explain(ctx, c, d)
	switch {
	case cc != nil:
		return *cc, d, nil
	case d == nil:
		return c, nil, nil
	}
	if d.sdb.Lost != "" && !d.sdb.Timeout {
		err = ru.recover(ctx)
	}
	return c, d, err
}

// countOutcome counts the last check's PostgreSQL outcome.
func (ru *Runner) countOutcome() {
	switch o := ru.lastPG; {
	case o.Err != nil:
		ru.Stats.Outcomes["PostgreSQL error class "+o.Err.Code[:2]]++
	case o.Lost != "":
		ru.Stats.Outcomes["PostgreSQL timeout"]++
	case o.OIDs != nil:
		ru.Stats.Outcomes["rows"]++
	}
}

// recover reconnects to streamdb after it dropped a connection, or
// restarts it when it is gone (then its tables are gone too, and the
// error is errDiverged).
func (ru *Runner) recover(ctx context.Context) error {
	if err := ru.sdb.open(ctx); err == nil {
		return nil
	}
	if err := ru.restart(ctx); err != nil {
		return err
	}
	return fmt.Errorf("%w: streamdb restarted", errDiverged)
}

// restart replaces the streamdb server by a new, empty one.
func (ru *Runner) restart(ctx context.Context) error {
	if ru.cfg.Restart == nil {
		return errors.New("streamdb must restart, and cannot")
	}
	dsn, err := ru.cfg.Restart()
	if err != nil {
		return fmt.Errorf("restart streamdb: %w", err)
	}
	ru.sdb.dsn = dsn
	ru.created, ru.createdViews = nil, nil
	return ru.sdb.open(ctx)
}

// categories are what a query uses, for the figures.
func categories(q *Query) []string {
	var out []string
	has := func(names ...string) bool {
		for _, f := range q.features() {
			for _, n := range names {
				if strings.Contains(f, n) {
					return true
				}
			}
		}
		return false
	}
	for _, c := range []struct {
		name  string
		marks []string
	}{
		{"join", []string{"JOIN"}},
		{"aggregate", []string{"count", "sum", "avg", "min", "max", "bool_", "string_agg", "GROUP BY"}},
		{"set operation", []string{"UNION", "INTERSECT", "EXCEPT"}},
		{"subquery", []string{"subquery", "EXISTS"}},
		{"order/limit", []string{"LIMIT"}},
	} {
		if has(c.marks...) {
			out = append(out, c.name)
		}
	}
	if len(q.OrderBy) > 0 && !slices.Contains(out, "order/limit") {
		out = append(out, "order/limit")
	}
	return out
}

// record minimizes the candidates not explained by a finding already
// recorded, and records them (or counts them as known).
func (ru *Runner) record(ctx context.Context, found []candidate) error {
	for _, cand := range found {
		if f := ru.explained(cand); f != nil {
			f.Count++
			if f.Known != "" {
				ru.Stats.Known[cand.d.kind]++
			}
			continue
		}
		f, err := ru.minimize(ctx, cand)
		if err != nil {
			return err
		}
		if k := match(ru.cfg.Known, f.Signature); k != nil {
			f.Known = k.Reason
			ru.Stats.Known[f.Kind]++
		}
		if i := slices.IndexFunc(ru.Findings, func(x *Finding) bool { return x.Signature == f.Signature }); i >= 0 {
			ru.Findings[i].Count++
			continue
		}
		ru.cfg.Logf("new difference: %s", f.Signature)
		ru.Findings = append(ru.Findings, f)
	}
	return nil
}

// explained returns the recorded finding that likely explains cand: same
// kind, mode and outcomes, and a minimized statement whose every feature
// cand's statement has.
func (ru *Runner) explained(cand candidate) *Finding {
	if coarse(cand.d) || refusal(cand.d) {
		sig := signature(cand.d, cand.c)
		if i := slices.IndexFunc(ru.Findings, func(f *Finding) bool { return f.Signature == sig }); i >= 0 {
			return ru.Findings[i]
		}
		return nil
	}
	feats := cand.c.features()
	for _, f := range ru.Findings {
		if f.Kind != cand.d.kind || f.Mode != cand.c.mode() || !strings.HasPrefix(f.Signature, signaturePrefix(cand.d)) || len(f.features) == 0 {
			continue
		}
		if !slices.ContainsFunc(f.features, func(x string) bool { return !slices.Contains(feats, x) }) {
			return f
		}
	}
	return nil
}

// signature identifies a difference: how the outcomes differ and the
// statement's shape; for a difference explain recognized, its tag (then
// only the error classes count: all have one cause); for two run-time
// errors, only the outcomes; for a refusal by streamdb, its error.
func signature(d *diff, c check) string {
	switch {
	case d.tag != "":
		return fmt.Sprintf("%s pg=%s sdb=%s | %s", d.kind, classOnly(d.pg), classOnly(d.sdb), d.tag)
	case coarse(d):
		return signaturePrefix(d) + " | " + c.mode() + " (either error may come first)"
	case refusal(d):
		return fmt.Sprintf("%s sdb=%s", d.kind, outcomeSig(d.sdb, true))
	}
	return signaturePrefix(d) + " | " + c.shape()
}

// refusal reports whether streamdb refused the statement or failed on it
// other than on its values (a missing feature, a typing error, a crash),
// or a view's job failed (FLUSH failed): its error message names the
// cause, whatever the statement.
func refusal(d *diff) bool {
	return d.sdb.Err != nil && (!runtimeError(d.sdb.Err) || d.detail == flushFailed)
}

// coarse reports whether d's signature leaves the statement out: a
// difference explain recognized, or two run-time errors that differ
// (which comes first depends on the order of evaluation). Those are not
// minimized either.
func coarse(d *diff) bool {
	return d.tag != "" || d.kind == KindSQLState || d.kind == KindErrorClass && d.low
}

// classOnly is "rows" or the SQLSTATE class of an error ("22...").
func classOnly(o Outcome) string {
	if o.Err != nil {
		return o.Err.Code[:2] + "..."
	}
	return o.code()
}

// signaturePrefix is the part of a signature that says how the outcomes
// differ.
func signaturePrefix(d *diff) string {
	return fmt.Sprintf("%s pg=%s sdb=%s", d.kind, outcomeSig(d.pg, false), outcomeSig(d.sdb, true))
}

// finding makes a finding of a (minimized) candidate.
func (ru *Runner) finding(ctx context.Context, cand candidate, original string) *Finding {
	f := &Finding{
		Kind: cand.d.kind, Seed: cand.seed, Mode: cand.c.mode(),
		Setup: cand.s.setup(cand.c), Stmt: cand.c.stmt(),
		PG: cand.d.pg.String(), SDB: cand.d.sdb.String(), Detail: cand.d.detail,
		Original:  original,
		Signature: signature(cand.d, cand.c),
		Low:       cand.d.low || cand.d.kind.Low(),
		Count:     1,
		features:  cand.c.features(),
	}
	if cand.c.view != nil && f.Kind == KindViewRows {
		f.Batch = ru.batchVerdict(ctx, cand)
	}
	return f
}

// batchVerdict runs a view's query as a batch query on streamdb and says
// whether it agrees with PostgreSQL, which tells a streaming bug from a
// batch one.
func (ru *Runner) batchVerdict(ctx context.Context, cand candidate) string {
	if err := ru.replay(ctx, &script{tables: cand.s.tables, steps: append(slices.Clone(cand.s.steps), cand.c.after...)}); err != nil {
		return "streamdb's batch answer: not compared (" + err.Error() + ")"
	}
	d, err := ru.run(ctx, check{query: cand.c.view.q})
	switch {
	case err != nil:
		return "streamdb's batch answer: not compared (" + err.Error() + ")"
	case d == nil:
		return "streamdb's batch answer to the view's query agrees with PostgreSQL: the difference is in the streaming plan"
	}
	return "streamdb's batch answer to the view's query differs too (" + string(d.kind) + "): " + d.sdb.String()
}

// Report renders the figures and the findings.
func (ru *Runner) Report() string {
	var b strings.Builder
	s := ru.Stats
	fmt.Fprintf(&b, "difftest: %d seeds in %v\n", s.Seeds, s.Elapsed.Round(time.Millisecond))
	counts := func(title string, m map[string]int) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(title + ":\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %-34s %6d\n", k, m[k])
		}
	}
	counts("statements compared", s.Checks)
	counts("PostgreSQL's outcomes", s.Outcomes)
	counts("views streamdb refused with 0A000 (unsupported)", s.Unsupported)
	fmt.Fprintf(&b, "statements PostgreSQL refused: %d\n", s.PostgresRefused)
	fmt.Fprintf(&b, "PostgreSQL failures on expressions streamdb did not evaluate (not differences): %d; seeds cut short by diverging tables: %d; restarts of streamdb: %d\n", s.Skipped, s.Diverged, s.Restarts)
	b.WriteString("differences by kind: found / known / distinct new / distinct new of lower severity\n")
	for _, k := range Kinds {
		var high, low int
		for _, f := range ru.Findings {
			switch {
			case f.Kind != k || f.Known != "":
			case f.Low:
				low++
			default:
				high++
			}
		}
		fmt.Fprintf(&b, "  %-14s %6d %6d %6d %6d\n", k, s.Found[k], s.Known[k], high, low)
	}
	section := func(title string, keep func(*Finding) bool) {
		first := true
		for _, f := range ru.Findings {
			if keep(f) {
				if first {
					b.WriteString("\n=== " + title + "\n")
					first = false
				}
				b.WriteString("\n" + f.Report())
			}
		}
	}
	section("new differences", func(f *Finding) bool { return f.Known == "" && !f.Low })
	section("new differences of lower severity", func(f *Finding) bool { return f.Known == "" && f.Low })
	for _, f := range ru.Findings {
		if f.Known != "" {
			fmt.Fprintf(&b, "\nknown (%s), seen %d times: %s\n", f.Known, f.Count, f.Signature)
		}
	}
	return b.String()
}

// Unexpected returns the findings of high severity not in the known list.
func (ru *Runner) Unexpected() []*Finding {
	var out []*Finding
	for _, f := range ru.Findings {
		if f.Known == "" && !f.Low {
			out = append(out, f)
		}
	}
	return out
}
