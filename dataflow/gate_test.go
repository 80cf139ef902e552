package dataflow

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// seenSpec builds an operator that reports each chunk, watermark and
// barrier it gets on seen; lazy says whether it reads state lazily.
type seenSpec struct {
	lazy bool
	seen chan string
}

func (s *seenSpec) Build(*Env) (Operator, error) { return &seenOp{seen: s.seen}, nil }
func (s *seenSpec) Explain() string              { return "Seen" }
func (s *seenSpec) lazyState() bool              { return s.lazy }

type seenOp struct{ seen chan string }

func (o *seenOp) Process(_ int, c *Chunk, _ Emit) error {
	o.seen <- strings.ReplaceAll(strings.TrimSpace(c.String()), "\n", ",")
	return nil
}

func (o *seenOp) Barrier(b *Barrier, _ Emit) error {
	o.seen <- fmt.Sprintf("barrier %d", b.Epoch)
	return nil
}

func (o *seenOp) Watermark(_ int, w Watermark, _ Emit, _ WatermarkEmit) error {
	o.seen <- "watermark " + w.Val.String()
	return nil
}

// gateRig runs an actor owning the vnode of key 1 that gains every other
// vnode at the barrier of epoch 1 from a loser whose handoff the test
// finishes (done).
type gateRig struct {
	t    *testing.T
	in   chan Message
	seen chan string
	h    *handoff
	// kept is a key of a kept vnode, gained keys of gained vnodes.
	kept   int64
	gained []int64
}

func newGateRig(t *testing.T, lazy bool) *gateRig {
	env := newEnv(t)
	r := &gateRig{t: t, in: make(chan Message, queueLen), seen: make(chan string, 64), h: newHandoff(), kept: 1}
	keys := []int{0}
	var buf []byte
	vnode := func(k int64) int { return int(rowVNode(&buf, []types.Datum{types.NewInt(k)}, keys, testVNodes)) }
	owned := NewBitmap(testVNodes)
	owned.Set(vnode(r.kept))
	for k := int64(2); len(r.gained) < 3; k++ {
		if !owned.Has(vnode(k)) {
			r.gained = append(r.gained, k)
		}
	}
	r.h.caches = map[uint32]map[uint16]*vnodeCache{}
	a := &actor{id: 1, rows: &rowCounts{}, specs: []Spec{&seenSpec{lazy: lazy, seen: r.seen}}, inputs: []InputSpec{{Dist: DistHash, Keys: keys}},
		out: &dispatcher{}, mgr: NewBarrierManager(env.Store, 0, Hooks{})}
	a.ports = []*inputPort{newPort(r.in, 0)}
	before := *env
	before.VNodes = owned
	if err := a.build(&before); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && err != context.Canceled {
			t.Error(err)
		}
	})
	mu := &UpdateMutation{actors: map[*actor]*actorUpdate{a: {env: env, gains: []*handoff{r.h}}}, cache: CacheHandover, counters: &rescaleCounters{}}
	r.in <- &Barrier{Epoch: 1, Checkpoint: true, Mutation: mu}
	r.expect("barrier 1")
	return r
}

// rows sends a chunk inserting keys.
func (r *gateRig) rows(keys ...int64) {
	c := newChunk(len(keys))
	for _, k := range keys {
		c.Append(Insert, []types.Datum{types.NewInt(k)})
	}
	r.in <- c
}

// expect fails unless the operator sees want next.
func (r *gateRig) expect(want string) {
	r.t.Helper()
	select {
	case got := <-r.seen:
		if got != want {
			r.t.Fatalf("operator saw %q, want %q", got, want)
		}
	case <-time.After(5 * time.Second):
		r.t.Fatalf("operator did not see %q", want)
	}
}

// quiet fails if the operator sees anything for a while.
func (r *gateRig) quiet() {
	r.t.Helper()
	select {
	case got := <-r.seen:
		r.t.Fatalf("operator saw %q while the handoff is pending", got)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestGateHoldsGainedRows: while the handoff is pending, rows of the kept
// vnode go on and rows of gained vnodes wait; once it is done they go on
// in arrival order, without another message to wake the actor.
func TestGateHoldsGainedRows(t *testing.T) {
	r := newGateRig(t, true)
	g := r.gained
	r.rows(g[0], r.kept, g[1])
	r.expect("+ 1")
	r.rows(g[2], r.kept)
	r.expect("+ 1")
	r.quiet()
	close(r.h.done)
	r.expect(fmt.Sprintf("+ %d,+ %d", g[0], g[1]))
	r.expect(fmt.Sprintf("+ %d", g[2]))
	r.rows(g[0], r.kept)
	r.expect(fmt.Sprintf("+ %d,+ 1", g[0]))
}

// TestGateHeldRowsGoFirst: neither a barrier nor a watermark overtakes
// held rows.
func TestGateHeldRowsGoFirst(t *testing.T) {
	for _, tc := range []struct {
		m    Message
		seen string
	}{
		{&Barrier{Epoch: 2, Checkpoint: true}, "barrier 2"},
		{&Watermark{Col: 0, Val: types.NewInt(7)}, "watermark 7"},
	} {
		r := newGateRig(t, true)
		r.rows(r.gained[0], r.kept)
		r.expect("+ 1")
		r.in <- tc.m
		r.quiet()
		close(r.h.done)
		r.expect(fmt.Sprintf("+ %d", r.gained[0]))
		r.expect(tc.seen)
	}
}

// TestGateSplitsUpdates: an update pair whose rows the gate parts becomes
// a delete that goes on and an insert that waits.
func TestGateSplitsUpdates(t *testing.T) {
	r := newGateRig(t, true)
	c := newChunk(2)
	c.Append(UpdateDelete, []types.Datum{types.NewInt(r.kept)})
	c.Append(UpdateInsert, []types.Datum{types.NewInt(r.gained[0])})
	r.in <- c
	r.expect("- 1")
	close(r.h.done)
	r.expect(fmt.Sprintf("+ %d", r.gained[0]))
}

// TestEagerChainWaitsPerActor: an actor with an operator that loads state
// at build processes no row until its handoffs are done.
func TestEagerChainWaitsPerActor(t *testing.T) {
	r := newGateRig(t, false)
	r.rows(r.kept)
	r.quiet()
	close(r.h.done)
	r.expect("+ 1")
}

// TestGateFullWaits: once the gate holds heldRows rows, the actor waits
// for the handoffs, so that rows of kept vnodes queue behind it too
// (memory stays bounded); the held rows then go first.
func TestGateFullWaits(t *testing.T) {
	r := newGateRig(t, true)
	chunks := heldRows / MaxChunkRows
	sent := make(chan struct{})
	go func() {
		for i := range chunks {
			c := newChunk(MaxChunkRows)
			for j := range MaxChunkRows {
				c.Append(Insert, []types.Datum{types.NewInt(r.gained[(i+j)%len(r.gained)])})
			}
			r.in <- c
		}
		close(sent)
		r.rows(r.kept)
	}()
	<-sent
	r.quiet()
	close(r.h.done)
	for i := range chunks {
		select {
		case got := <-r.seen:
			if got == "+ 1" {
				t.Fatalf("a kept row overtook held chunk %d of %d", i, chunks)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("held chunk %d of %d did not come", i, chunks)
		}
	}
	r.expect("+ 1")
}
