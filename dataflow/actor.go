package dataflow

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// inbound is a message tagged with the input it arrived on.
type inbound struct {
	input int
	slot  int
	msg   Message
}

// inputPort is one upstream queue of an actor.
type inputPort struct {
	ch    chan Message
	input int
	// slot numbers the port among the ports of its input.
	slot   int
	resume chan struct{}
}

// actor runs one fragment's pipeline over the vnodes it owns: it merges
// its input queues with barrier alignment, drives the operator chain and
// dispatches the output.
type actor struct {
	id    int
	job   uint32
	ports []*inputPort
	// pre holds per-input stages before the chain (backfills).
	pre   map[int]Operator
	chain []Operator
	out   *dispatcher
	mgr   *BarrierManager
	emits []Emit
	// wmEmits[i] takes the watermarks of chain[i]'s output; wmIn merges
	// each input's watermarks over its ports.
	wmEmits []WatermarkEmit
	wmIn    []*watermarkMin
	// gen is the head of a source actor's chain, which makes rows itself;
	// paused holds it back until a ResumeMutation (a restarted job).
	gen    generator
	paused bool
}

// generator is the head of a source actor's chain: it makes rows whenever
// no message is waiting.
type generator interface {
	// generate emits the next chunk and returns 0, or returns how long
	// until rows are due (negative: none ever will be).
	generate(emit Emit) (time.Duration, error)
}

// setPre puts op in front of input number input.
func (a *actor) setPre(input int, op Operator) {
	if a.pre == nil {
		a.pre = map[int]Operator{}
	}
	a.pre[input] = op
}

// toChain returns the emitter that feeds input number input of the chain.
func (a *actor) toChain(input int) Emit {
	return func(c *Chunk) error { return a.chain[0].Process(input, c, a.emits[0]) }
}

// toChainWatermark returns the watermark emitter that feeds input number
// input of the chain.
func (a *actor) toChainWatermark(input int) WatermarkEmit {
	return func(w Watermark) error { return a.chainWatermark(0, input, w) }
}

// chainWatermark passes w to input number input of chain[i], which drops
// it unless it takes watermarks.
func (a *actor) chainWatermark(i, input int, w Watermark) error {
	op, ok := a.chain[i].(watermarker)
	if !ok {
		return nil
	}
	return op.Watermark(input, w, a.emits[i], a.wmEmits[i])
}

func (a *actor) init() {
	a.gen, _ = a.chain[0].(generator)
	a.emits = make([]Emit, len(a.chain))
	a.wmEmits = make([]WatermarkEmit, len(a.chain))
	for i := range a.chain {
		if i+1 < len(a.chain) {
			next := a.chain[i+1]
			nextEmit := &a.emits[i+1]
			a.emits[i] = func(c *Chunk) error { return next.Process(0, c, *nextEmit) }
			a.wmEmits[i] = func(w Watermark) error { return a.chainWatermark(i+1, 0, w) }
		}
		if src, ok := a.chain[i].(watermarkSource); ok {
			src.setWatermarkOut(func(w Watermark) error { return a.wmEmits[i](w) })
		}
	}
	slots := map[int]int{}
	for _, p := range a.ports {
		slots[p.input]++
	}
	a.wmIn = make([]*watermarkMin, len(slots))
	for input, n := range slots {
		a.wmIn[input] = newWatermarkMin(n)
	}
}

// watermark merges a watermark from one of the input's ports into the
// input's and passes that on when it advances.
func (a *actor) watermark(in inbound, w *Watermark) error {
	merged, ok := a.wmIn[in.input].add(in.slot, *w)
	if !ok {
		return nil
	}
	if pre, ok := a.pre[in.input]; ok {
		if wp, ok := pre.(watermarker); ok {
			return wp.Watermark(0, merged, a.toChain(in.input), a.toChainWatermark(in.input))
		}
		return nil
	}
	return a.chainWatermark(0, in.input, merged)
}

// run processes messages until a stop mutation for its job or an error.
func (a *actor) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	merged := make(chan inbound, len(a.ports))
	for _, p := range a.ports {
		go p.forward(ctx, merged)
	}
	last := len(a.chain) - 1
	a.emits[last] = func(c *Chunk) error { return a.out.push(ctx, c) }
	a.wmEmits[last] = func(w Watermark) error { return a.out.watermark(ctx, w) }
	arrived := 0
	for {
		in, err := a.receive(ctx, merged)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("actor %d: %w", a.id, err)
		}
		switch m := in.msg.(type) {
		case *Chunk:
			var err error
			if pre, ok := a.pre[in.input]; ok {
				err = pre.Process(0, m, a.toChain(in.input))
			} else {
				err = a.chain[0].Process(in.input, m, a.emits[0])
			}
			if err != nil {
				return fmt.Errorf("actor %d: %w", a.id, err)
			}
		case *Watermark:
			if err := a.watermark(in, m); err != nil {
				return fmt.Errorf("actor %d: %w", a.id, err)
			}
		case *Barrier:
			arrived++
			if arrived < len(a.ports) {
				continue
			}
			arrived = 0
			stop, err := a.barrier(ctx, m)
			if err != nil {
				return fmt.Errorf("actor %d: %w", a.id, err)
			}
			// The barrier has gone on downstream: write the state it
			// staged while the actors there go on.
			a.mgr.store.WriteBehind()
			a.mgr.collect(m.Epoch)
			if stop {
				return nil
			}
			for _, p := range a.ports {
				p.resume <- struct{}{}
			}
		}
	}
}

// backlogWait is how long a source actor waits before it looks again
// whether checkpoints have caught up.
const backlogWait = 10 * time.Millisecond

// receive returns the next message. While none is waiting, a source actor
// that is not paused and has consumers generates rows, a chunk at a time,
// looking for a message between chunks: barriers are never starved. It
// holds back while checkpoints lag behind (BarrierManager.backlogged).
func (a *actor) receive(ctx context.Context, merged <-chan inbound) (inbound, error) {
	for {
		var due <-chan time.Time
		if a.gen != nil && !a.paused && len(a.out.groups) > 0 {
			select {
			case in := <-merged:
				return in, nil
			default:
			}
			wait := backlogWait
			if !a.mgr.backlogged() {
				var err error
				if wait, err = a.gen.generate(a.emits[0]); err != nil {
					return inbound{}, err
				}
				if wait == 0 {
					continue
				}
			}
			if wait > 0 {
				// An unstopped timer is collected once unreferenced.
				due = time.NewTimer(wait).C
			}
		}
		select {
		case in := <-merged:
			return in, nil
		case <-due:
		case <-ctx.Done():
			return inbound{}, ctx.Err()
		}
	}
}

// barrier passes an aligned barrier through the chain and downstream,
// applying its mutation. It reports whether the actor stops.
func (a *actor) barrier(ctx context.Context, b *Barrier) (bool, error) {
	for input, pre := range a.pre {
		if err := pre.Barrier(b, a.toChain(input)); err != nil {
			return false, err
		}
	}
	for i, op := range a.chain {
		if err := op.Barrier(b, a.emits[i]); err != nil {
			return false, err
		}
	}
	if err := a.out.barrier(ctx, b); err != nil {
		return false, err
	}
	if mu, ok := b.Mutation.(*StopMutation); ok {
		// A stopping job's actors pass the barrier on to each other, then
		// end; other actors send it to them last, then stop sending.
		if slices.Contains(mu.Jobs, a.job) {
			return true, nil
		}
		a.out.groups = slices.DeleteFunc(a.out.groups, func(g *outputGroup) bool { return slices.Contains(mu.Jobs, g.job) })
	}
	if _, ok := b.Mutation.(*ResumeMutation); ok {
		a.paused = false
	}
	if mu, ok := b.Mutation.(*AddMutation); ok {
		for _, s := range mu.Subscribers[a] {
			g := s.group()
			g.job = s.job
			a.out.groups = append(a.out.groups, g)
			// The new consumers' first message is this barrier.
			if err := g.barrier(ctx, b); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// forward moves messages from the port's queue to the actor, pausing after
// each barrier until the actor has aligned it.
func (p *inputPort) forward(ctx context.Context, merged chan<- inbound) {
	for {
		var m Message
		select {
		case m = <-p.ch:
		case <-ctx.Done():
			return
		}
		select {
		case merged <- inbound{p.input, p.slot, m}:
		case <-ctx.Done():
			return
		}
		if _, ok := m.(*Barrier); ok {
			select {
			case <-p.resume:
			case <-ctx.Done():
				return
			}
		}
	}
}
