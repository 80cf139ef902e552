package control

import "github.com/streamdb/streamdb/meta"

// commitQueue decides when the epochs of one generation commit: an epoch
// commits once every node of the generation has sealed it, and epochs
// commit in order, each with the rescale step its barrier switched. A pure
// state machine: the controller feeds it seals and commits the epochs it
// hands back.
type commitQueue struct {
	nodes   map[string]bool
	seals   map[uint64]map[string]bool
	records map[uint64]*meta.RescaleStep
	// last is the last epoch handed out (or the generation's start).
	last uint64
}

// readyEpoch is an epoch to commit and the rescale step its commit
// records (nil for none).
type readyEpoch struct {
	epoch uint64
	step  *meta.RescaleStep
}

// newCommitQueue returns the queue of a generation of nodes whose epochs
// follow after.
func newCommitQueue(nodes []string, after uint64) *commitQueue {
	q := &commitQueue{nodes: map[string]bool{}, seals: map[uint64]map[string]bool{}, records: map[uint64]*meta.RescaleStep{}, last: after}
	for _, n := range nodes {
		q.nodes[n] = true
	}
	return q
}

// record has epoch's commit record step.
func (q *commitQueue) record(epoch uint64, step *meta.RescaleStep) { q.records[epoch] = step }

// seal records that node sealed epoch and returns the epochs that are now
// ready to commit, in order. Seals of other nodes than the generation's,
// and of epochs already handed out, change nothing.
func (q *commitQueue) seal(node string, epoch uint64) []readyEpoch {
	if !q.nodes[node] || epoch <= q.last {
		return nil
	}
	if q.seals[epoch] == nil {
		q.seals[epoch] = map[string]bool{}
	}
	q.seals[epoch][node] = true
	var ready []readyEpoch
	for next := q.last + 1; len(q.seals[next]) == len(q.nodes); next++ {
		ready = append(ready, readyEpoch{next, q.records[next]})
		delete(q.seals, next)
		delete(q.records, next)
		q.last = next
	}
	return ready
}
