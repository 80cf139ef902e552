package difftest

import (
	"context"
	"errors"
	"slices"
	"strings"
)

// minimize shrinks a candidate while its difference stays the same kind
// with the same outcomes (a greedy reducer: drop steps, tables and rows;
// replace clauses, joins, set operations and expressions by simpler
// ones), within Config.ReduceSteps statements, and makes it a finding.
func (ru *Runner) minimize(ctx context.Context, cand candidate) (*Finding, error) {
	original := cand.c.stmt()
	// A timeout is not minimized: each attempt could wait as long.
	if ru.cfg.ReduceSteps > 0 && !coarse(cand.d) && cand.d.kind != KindTimeout {
		r := &reducer{ru: ru, ctx: ctx, want: cand.d, budget: ru.cfg.ReduceSteps, restarts: ru.Stats.Restarts + maxRestarts,
			s: cloneScript(cand.s), c: cloneCheck(cand.c)}
		for r.pass() {
		}
		if r.err != nil {
			return nil, r.err
		}
		cand.s, cand.c, cand.d = r.s, r.c, r.want
	}
	return ru.finding(ctx, cand, original), nil
}

// reducer holds a candidate being minimized.
type reducer struct {
	ru     *Runner
	ctx    context.Context
	want   *diff // the difference to keep (the latest one seen)
	s      *script
	c      check
	budget int
	// restarts is the count of streamdb's restarts at which to stop: a
	// difference that breaks the server costs a restart per attempt.
	restarts int
	// ready says the servers hold s's state, so a query needs no replay.
	ready bool
	err   error
}

// maxRestarts bounds the restarts of streamdb one minimization may cause.
const maxRestarts = 5

// mutation is one change to try; state marks changes to the script,
// which need a replay.
type mutation struct {
	apply, undo func()
	state       bool
}

// pass tries the mutations of the current candidate in turn and keeps
// the first that keeps the difference; it reports whether one did.
func (r *reducer) pass() bool {
	var muts []mutation
	add := func(m mutation) { muts = append(muts, m) }
	stmtMuts := func() {
		switch {
		case r.c.query != nil:
			queryMutations(r.c.query, add)
		case r.c.dml != nil:
			dmlMutations(r.c.dml, add)
		default:
			queryMutations(r.c.view.q, add)
		}
	}
	if r.c.query != nil {
		hoists(r.c.query, add)
		stmtMuts() // cheap: no replay
	} else if r.c.view != nil {
		hoists(r.c.view.q, add)
	}
	r.scriptMutations(add)
	if r.c.query == nil {
		stmtMuts()
	}
	for _, m := range muts {
		if r.budget <= 0 || r.err != nil || r.ru.Stats.Restarts >= r.restarts {
			return false
		}
		before := r.text()
		m.apply()
		if r.text() == before {
			m.undo()
			continue
		}
		if r.try(m.state) {
			return true
		}
		m.undo()
		if m.state {
			r.ready = false
		}
	}
	return false
}

// text is the whole reproduction, to skip mutations that change nothing.
func (r *reducer) text() string {
	return strings.Join(r.s.setup(r.c), ";") + ";" + r.c.stmt() + ";" + strings.Join(tableNames(r.s.tables), ",")
}

func tableNames(ts []*Table) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// try runs the candidate and reports whether the difference is still
// the one wanted.
func (r *reducer) try(stateChanged bool) bool {
	r.budget--
	if stateChanged || !r.ready || r.c.query == nil {
		if err := r.ru.replay(r.ctx, r.s); err != nil {
			r.ready = false
			if !errors.Is(err, errDiverged) {
				r.err = err
			}
			r.recoverIfLost()
			return false
		}
		r.ready = r.c.query != nil
	}
	d, err := r.ru.run(r.ctx, r.c)
	if err != nil && !errors.Is(err, errDiverged) && !errors.Is(err, errUnsupported) {
		r.err = err
	}
	r.recoverIfLost()
	if !same(r.want, d) {
		return false // no difference, or another one
	}
	// Only then, as it costs statements: is it one in evaluation only?
	var cc *check
	if d, cc = r.ru.explain(r.ctx, r.c, d); cc != nil || !same(r.want, d) {
		return false
	}
	r.want = d
	return true
}

// same reports whether d is the difference want is: the same kind, tag
// and outcomes. When streamdb refused or crashed (an error of another
// class than data errors) where PostgreSQL failed otherwise, PostgreSQL
// may answer instead.
func same(want, d *diff) bool {
	switch {
	case d == nil || d.tag != want.tag:
		return false
	case want.pg.Err != nil && want.sdb.Err != nil && want.sdb.Err.Code[:2] != "22" && want.kind != KindSQLState:
		return d.sdb.Err != nil && d.sdb.Err.Code == want.sdb.Err.Code && (d.pg.Err == nil || d.pg.Err.Code == want.pg.Err.Code)
	}
	return d.kind == want.kind && d.pg.code() == want.pg.code() && d.sdb.code() == want.sdb.code()
}

// recoverIfLost brings streamdb back after a mutation crashed it.
func (r *reducer) recoverIfLost() {
	if r.ru.sdb.pc == nil || r.ru.sdb.pc.IsClosed() {
		r.ready = false
		if err := r.ru.recover(r.ctx); err != nil && !errors.Is(err, errDiverged) && r.err == nil {
			r.err = err
		}
	}
}

// scriptMutations drop steps (and, for a view, create it after all of
// them), tables and rows.
func (r *reducer) scriptMutations(add func(mutation)) {
	s, c := r.s, &r.c
	if len(c.after) > 0 {
		steps, after := s.steps, c.after
		add(mutation{func() { s.steps, c.after = slices.Concat(steps, after), nil }, func() { s.steps, c.after = steps, after }, true})
	}
	for i := range c.after {
		old := c.after
		add(mutation{func() { c.after = slices.Delete(slices.Clone(old), i, i+1) }, func() { c.after = old }, true})
	}
	for i := len(s.steps) - 1; i >= 0; i-- {
		old := s.steps
		add(mutation{func() { s.steps = slices.Delete(slices.Clone(old), i, i+1) }, func() { s.steps = old }, true})
	}
	for i := range s.tables {
		old := s.tables
		add(mutation{func() { s.tables = slices.Delete(slices.Clone(old), i, i+1) }, func() { s.tables = old }, true})
	}
	for _, t := range s.tables {
		rowMutations(&t.Rows, add)
	}
}

// rowMutations remove chunks of rows, halves first.
func rowMutations(rows *[][]Value, add func(mutation)) {
	n := len(*rows)
	for size := n; size >= 1; size /= 2 {
		for i := 0; i+size <= n; i += size {
			old := *rows
			add(mutation{func() { *rows = slices.Delete(slices.Clone(old), i, i+size) }, func() { *rows = old }, true})
		}
	}
}

// dmlMutations shrink a DML statement: fewer rows, no WHERE, simpler
// expressions.
func dmlMutations(d *DML, add func(mutation)) {
	if d.Rows != nil {
		rowMutations(&d.Rows, add)
		return
	}
	if w := d.Where; w != nil {
		add(mutation{apply: func() { d.Where = nil }, undo: func() { d.Where = w }})
		exprMutations(w, add)
	}
	for _, v := range d.Values {
		exprMutations(v, add)
	}
}

// hoists replace the whole query by one of its subqueries or derived
// tables (an uncorrelated one runs alone), and an output column of a
// SELECT by any of its subexpressions (the type of the column does not
// matter at the top).
func hoists(q *Query, add func(mutation)) {
	old := *q
	q.walk(func(e *Expr) {
		if e.Sub != nil {
			sub := *e.Sub
			add(mutation{apply: func() { *q = sub }, undo: func() { *q = old }})
		}
	}, nil, func(f *From) {
		if f.Sub != nil {
			sub := *f.Sub
			add(mutation{apply: func() { *q = sub }, undo: func() { *q = old }})
		}
	}, nil)
	if q.Sel == nil || q.Sel.Star != "" {
		return
	}
	for i, it := range q.Sel.Items {
		walkExpr(it.E, func(e *Expr) {
			if e != it.E {
				items := q.Sel.Items
				add(mutation{apply: func() {
					q.Sel.Items = slices.Clone(items)
					q.Sel.Items[i].E = e
				}, undo: func() { q.Sel.Items = items }})
			}
		})
	}
}

// queryMutations replace a set operation by one side, drop ORDER BY,
// LIMIT, OFFSET, DISTINCT, WHERE, GROUP BY, HAVING and items, replace
// joins by one side, and shrink expressions, subqueries included.
func queryMutations(q *Query, add func(mutation)) {
	swap := func(p **Expr) {
		old := *p
		if old != nil {
			add(mutation{apply: func() { *p = nil }, undo: func() { *p = old }})
		}
	}
	if q.SetOp != "" {
		for _, side := range []*Query{q.Left, q.Right} {
			old := *q
			repl := *side
			repl.OrderBy, repl.Limit, repl.Offset = q.OrderBy, q.Limit, q.Offset
			add(mutation{apply: func() { *q = repl }, undo: func() { *q = old }})
		}
	}
	if len(q.OrderBy) > 0 || q.Limit >= 0 || q.Offset >= 0 {
		o, l, off := q.OrderBy, q.Limit, q.Offset
		add(mutation{apply: func() { q.OrderBy, q.Limit, q.Offset = nil, -1, -1 }, undo: func() { q.OrderBy, q.Limit, q.Offset = o, l, off }})
		add(mutation{apply: func() { q.Limit, q.Offset = -1, -1 }, undo: func() { q.Limit, q.Offset = l, off }})
		add(mutation{apply: func() { q.Offset = -1 }, undo: func() { q.Offset = off }})
	}
	if q.SetOp != "" {
		queryMutations(q.Left, add)
		queryMutations(q.Right, add)
		return
	}
	s := q.Sel
	if s.Distinct {
		add(mutation{apply: func() { s.Distinct = false }, undo: func() { s.Distinct = true }})
	}
	swap(&s.Where)
	swap(&s.Having)
	if g := s.GroupBy; g != nil {
		add(mutation{apply: func() { s.GroupBy = nil }, undo: func() { s.GroupBy = g }})
	}
	if len(s.Items) > 1 && s.Star == "" {
		for i := range s.Items {
			old := s.Items
			add(mutation{apply: func() { s.Items = slices.Delete(slices.Clone(old), i, i+1) }, undo: func() { s.Items = old }})
		}
	}
	fromMutations(s.From, add)
	for _, it := range s.Items {
		exprMutations(it.E, add)
	}
	for _, e := range slices.Concat([]*Expr{s.Where, s.Having}, s.GroupBy) {
		if e != nil {
			exprMutations(e, add)
		}
	}
}

// fromMutations replace a join by either side, drop its condition, and
// shrink derived tables and conditions.
func fromMutations(f *From, add func(mutation)) {
	switch {
	case f == nil:
	case f.Sub != nil:
		queryMutations(f.Sub, add)
	case f.Join != "":
		old := *f
		for _, side := range []*From{f.L, f.R} {
			repl := *side
			add(mutation{apply: func() { *f = repl }, undo: func() { *f = old }})
		}
		if f.Join != "FULL JOIN" && (f.On != nil || f.Using != nil || f.Natural) {
			add(mutation{apply: func() { f.Join, f.On, f.Using, f.Natural = "CROSS JOIN", nil, nil, false }, undo: func() { *f = old }})
		}
		fromMutations(f.L, add)
		fromMutations(f.R, add)
		if f.On != nil {
			exprMutations(f.On, add)
		}
	}
}

// exprMutations replace each node of e by one of its arguments of the
// same type or by a NULL of its type.
func exprMutations(e *Expr, add func(mutation)) {
	old := *e
	for _, a := range e.Args {
		if a.T == e.T {
			repl := *a
			add(mutation{apply: func() { *e = repl }, undo: func() { *e = old }})
		}
	}
	if e.Leaf != nullLeaf {
		add(mutation{apply: func() { *e = *nullOf(old.T) }, undo: func() { *e = old }})
	}
	for _, a := range e.Args {
		exprMutations(a, add)
	}
	if e.Sub != nil {
		queryMutations(e.Sub, add)
	}
}

// cloneScript copies a script's tables and rows lists (not the rows),
// so that a reduction does not change what other candidates share.
func cloneScript(s *script) *script {
	out := &script{steps: slices.Clone(s.steps)}
	for _, t := range s.tables {
		cp := *t
		out.tables = append(out.tables, &cp)
	}
	return out
}

// cloneCheck deep-copies the statement a reduction changes.
func cloneCheck(c check) check {
	cl := cloner{}
	c.after = slices.Clone(c.after)
	switch {
	case c.query != nil:
		c.query = cl.query(c.query)
	case c.dml != nil:
		d := *c.dml
		d.Where = cl.expr(d.Where)
		d.Values = slices.Clone(d.Values)
		for i, v := range d.Values {
			d.Values[i] = cl.expr(v)
		}
		c.dml = &d
	default:
		c.view = &viewDef{name: c.view.name, q: cl.query(c.view.q)}
	}
	return c
}

// cloner deep-copies ASTs, keeping shared nodes shared.
type cloner map[*Expr]*Expr

func (cl cloner) expr(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	if c, ok := cl[e]; ok {
		return c
	}
	c := *e
	cl[e] = &c
	c.Parts = slices.Clone(e.Parts)
	c.Args = make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		c.Args[i] = cl.expr(a)
	}
	if e.Sub != nil {
		c.Sub = cl.query(e.Sub)
	}
	return &c
}

func (cl cloner) query(q *Query) *Query {
	c := *q
	c.OrderBy = slices.Clone(q.OrderBy)
	if q.SetOp != "" {
		c.Left, c.Right = cl.query(q.Left), cl.query(q.Right)
		return &c
	}
	s := *q.Sel
	s.Items = slices.Clone(s.Items)
	for i := range s.Items {
		s.Items[i].E = cl.expr(s.Items[i].E)
	}
	s.From = cl.from(s.From)
	s.Where, s.Having = cl.expr(s.Where), cl.expr(s.Having)
	s.GroupBy = slices.Clone(s.GroupBy)
	for i, g := range s.GroupBy {
		s.GroupBy[i] = cl.expr(g)
	}
	c.Sel = &s
	return &c
}

func (cl cloner) from(f *From) *From {
	if f == nil {
		return nil
	}
	c := *f
	if f.Sub != nil {
		c.Sub = cl.query(f.Sub)
	}
	c.L, c.R, c.On = cl.from(f.L), cl.from(f.R), cl.expr(f.On)
	c.Using = slices.Clone(f.Using)
	return &c
}
