package meta

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/streamdb/streamdb/pgerror"
)

// A command is sent again when the leader that received it failed or lost
// its leadership before answering; the entry may have committed all the
// same. So that it is applied once, each command carries a request id and
// the FSM remembers the outcomes of the last dedupeWindow ids: a repeat is
// answered with the first outcome and changes nothing. The memory is part
// of the FSM's state (snapshots carry it), so that every replica decides
// alike.

// dedupeWindow is how many request ids the FSM remembers: far more than
// the commands that can be in flight while a retry waits for a leader.
const dedupeWindow = 4096

// outcome is the remembered result of one command.
type outcome struct {
	ID    string          `json:"id"`
	Value json.RawMessage `json:"value,omitempty"`
	Err   *pgerror.Error  `json:"err,omitempty"`
}

// outcomes is the FSM's memory of recent commands, oldest first.
type outcomes struct {
	byID  map[string]*outcome
	order []*outcome
}

// lookup returns the remembered result of id as the FSM returns results:
// the value as JSON (see as) and the error.
func (o *outcomes) lookup(id string) (any, error, bool) {
	r, ok := o.byID[id]
	if !ok {
		return nil, nil, false
	}
	if r.Err != nil {
		return nil, r.Err, true
	}
	return r.Value, nil, true
}

// remember records the result of id, forgetting the oldest beyond the
// window.
func (o *outcomes) remember(id string, value any, err error) {
	r := &outcome{ID: id}
	if err != nil {
		if !errors.As(err, &r.Err) {
			r.Err = pgerror.New(pgerror.CodeInternal, "%s", err.Error())
		}
	} else if value != nil {
		raw, merr := json.Marshal(value)
		if merr != nil {
			r.Err = pgerror.New(pgerror.CodeInternal, "meta: result of %s not encodable: %v", id, merr)
		}
		r.Value = raw
	}
	o.add(r)
}

func (o *outcomes) add(r *outcome) {
	if o.byID == nil {
		o.byID = map[string]*outcome{}
	}
	o.byID[r.ID] = r
	o.order = append(o.order, r)
	if len(o.order) > dedupeWindow {
		delete(o.byID, o.order[0].ID)
		o.order = o.order[1:]
	}
}

// snapshot returns the remembered outcomes, oldest first.
func (o *outcomes) snapshot() []*outcome { return append([]*outcome(nil), o.order...) }

// restore replaces the memory with a snapshot's.
func (o *outcomes) restore(rs []*outcome) {
	*o = outcomes{}
	for _, r := range rs {
		o.add(r)
	}
}

// requestIDs names the commands of one node process: its id, a random
// boot nonce (a restarted node does not reuse ids) and a counter.
type requestIDs struct {
	prefix string
	next   atomic.Uint64
}

func newRequestIDs(node string) *requestIDs {
	return &requestIDs{prefix: node + "/" + newClusterID()[:8] + "/"}
}

func (r *requestIDs) new() string {
	return fmt.Sprintf("%s%d", r.prefix, r.next.Add(1))
}
