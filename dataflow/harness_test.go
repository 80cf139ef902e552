package dataflow

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
	"pgregory.net/rapid"
)

// tester is what test helpers need of *testing.T and *rapid.T.
type tester interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// testVNodes is the number of vnodes of test jobs.
const testVNodes = 16

// openEngine opens a storage engine in a fresh temporary directory.
func openEngine(t testing.TB, dir string) *storage.Engine {
	t.Helper()
	e, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// newEnv returns an environment owning every vnode over a new store on a
// fresh engine, closed at the end of the test.
func newEnv(t testing.TB) *Env {
	t.Helper()
	e := openEngine(t, t.TempDir())
	t.Cleanup(func() { e.Close() })
	return envOver(NewStore(e))
}

// envOver returns an environment owning every vnode over store.
func envOver(store *Store) *Env {
	return &Env{
		Ctx: context.Background(), VNodes: FullBitmap(testVNodes), VNodeCount: testVNodes,
		Store: store, Eval: &Evaluator{Ctx: expr.NewCtx(context.Background(), nil)},
	}
}

// mustBuild builds the operator of spec over env.
func mustBuild(t tester, spec Spec, env *Env) Operator {
	t.Helper()
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// colRef returns a reference to input column i of type t.
func colRef(i int, t types.T) expr.Expr { return &expr.ColRef{Idx: i, T: t} }

// newAgg resolves an aggregate call (no arguments: count(*)).
func newAgg(t tester, name string, distinct bool, args ...expr.Expr) *expr.AggFunc {
	t.Helper()
	a, err := expr.NewAgg(name, args, distinct, len(args) == 0)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// binOp builds a binary operator expression.
func binOp(t tester, op string, l, r expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.NewBinary(op, l, r)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// parseChunk builds a chunk from lines "op v1 v2 ..." (op as Op.String
// prints it, NULL for a null value, values in PostgreSQL text format
// without spaces, UNCHANGED for types.Unchanged) of rows with types ts.
func parseChunk(t tester, ts []types.T, lines ...string) *Chunk {
	t.Helper()
	ops := map[string]Op{"+": Insert, "-": Delete, "U-": UpdateDelete, "U+": UpdateInsert, "T": Truncate}
	c := &Chunk{}
	for _, l := range lines {
		f := strings.Fields(l)
		op, ok := ops[f[0]]
		if !ok || len(f)-1 != len(ts) {
			t.Fatalf("bad test row %q", l)
		}
		row := make([]types.Datum, len(ts))
		for i, s := range f[1:] {
			switch s {
			case "NULL":
				continue
			case "UNCHANGED":
				row[i] = types.Unchanged
				continue
			}
			d, err := types.ParseText(ts[i], s)
			if err != nil {
				t.Fatalf("bad value %q in %q: %v", s, l, err)
			}
			row[i] = d
		}
		c.Append(op, row)
	}
	return c
}

// testStep is one input event of an operator test: a chunk of rows for an
// input, or a barrier; want is the output it must produce, in Chunk.String
// lines.
type testStep struct {
	input      int
	rows       []string
	barrier    bool
	checkpoint bool
	// time is the barrier's Time.
	time int64
	want []string
}

// in is a step feeding rows to input 0.
func in(rows ...string) testStep { return testStep{rows: rows} }

// barrier is a step ending an epoch (a checkpoint).
func barrier() testStep { return testStep{barrier: true, checkpoint: true} }

// emits sets what a step must output.
func (s testStep) emits(lines ...string) testStep { s.want = lines; return s }

// collector gathers an operator's output.
type collector struct{ b strings.Builder }

func (c *collector) emit(ch *Chunk) error {
	c.b.WriteString(ch.String())
	return nil
}

// take returns and resets the output so far, as lines.
func (c *collector) take() []string {
	s := strings.TrimSuffix(c.b.String(), "\n")
	c.b.Reset()
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// runSteps feeds steps to op, whose inputs have types inputs, and checks
// each step's output. Barriers get epochs 1, 2, ...
func runSteps(t *testing.T, op Operator, inputs [][]types.T, steps []testStep) {
	t.Helper()
	var out collector
	epoch := uint64(0)
	for i, s := range steps {
		var err error
		if s.barrier {
			epoch++
			err = op.Barrier(&Barrier{Epoch: epoch, Checkpoint: s.checkpoint, Time: s.time}, out.emit)
		} else {
			err = op.Process(s.input, parseChunk(t, inputs[s.input], s.rows...), out.emit)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := out.take(); strings.Join(got, "\n") != strings.Join(s.want, "\n") {
			t.Fatalf("step %d %v: output\n%s\nwant\n%s", i, s.rows, strings.Join(got, "\n"), strings.Join(s.want, "\n"))
		}
	}
}

// rowString renders a row as Chunk.String does, without the op.
func rowString(row []types.Datum) string {
	var b strings.Builder
	for i, d := range row {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// view is a materialized multiset of rows built from an operator's
// changelog, checked for consistency as it is applied.
type view struct {
	rows map[string]int
}

func newView() *view { return &view{rows: map[string]int{}} }

// apply applies an output chunk: deletes must name live rows and update
// halves must come in pairs.
func (v *view) apply(c *Chunk) error {
	for i, op := range c.Ops {
		switch {
		case op == UpdateDelete && (i+1 == len(c.Ops) || c.Ops[i+1] != UpdateInsert):
			return fmt.Errorf("UpdateDelete without UpdateInsert in\n%s", c)
		case op == UpdateInsert && (i == 0 || c.Ops[i-1] != UpdateDelete):
			return fmt.Errorf("UpdateInsert without UpdateDelete in\n%s", c)
		}
		k := rowString(c.Rows[i])
		if op.IsInsert() {
			v.rows[k]++
			continue
		}
		if v.rows[k] == 0 {
			return fmt.Errorf("delete of a row not in the view: %s", k)
		}
		if v.rows[k]--; v.rows[k] == 0 {
			delete(v.rows, k)
		}
	}
	return nil
}

// sorted returns the view's rows, one line per copy, sorted.
func (v *view) sorted() []string {
	var out []string
	for k, n := range v.rows {
		for ; n > 0; n-- {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// sortedRows renders rows, sorted.
func sortedRows(rows [][]types.Datum) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = rowString(r)
	}
	sort.Strings(out)
	return out
}

// batch runs a batch operator and returns its rows.
func batch(t tester, op exec.Op) [][]types.Datum {
	t.Helper()
	rows, err := exec.Collect(expr.NewCtx(context.Background(), nil), op)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// liveRows is the live input of a stream with a stream key: rows in
// insertion order, keyed by their rendered stream key.
type liveRows struct {
	keys []int
	rows [][]types.Datum
}

func (l *liveRows) key(row []types.Datum) string {
	k, _ := rowkey.AppendCols(nil, row, l.keys)
	return string(k)
}

// remove deletes the live row with row's stream key.
func (l *liveRows) remove(row []types.Datum) {
	k := l.key(row)
	for i, r := range l.rows {
		if l.key(r) == k {
			l.rows = append(l.rows[:i:i], l.rows[i+1:]...)
			return
		}
	}
	panic("no live row " + rowString(row))
}

// oracle describes a property test of an operator: random changelogs on
// its inputs, consistent with their stream keys, are cut into chunks and
// epochs; after every barrier the view of the operator's output must equal
// want over the live input rows.
type oracle struct {
	// keys are the stream keys of the inputs (the id column is first).
	keys [][]int
	// row draws a row with stream key id for input i.
	row func(t *rapid.T, input int, id int64) []types.Datum
	// appendOnly inputs get inserts only.
	appendOnly bool
	// maxRows, where set and positive, bounds the live rows of an input
	// (a one-row side): an insert beyond it is an update instead.
	maxRows []int
	// want computes the expected output rows, sorted, from each input's
	// live rows in insertion order.
	want func(live [][][]types.Datum) []string
}

// tableIDs hands out fresh state table ids, so property test runs can
// share one engine.
var tableIDs atomic.Uint32

// freshTable returns an unused table id.
func freshTable() uint32 { return tableIDs.Add(1) + 1000 }

// check runs one random scenario against the operator built from spec
// over engine, with a cache budget of nothing, a few groups or the
// default. Operators are rebuilt over a new Store after some checkpoints
// (a recovery): their state must carry over. Checkpoints are sealed at
// once or later, so that groups become evictable at different times.
func (o *oracle) check(t *rapid.T, engine *storage.Engine, spec Spec) {
	cacheBytes := rapid.SampledFrom([]int64{0, 2 << 10, DefaultCacheBytes}).Draw(t, "cacheBytes")
	newStore := func() *Store {
		s := NewStore(engine)
		s.SetCacheBytes(cacheBytes)
		return s
	}
	store := newStore()
	build := func() Operator { return mustBuild(t, spec, envOver(store)) }
	op := build()
	v := newView()
	emit := func(c *Chunk) error { return v.apply(c) }
	live := make([]liveRows, len(o.keys))
	for i := range live {
		live[i].keys = o.keys[i]
	}
	pending := make([]*Chunk, len(o.keys))
	flush := func() {
		for i, c := range pending {
			if c != nil {
				if err := op.Process(i, c, emit); err != nil {
					t.Fatal(err)
				}
			}
			pending[i] = nil
		}
	}
	add := func(input int, op Op, row []types.Datum) {
		if pending[input] == nil {
			pending[input] = &Chunk{}
		}
		pending[input].Append(op, row)
	}
	var epoch uint64
	nextID := int64(0)
	actions := []string{"insert", "insert", "insert", "delete", "update", "chunk", "barrier", "checkpoint", "recover"}
	if o.appendOnly {
		actions = []string{"insert", "insert", "insert", "chunk", "barrier", "checkpoint", "recover"}
	}
	steps := rapid.IntRange(1, 60).Draw(t, "steps")
	for s := 0; s < steps; s++ {
		input := rapid.IntRange(0, len(o.keys)-1).Draw(t, "input")
		l := &live[input]
		action := rapid.SampledFrom(actions).Draw(t, "action")
		if action == "insert" && input < len(o.maxRows) && o.maxRows[input] > 0 && len(l.rows) >= o.maxRows[input] {
			action = "update"
		}
		switch {
		case action == "insert" || ((action == "delete" || action == "update") && len(l.rows) == 0):
			nextID++
			row := o.row(t, input, nextID)
			l.rows = append(l.rows, row)
			add(input, Insert, row)
		case action == "delete":
			row := l.rows[rapid.IntRange(0, len(l.rows)-1).Draw(t, "victim")]
			l.remove(row)
			add(input, Delete, row)
		case action == "update":
			old := l.rows[rapid.IntRange(0, len(l.rows)-1).Draw(t, "victim")]
			row := o.row(t, input, old[0].Int())
			l.remove(old)
			l.rows = append(l.rows, row)
			add(input, UpdateDelete, old)
			add(input, UpdateInsert, row)
		case action == "chunk":
			flush()
		default:
			flush()
			epoch++
			b := &Barrier{Epoch: epoch, Checkpoint: action != "barrier"}
			if err := op.Barrier(b, emit); err != nil {
				t.Fatal(err)
			}
			rows := make([][][]types.Datum, len(live))
			for i := range live {
				rows[i] = live[i].rows
			}
			if got, want := v.sorted(), o.want(rows); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("after epoch %d the view is\n%s\nwant\n%s", epoch, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if b.Checkpoint && (action == "recover" || rapid.Bool().Draw(t, "seal")) {
				if err := store.Seal(epoch, nil, true); err != nil {
					t.Fatal(err)
				}
			}
			if used := store.CacheUsage(); used < 0 {
				t.Fatalf("cache usage %d", used)
			}
			if action == "recover" {
				store = newStore()
				op = build()
			}
		}
	}
}
