package dataflow

// Loaded follows, on a new job's stream, the last row of the snapshot its
// backfills read (DESIGN.md §5): every row of the relations the stream is
// computed from, as they stood when the job was created, has been sent
// before it; their later changes follow. A backfill marks its input
// loaded once done; an actor's input is loaded once each of its upstream
// actors sent Loaded, and an actor sends Loaded once all its inputs are
// loaded. Jobs restarted from committed state send none.
type Loaded struct{}

func (*Loaded) isMessage() {}

// loadWatcher is an Operator of a new job (Env.Creating) that waits for
// an input's snapshot before it acts on the other's rows.
type loadWatcher interface {
	// Loaded tells that input is loaded: its next rows are changes.
	Loaded(input int) error
}

// loadSource is an input stage (a backfill) that tells when its input is
// loaded.
type loadSource interface {
	setLoadedOut(out func() error)
}

// loadState counts, per input of an actor, the upstream actors that sent
// Loaded.
type loadState struct {
	// ports[i] counts the ports of input i that sent Loaded; inputs
	// counts the inputs loaded.
	ports  []int
	inputs int
}

// portLoaded records Loaded from one port of input: the input is loaded
// once all its ports sent it.
func (a *actor) portLoaded(input int) error {
	if _, ok := a.pre[input]; ok {
		return nil // the input's backfill tells
	}
	a.loads.ports[input]++
	if a.loads.ports[input] < a.inputPorts(input) {
		return nil
	}
	return a.inputLoaded(input)
}

// inputPorts returns how many ports input has.
func (a *actor) inputPorts(input int) int {
	n := 0
	for _, p := range a.ports {
		if p.input == input {
			n++
		}
	}
	return n
}

// inputLoaded tells the chain that input is loaded; once every input is,
// so is the chain's output, and Loaded goes downstream.
func (a *actor) inputLoaded(input int) error {
	if w, ok := a.chain[0].(loadWatcher); ok {
		if err := w.Loaded(input); err != nil {
			return err
		}
	}
	a.loads.inputs++
	if a.loads.inputs < len(a.loads.ports) {
		return nil
	}
	for _, op := range a.chain[1:] {
		if w, ok := op.(loadWatcher); ok {
			if err := w.Loaded(0); err != nil {
				return err
			}
		}
	}
	return a.out.broadcast(a.ctx, &Loaded{})
}
