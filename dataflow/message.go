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

// AddMutation starts new jobs: at this barrier the actors publishing the
// relations the jobs read start sending to the new jobs' actors (whose
// first message is this barrier).
type AddMutation struct {
	// Subscribers maps each publishing actor to the output groups it adds.
	Subscribers map[*actor][]*subscription
}

func (*AddMutation) isMutation() {}

// subscription is one consuming fragment's view of an upstream relation's
// output.
type subscription struct {
	job   uint32
	group func() *outputGroup
}
