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
	slot int
	// resume lets the port's forwarder go on after a barrier; quit ends
	// it (the upstream actor has sent its last message).
	resume, quit chan struct{}
}

func newPort(ch chan Message, input int) *inputPort {
	return &inputPort{ch: ch, input: input, resume: make(chan struct{}), quit: make(chan struct{})}
}

// actor runs one fragment's pipeline over the vnodes it owns: it merges
// its input queues with barrier alignment, drives the operator chain and
// dispatches the output.
type actor struct {
	id  int
	job uint32
	// node runs the actor ("": this one); on other nodes' runtimes it is
	// a stand-in that never runs, which names the actor's queues.
	node string
	// frag and born, with job and slot, name the actor alike on every
	// node (actorRef).
	frag int
	born uint64
	// slot names the actor within its fragment; specs build its chain.
	slot  int
	specs []Spec
	// inputs are the fragment's inputs, whose distribution keys tell the
	// vnode of each row that arrives (vnodeGate).
	inputs []InputSpec
	ports  []*inputPort
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
	// loads counts the Loaded messages of each input.
	loads loadState
	// gen is the head of a source actor's chain, which makes rows itself;
	// paused holds it back until a ResumeMutation (a restarted job).
	gen    generator
	paused bool
	// ctx is the context of run, which output is sent under.
	ctx context.Context
	// owned are the vnodes the chain was last built for; tables its views
	// of its state tables, which outlive the chain (Env.StateTable).
	owned  *Bitmap
	tables map[uint32]*StateTable
	// gate, while the actor's handoffs at its last switch barrier are
	// pending, holds the rows of the vnodes it gained there.
	gate *vnodeGate
	// rows counts the rows the actor takes in and passes on, in its
	// fragment's counts.
	rows *rowCounts
}

// generator is the head of a source actor's chain: it makes rows whenever
// no message is waiting.
type generator interface {
	// generate emits the next chunk and returns 0, or returns how long
	// until rows are due (negative: none ever will be).
	generate(emit Emit) (time.Duration, error)
	// idle reports that the generator has nothing left to read (no
	// split, or every one done) until its actor is rebuilt: the actor
	// sends Idle after each barrier.
	idle() bool
}

// ref names a alike on every node.
func (a *actor) ref() actorRef {
	return actorRef{job: a.job, fragment: a.frag, slot: a.slot, born: a.born}
}

// setPre puts op in front of input number input.
func (a *actor) setPre(input int, op Operator) {
	if a.pre == nil {
		a.pre = map[int]Operator{}
	}
	a.pre[input] = op
	if src, ok := op.(loadSource); ok {
		src.setLoadedOut(func() error { return a.inputLoaded(input) })
	}
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

// build builds the actor's chain from its specs over env's vnodes and
// splits (reading their state from storage) and wires it.
func (a *actor) build(env *Env) error {
	closeChain(a.chain)
	a.owned = env.VNodes
	env.tables = a.tables
	defer func() { a.tables = env.tables }()
	chain := make([]Operator, 0, len(a.specs))
	for _, spec := range a.specs {
		op, err := spec.Build(env)
		if err != nil {
			return err
		}
		chain = append(chain, op)
	}
	a.chain = chain
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
	last := len(a.chain) - 1
	a.emits[last] = func(c *Chunk) error {
		a.rows.out.Add(int64(c.Len()))
		return a.out.push(a.ctx, c)
	}
	a.wmEmits[last] = func(w Watermark) error { return a.out.broadcast(a.ctx, &w) }
	return nil
}

// numberPorts numbers the ports of each input and starts merging their
// watermarks afresh (the input's merged watermark never regresses: each
// port must send one again before it moves on).
func (a *actor) numberPorts() {
	slots := map[int]int{}
	for _, p := range a.ports {
		p.slot = slots[p.input]
		slots[p.input]++
	}
	old := a.wmIn
	a.wmIn = make([]*watermarkMin, len(slots))
	a.loads = loadState{ports: make([]int, len(slots))}
	for input, n := range slots {
		a.wmIn[input] = newWatermarkMin(n)
		if input < len(old) {
			a.wmIn[input].keepOut(old[input])
		}
	}
}

// inputWatermark passes merged, the merged watermark of input number
// input that advanced, to the input's stage or the chain.
func (a *actor) inputWatermark(input int, merged Watermark) error {
	if pre, ok := a.pre[input]; ok {
		if wp, ok := pre.(watermarker); ok {
			return wp.Watermark(0, merged, a.toChain(input), a.toChainWatermark(input))
		}
		return nil
	}
	return a.chainWatermark(0, input, merged)
}

// mark handles a watermark, Idle or Loaded from a port: a watermark or
// Idle goes into the input's merged watermark, which is passed on when it
// advances.
func (a *actor) mark(in inbound) error {
	switch m := in.msg.(type) {
	case *Watermark:
		if merged, ok := a.wmIn[in.input].add(in.slot, *m); ok {
			return a.inputWatermark(in.input, merged)
		}
		return nil
	case *Idle:
		return a.wmIn[in.input].setIdle(in.slot, func(w Watermark) error { return a.inputWatermark(in.input, w) })
	}
	return a.portLoaded(in.input)
}

// run processes messages until a stop mutation for its job or an error.
func (a *actor) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer func() { closeChain(a.chain) }()
	a.ctx = ctx
	a.numberPorts()
	merged := make(chan inbound, len(a.ports))
	for _, p := range a.ports {
		go p.forward(ctx, merged)
	}
	arrived, expect := 0, 0
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
			a.rows.in.Add(int64(m.Len()))
			if err := a.chunk(ctx, in.input, m); err != nil {
				return fmt.Errorf("actor %d: %w", a.id, err)
			}
		case *Watermark, *Idle, *Loaded:
			// A watermark does not overtake held rows.
			if a.gate != nil && len(a.gate.held) > 0 {
				if err := a.openGate(ctx); err != nil {
					return fmt.Errorf("actor %d: %w", a.id, err)
				}
			}
			if err := a.mark(in); err != nil {
				return fmt.Errorf("actor %d: %w", a.id, err)
			}
		case *Barrier:
			mu, u := a.updateOf(m)
			if arrived == 0 {
				// Ports new at this barrier deliver it too.
				if u != nil && len(u.addPorts) > 0 {
					for _, p := range u.addPorts {
						go p.forward(ctx, merged)
					}
					a.ports = append(a.ports, u.addPorts...)
				}
				expect = len(a.ports)
			}
			arrived++
			if arrived < expect {
				continue
			}
			arrived = 0
			// The epoch's held rows go first; no reassignment finds a
			// gate open.
			if a.gate != nil {
				if err := a.openGate(ctx); err != nil {
					return fmt.Errorf("actor %d: %w", a.id, err)
				}
			}
			stop, err := a.barrier(ctx, m)
			if err != nil {
				return fmt.Errorf("actor %d: %w", a.id, err)
			}
			// The barrier has gone on downstream: write the state it
			// staged while the actors there go on.
			a.mgr.store.WriteBehind()
			if u != nil {
				if err := a.apply(ctx, mu, u); err != nil {
					return fmt.Errorf("actor %d: %w", a.id, err)
				}
			}
			a.mgr.collect(m.Epoch)
			if stop {
				return nil
			}
			if a.gen != nil && a.gen.idle() {
				// After each barrier: a consumer renumbers its ports at
				// one and forgets which were idle.
				if err := a.out.broadcast(ctx, &Idle{}); err != nil {
					return fmt.Errorf("actor %d: %w", a.id, err)
				}
			}
			for _, p := range a.ports {
				// A stopped forwarder (the runtime resets) takes no
				// resume.
				select {
				case p.resume <- struct{}{}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
		}
	}
}

// chunk passes a chunk from input number input to the chain (through the
// input's stage, if any). While a gate is up, only the rows of vnodes the
// actor kept go on; if the gate fills up, the actor opens it.
func (a *actor) chunk(ctx context.Context, input int, c *Chunk) error {
	if a.gate != nil {
		var full bool
		c, full = a.gate.split(input, c)
		if c != nil {
			if err := a.process(input, c); err != nil {
				return err
			}
		}
		if full {
			return a.openGate(ctx)
		}
		return nil
	}
	return a.process(input, c)
}

// process passes a chunk from input number input to the chain.
func (a *actor) process(input int, c *Chunk) error {
	if pre, ok := a.pre[input]; ok {
		return pre.Process(0, c, a.toChain(input))
	}
	return a.chain[0].Process(input, c, a.emits[0])
}

// openGate waits for the gate's handoffs, gets the cached state of the
// gained vnodes and passes the held rows on, in order.
func (a *actor) openGate(ctx context.Context) error {
	g := a.gate
	if err := g.wait(ctx); err != nil {
		return err
	}
	a.gate = nil
	if err := a.adopt(g.mu, g.handoffs, g.gained); err != nil {
		return err
	}
	for _, h := range g.held {
		if err := a.process(h.input, h.c); err != nil {
			return err
		}
	}
	return nil
}

// updateOf returns b's UpdateMutation and the actor's part of it, if any.
func (a *actor) updateOf(b *Barrier) (*UpdateMutation, *actorUpdate) {
	if mu, ok := b.Mutation.(*UpdateMutation); ok {
		return mu, mu.actors[a]
	}
	return nil, nil
}

// apply makes the actor's part of an UpdateMutation once it has passed
// the mutation's barrier on and written its state: ports of dropped
// upstream actors go; the cached state of the vnodes it loses is handed
// over; with new vnodes or splits, it rebuilds its operators from the
// state as of the barrier (keeping the cache of the vnodes it keeps) and
// gets the cached state of the vnodes it gains as mu.cache says once the
// actors it takes them from have handed over. An actor whose operators
// read state lazily (lazySpec) rebuilds them at once and puts up a gate
// that holds the rows of the gained vnodes until then; others wait before
// they rebuild.
func (a *actor) apply(ctx context.Context, mu *UpdateMutation, u *actorUpdate) error {
	if len(u.dropPorts) > 0 {
		a.ports = slices.DeleteFunc(a.ports, func(p *inputPort) bool {
			if slices.Contains(u.dropPorts, p.ch) {
				close(p.quit)
				return true
			}
			return false
		})
	}
	if len(u.addPorts)+len(u.dropPorts) > 0 {
		a.numberPorts()
	}
	if u.release == nil && u.env == nil {
		return nil
	}
	owned := a.owned
	if owned == nil {
		// A new actor.
		owned = NewBitmap(u.env.VNodes.Size())
	}
	var gained *Bitmap
	lost := owned
	if u.env != nil {
		gained, lost = u.env.VNodes.minus(owned), owned.minus(u.env.VNodes)
	}
	if u.release != nil {
		// Detached groups leave the cache's account at once (else the new
		// owners' reads would push the node over its budget); they are
		// handed over or become garbage.
		u.release.caches = map[uint32]map[uint16]*vnodeCache{}
		for id, t := range a.tables {
			u.release.caches[id] = t.detach(lost)
		}
		close(u.release.done)
	}
	if u.env == nil {
		return nil
	}
	g := &vnodeGate{mu: mu, handoffs: u.gains, gains: u.gains, gained: gained, groups: u.env.VNodeCount}
	lazy := false
	if len(u.gains) > 0 && lazyChain(a.specs) {
		g.keys, lazy = gateKeys(a.inputs)
	}
	if !lazy {
		if err := g.wait(ctx); err != nil {
			return err
		}
	}
	if err := a.build(u.env); err != nil {
		return err
	}
	if lazy {
		a.gate = g
		return nil
	}
	return a.adopt(mu, u.gains, gained)
}

// adopt gets the cached state of the vnodes in gained, handed over by
// gains (done), as mu.cache says.
func (a *actor) adopt(mu *UpdateMutation, gains []*handoff, gained *Bitmap) error {
	deadline := time.Now().Add(hotLoadTime)
	for id, t := range a.tables {
		switch mu.cache {
		case CacheHandover:
			for _, h := range gains {
				mu.counters.cacheBytes.Add(t.adopt(h.caches[id], gained))
				n, err := t.loadHot(h.hot, gained, deadline)
				if err != nil {
					return err
				}
				mu.counters.cacheBytes.Add(n)
			}
		case CacheEager:
			n, err := t.warm(gained)
			if err != nil {
				return err
			}
			mu.counters.cacheBytes.Add(n)
		}
	}
	return nil
}

// hotLoadTime bounds how long a gaining actor loads the hot groups of
// vnodes it gained from another node (StateTable.loadHot) before it opens
// their gate: about 400 groups of cold state; the rest are read on first
// use.
const hotLoadTime = 10 * time.Millisecond

// backlogWait is how long a source actor waits before it looks again
// whether checkpoints have caught up.
const backlogWait = 10 * time.Millisecond

// receive returns the next message. While none is waiting, a source actor
// that is not paused and has consumers generates rows, a chunk at a time,
// looking for a message between chunks: barriers are never starved. It
// holds back while checkpoints lag behind (BarrierManager.backlogged).
// Once a gate's handoffs are done, it opens the gate first.
func (a *actor) receive(ctx context.Context, merged <-chan inbound) (inbound, error) {
	for {
		var handedOver <-chan struct{}
		if a.gate != nil {
			if handedOver = a.gate.pending(); handedOver == nil {
				if err := a.openGate(ctx); err != nil {
					return inbound{}, err
				}
			}
		}
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
		case <-handedOver:
		case <-ctx.Done():
			return inbound{}, ctx.Err()
		}
	}
}

// closer is implemented by operators that hold resources beyond their
// state (a change reader's connections, a sink's delivery): close
// releases them when the operator is rebuilt or its actor stops.
type closer interface{ close() }

// closeChain closes the operators of chain that hold resources.
func closeChain(chain []Operator) {
	for _, op := range chain {
		if c, ok := op.(closer); ok {
			c.close()
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
	switch mu := b.Mutation.(type) {
	case *ResumeMutation:
		a.paused = false
	case *PauseMutation:
		a.paused = true
	case *UpdateMutation:
		if u := mu.actors[a]; u != nil {
			for _, g := range u.groups {
				if err := a.out.setGroup(ctx, g, b); err != nil {
					return false, err
				}
			}
			return u.stop, nil
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
			case <-p.quit:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}
