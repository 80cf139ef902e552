package dataflow

// Message is what flows between actors: a *Chunk or a *Barrier.
type Message interface{ isMessage() }

func (*Chunk) isMessage()   {}
func (*Barrier) isMessage() {}

// Barrier separates epochs. Every change before it belongs to epoch Epoch
// (or earlier); changes after it to a later epoch. Barriers flow through
// every actor; multi-input actors align them. A checkpoint barrier makes
// every stateful operator hand its state delta for the epoch to the store.
type Barrier struct {
	Epoch      uint64
	Checkpoint bool
	// Time is the epoch's clock, in microseconds since the Unix epoch: the
	// value now() takes in streaming jobs (temporal filters) from this
	// barrier on. Every actor of every job sees the same Time for an epoch,
	// and Time increases from one barrier to the next.
	Time int64
	// Mutation, if not nil, is applied by every actor exactly at this
	// barrier (add or stop a job, update vnode assignments, ...).
	Mutation Mutation
}

// Mutation changes the graph at a barrier.
type Mutation interface{ isMutation() }

// StopMutation stops the actors of the listed jobs after the barrier.
type StopMutation struct{ Jobs []uint32 }

func (*StopMutation) isMutation() {}

// ResumeMutation starts the sources of jobs restarted from committed
// state: they wait for it so that every restarted job consuming them is
// subscribed before they produce anything.
type ResumeMutation struct{}

func (*ResumeMutation) isMutation() {}

// PauseMutation holds back every source actor after the barrier until a
// ResumeMutation (a stop-the-world rescale).
type PauseMutation struct{}

func (*PauseMutation) isMutation() {}

// UpdateMutation changes the actors of running jobs at the barrier: new
// jobs join, fragments are reassigned. Each affected actor finds its
// change under its own pointer.
type UpdateMutation struct {
	actors map[*actor]*actorUpdate
	// cache says how new owners get the cached state of their vnodes.
	cache    CacheMode
	counters *rescaleCounters
}

func (*UpdateMutation) isMutation() {}

// actorUpdate is one actor's part of an UpdateMutation.
type actorUpdate struct {
	// groups replace the actor's output groups of the same edges, or are
	// added; the barrier goes to every consumer they add.
	groups []*outputGroup
	// addPorts deliver the barrier too (new upstream actors' first
	// message); dropPorts deliver it last (dropped upstream actors).
	addPorts  []*inputPort
	dropPorts []chan Message
	// stop: the barrier is the actor's last message.
	stop bool
	// env, if set, rebuilds the operators for new vnodes or splits from
	// the state as of the barrier, once every handoff in gains is done
	// (at once if they read state lazily: a gate holds the rows of the
	// gained vnodes until then).
	env   *Env
	gains []*handoff
	// release, if set, is done once the actor has written its state for
	// the barrier, with the caches of the vnodes it loses (handed over).
	release *handoff
}
