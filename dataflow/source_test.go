package dataflow

import (
	"slices"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// counter is a split reader of split i of n over a table whose row r
// holds r, for r < rows: its offsets count 0, 1, 2, ... and row r = i +
// n*offset. Each row costs gap of pace.
type counter struct {
	i, n, rows  int64
	next, first int64
	gap         time.Duration
}

func (c *counter) Next(rows [][]types.Datum) int {
	k := 0
	for ; k < len(rows) && !c.Done(); k++ {
		rows[k][0] = types.NewInt(c.i + c.n*c.next)
		c.next++
	}
	return k
}
func (c *counter) Offset() int64       { return c.next }
func (c *counter) SetOffset(o int64)   { c.next, c.first = o, o }
func (c *counter) Done() bool          { return c.i+c.n*c.next >= c.rows }
func (c *counter) Pace() time.Duration { return c.gap * time.Duration(c.next-c.first) }
func counterSpec(n, rows int64, gap time.Duration) *SourceSpec {
	return &SourceSpec{Name: "counter", Splits: int(n), Width: 1, StateTable: 7,
		NewSplits: func(ids []int) []SplitReader {
			out := make([]SplitReader, len(ids))
			for k, i := range ids {
				out[k] = &counter{i: int64(i), n: n, rows: rows, gap: gap}
			}
			return out
		}}
}

// buildSource builds spec's operator for an actor reading splits.
func buildSource(t *testing.T, spec *SourceSpec, env *Env, splits []int) *source {
	t.Helper()
	env.Splits = splits
	op, err := spec.Build(env)
	if err != nil {
		t.Fatal(err)
	}
	return op.(*source)
}

// TestSourceResumesAtCheckpoint emits some chunks, checkpoints, emits
// more whose checkpoint is never sealed (a crash), then rebuilds the
// operator over the same storage and reads to the end: every row of the
// actor's splits arrives exactly once, under the row id offset*n + split.
func TestSourceResumesAtCheckpoint(t *testing.T) {
	for _, c := range []struct {
		splits      int64
		owned       []int
		rows        int64
		beforeCrash int // chunks emitted in the crashed epoch
	}{
		{1, []int{0}, 5000, 2},
		{3, []int{0, 2}, 10000, 3},
		{4, []int{1}, 100, 1},
	} {
		env := newEnv(t)
		spec := counterSpec(c.splits, c.rows, 0)
		seen := map[int64]int{}
		var kept []int64 // values of committed epochs
		var crashed []int64
		emitTo := func(dst *[]int64) Emit {
			return func(ch *Chunk) error {
				for i, row := range ch.Rows {
					if ch.Ops[i] != Insert {
						t.Fatalf("source emitted %v", ch.Ops[i])
					}
					v, id := row[0].Int(), row[1].Int()
					if id != (v/c.splits)*c.splits+v%c.splits {
						t.Fatalf("row %d has id %d", v, id)
					}
					*dst = append(*dst, v)
				}
				return nil
			}
		}
		op := buildSource(t, spec, env, c.owned)
		for range 2 {
			if wait, err := op.generate(emitTo(&kept)); err != nil || wait > 0 {
				t.Fatalf("generate: %v, %v", wait, err)
			}
		}
		if err := op.Barrier(&Barrier{Epoch: 1, Checkpoint: true}, nil); err != nil {
			t.Fatal(err)
		}
		if err := env.Store.Seal(1, nil, true); err != nil {
			t.Fatal(err)
		}
		for range c.beforeCrash {
			if _, err := op.generate(emitTo(&crashed)); err != nil {
				t.Fatal(err)
			}
		}
		if err := op.Barrier(&Barrier{Epoch: 2, Checkpoint: true}, nil); err != nil {
			t.Fatal(err)
		}
		// Recovery: a new store over the same engine; epoch 2 never sealed.
		op = buildSource(t, spec, envOver(NewStore(env.Store.Engine())), c.owned)
		for {
			wait, err := op.generate(emitTo(&kept))
			if err != nil {
				t.Fatal(err)
			}
			if wait < 0 {
				break
			}
		}
		for _, v := range kept {
			seen[v]++
		}
		var want []int64
		for r := range c.rows {
			if slices.Contains(c.owned, int(r%c.splits)) {
				want = append(want, r)
				if seen[r] != 1 {
					t.Fatalf("%d splits, owning %v: row %d arrived %d times", c.splits, c.owned, r, seen[r])
				}
			}
		}
		if len(kept) != len(want) {
			t.Fatalf("%d splits, owning %v: %d rows, want %d", c.splits, c.owned, len(kept), len(want))
		}
	}
}

// TestSourcePacing checks that a paced split emits only what is due: the
// first row, then nothing until its time comes.
func TestSourcePacing(t *testing.T) {
	op := buildSource(t, counterSpec(2, 100, time.Hour), newEnv(t), []int{0, 1})
	var got []string
	emit := func(c *Chunk) error { got = append(got, c.String()); return nil }
	for range 2 {
		if wait, err := op.generate(emit); err != nil || wait != 0 {
			t.Fatalf("generate: %v, %v", wait, err)
		}
	}
	if want := []string{"+ 0 0\n", "+ 1 1\n"}; !slices.Equal(got, want) {
		t.Fatalf("paced output %q, want %q", got, want)
	}
	if wait, err := op.generate(emit); err != nil || wait <= 0 || len(got) != 2 {
		t.Fatalf("generate before the next row is due: wait %v, err %v, output %q", wait, err, got)
	}
}

// live is a live split reader: it hands out the values queued in buf,
// whose offsets count from 0; it records every SetOffset.
type live struct {
	buf        []int64
	next       int64
	positioned int
	closed     bool
}

func (l *live) Next(rows [][]types.Datum) int {
	k := 0
	for ; k < len(rows) && len(l.buf) > 0; k++ {
		rows[k][0] = types.NewInt(l.buf[0])
		l.buf, l.next = l.buf[1:], l.next+1
	}
	return k
}
func (l *live) Offset() int64       { return l.next }
func (l *live) SetOffset(o int64)   { l.next, l.positioned = o, l.positioned+1 }
func (l *live) Done() bool          { return false }
func (l *live) Pace() time.Duration { return -5 * time.Millisecond }
func (l *live) Close() error        { l.closed = true; return nil }

// TestSourceLiveSplit checks that a live split with nothing buffered asks
// to be woken after -Pace, emits what arrives at once, is never
// re-positioned, and is closed with its operator.
func TestSourceLiveSplit(t *testing.T) {
	sp := &live{}
	spec := &SourceSpec{Name: "live", Splits: 2, Width: 1, StateTable: 7,
		NewSplits: func([]int) []SplitReader { return []SplitReader{sp} }}
	op := buildSource(t, spec, newEnv(t), []int{1})
	var got []string
	emit := func(c *Chunk) error { got = append(got, c.String()); return nil }
	for _, c := range []struct {
		queue []int64
		wait  time.Duration
		want  []string
	}{
		{nil, 5 * time.Millisecond, nil},
		{[]int64{10, 11}, 0, []string{"+ 10 1\n+ 11 3\n"}},
		{nil, 5 * time.Millisecond, nil},
		{[]int64{12}, 0, []string{"+ 12 5\n"}},
	} {
		sp.buf, got = c.queue, nil
		wait, err := op.generate(emit)
		if err != nil || wait != c.wait || !slices.Equal(got, c.want) {
			t.Fatalf("queue %v: generate = %v, %v, output %q; want %v, %q", c.queue, wait, err, got, c.wait, c.want)
		}
	}
	if sp.positioned != 0 {
		t.Fatalf("a live split was positioned %d times", sp.positioned)
	}
	if op.close(); !sp.closed {
		t.Fatal("closing the source left its split open")
	}
}

// TestSourceDone checks that exhausted splits report no wait and emit
// nothing, and that an actor without splits is done at once.
func TestSourceDone(t *testing.T) {
	for _, owned := range [][]int{nil, {0}} {
		op := buildSource(t, counterSpec(1, 0, 0), newEnv(t), owned)
		wait, err := op.generate(func(c *Chunk) error { t.Fatalf("emitted %s", c); return nil })
		if err != nil || wait >= 0 {
			t.Fatalf("splits %v: generate = %v, %v", owned, wait, err)
		}
	}
}

func TestSplitsOf(t *testing.T) {
	// ranges returns the owners of 256 vnodes split into ranges of the
	// given sizes, owned by slots 0, 1, ...
	ranges := func(sizes ...int) []int {
		var owner []int
		for s, n := range sizes {
			for range n {
				owner = append(owner, s)
			}
		}
		return owner
	}
	for _, c := range []struct {
		splits int
		owner  []int
		slot   int
		want   []int
	}{
		{4, ranges(256), 0, []int{0, 1, 2, 3}},
		// Splits spread over actors owning ranges of vnodes.
		{3, ranges(86, 85, 85), 0, []int{0}},
		{3, ranges(86, 85, 85), 1, []int{1}},
		{3, ranges(86, 85, 85), 2, []int{2}},
		{5, ranges(128, 128), 0, []int{0, 1}},
		{5, ranges(128, 128), 1, []int{2, 3, 4}},
		{1, ranges(86, 85, 85), 1, []int{0}},
		{1, ranges(86, 85, 85), 2, nil},
		// More splits than vnodes: several go with one vnode.
		{600, ranges(256), 0, nil},
	} {
		got := splitsOf(c.splits, c.owner, c.slot)
		if c.splits == 600 {
			if len(got) != 600 {
				t.Errorf("splitsOf(600, one slot) has %d splits", len(got))
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("splitsOf(%d, slot %d) = %v, want %v", c.splits, c.slot, got, c.want)
		}
	}
}
