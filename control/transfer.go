package control

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/storage"
	"google.golang.org/grpc"
)

// transferSSTBytes bounds the SSTs a transfer sends: one per stream
// message, well under gRPC's message limit, so the stream's flow control
// bounds what is in flight.
const transferSSTBytes = 1 << 20

// transferBatchBytes is how much a pull receives before it ingests: the
// temporary disk a transfer holds at once. Small ingests spread the work
// each one makes (a manifest sync, compactions) over the copy, where a
// large one's stalls the job's commits for hundreds of milliseconds.
const transferBatchBytes = 16 << 20

const (
	transferService = "streamdb.transfer"
	methodExport    = "/" + transferService + "/Export"
	methodPreCopy   = "/" + transferService + "/PreCopy"
	methodExcise    = "/" + transferService + "/Excise"
	methodHot       = "/" + transferService + "/Hot"
	// transferVersion is the version of the export request.
	transferVersion = 2
)

var exportStream = grpc.StreamDesc{StreamName: "Export", ServerStreams: true}

// exportRequest asks a node for its state of Ranges that a holder of them
// as of epoch From lacks as of epoch To (storage.Engine.ExportVNodes).
// With Wait, the node first waits until its actors losing the ranges'
// vnodes at the switch barrier of epoch To have written their state for
// it (a switch's delta: To is not committed yet).
type exportRequest struct {
	Version int                  `json:"version"`
	Ranges  []storage.VNodeRange `json:"ranges"`
	From    uint64               `json:"from"`
	To      uint64               `json:"to"`
	Wait    *releaseWait         `json:"wait,omitempty"`
}

// releaseWait names a switch whose losers an export waits for.
type releaseWait struct {
	Job   uint32 `json:"job"`
	Epoch uint64 `json:"epoch"`
}

// Transfer moves vnode ranges' state between nodes' stores (DESIGN.md §6,
// §9): a new owner pulls from the old one, which exports SSTs while its
// actors run. Before a switch the new owner pre-copies the moved vnodes as
// of committed epochs (PreCopy); at the switch it fetches what changed
// since (Fetch, the runtime's Migrator); once the switch is committed the
// old owner drops its copy (Excise).
type Transfer struct {
	// ctx ends when the node stops; spawn runs the delayed drops in the
	// background (the node waits for them as it stops).
	ctx    context.Context
	spawn  func(func())
	log    *slog.Logger
	self   string
	meta   *meta.Meta
	client *cluster.Client
	local  *storage.Engine
	rt     *dataflow.Runtime
	reader *Reader
	// shared, with migration_handoff = 'shared', gives a pre-copy
	// what the last durable checkpoint holds of its vnodes.
	shared *SharedStore

	// jobMu serializes, per job, the pre-copies, fetches and drops of its
	// vnodes on this node, which check what its actors own: a rescale run
	// by a node that lost track (a former leader's, one another rescale
	// overtook) never drops or overwrites state this node's actors own.
	jobMu sync.Map // uint32 -> *sync.Mutex

	mu sync.Mutex
	// copied records, per job and vnode, the epoch as of which this
	// node pre-copied the vnode's state, and from which node.
	copied map[jobVNode]preCopied
	// exported counts the bytes this node exported for each switch's
	// delta, which the excise of the switch reports.
	exported map[releaseWait]int64
	// pending names, per job and vnode, the drop scheduled here (by a
	// sequence number): a pre-copy of the vnode cancels it, since the
	// pre-copy replaces the copy anyway. dropped counts each vnode's
	// drops: a pre-copy that one overlapped is not recorded.
	pending map[jobVNode]uint64
	dropped map[jobVNode]uint64
	drops   uint64
}

type jobVNode struct {
	job   uint32
	vnode int
}

type preCopied struct {
	from  string
	epoch uint64
}

var _ dataflow.Migrator = (*Transfer)(nil)

// NewTransfer returns the transfer of node self, whose store is local, run
// by rt, read by reader, until ctx ends; spawn runs its background work.
func NewTransfer(ctx context.Context, spawn func(func()), self string, m *meta.Meta, local *storage.Engine, rt *dataflow.Runtime, reader *Reader, log *slog.Logger) *Transfer {
	return &Transfer{ctx: ctx, spawn: spawn, log: log, self: self, meta: m, client: m.Client(), local: local, rt: rt, reader: reader,
		copied: map[jobVNode]preCopied{}, exported: map[releaseWait]int64{}, pending: map[jobVNode]uint64{}, dropped: map[jobVNode]uint64{}}
}

// vnodeRanges returns the ranges of vnodes (sorted) in each of tables,
// contiguous vnodes in one range, in key order.
func vnodeRanges(tables []uint32, vnodes []int) []storage.VNodeRange {
	tables = slices.Sorted(slices.Values(tables))
	var out []storage.VNodeRange
	for _, t := range tables {
		for i := 0; i < len(vnodes); {
			j := i + 1
			for j < len(vnodes) && vnodes[j] == vnodes[j-1]+1 {
				j++
			}
			out = append(out, storage.VNodeRange{Table: t, Lo: uint16(vnodes[i]), Hi: uint16(vnodes[j-1] + 1)})
			i = j
		}
	}
	return out
}

// Pull copies into this node's store node's state that req names,
// ingesting it in batches beside what the store holds, and returns the
// bytes received.
func (t *Transfer) Pull(ctx context.Context, node string, req *exportRequest) (int64, error) {
	req.Version = transferVersion
	addr, err := t.meta.NodeAddr(node)
	if err != nil {
		return 0, err
	}
	cc, err := t.client.Conn(addr)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := cc.NewStream(ctx, &exportStream, methodExport)
	if err != nil {
		return 0, fmt.Errorf("control: pull from node %s: %w", node, err)
	}
	if err := s.SendMsg(req); err != nil {
		return 0, fmt.Errorf("control: pull from node %s: %w", node, err)
	}
	if err := s.CloseSend(); err != nil {
		return 0, err
	}
	var received int64
	rcv := t.local.NewReceiver()
	defer rcv.Close()
	var f cluster.Frame
	for {
		if err := s.RecvMsg(&f); err != nil {
			if errors.Is(err, io.EOF) {
				return received, rcv.Finish(ctx)
			}
			return received, fmt.Errorf("control: pull from node %s: %w", node, err)
		}
		received += int64(len(f.B))
		if err := rcv.Add(f.B); err != nil {
			return received, err
		}
		if rcv.Size() >= transferBatchBytes {
			if err := rcv.Finish(ctx); err != nil {
				return received, err
			}
		}
	}
}

// preCopyRounds bounds the rounds of a pre-copy. A round that copied less
// than preCopyDone bytes, or took less than preCopyRoundTime, ends it: the
// writes meanwhile are about as cheap for the switch to fetch as for
// another round, which costs an ingest (and its syncs, which delay every
// epoch's seal on a busy disk).
const (
	preCopyRounds    = 4
	preCopyDone      = 1 << 20
	preCopyRoundTime = 500 * time.Millisecond
)

// lockJob takes job's migration lock on this node.
func (t *Transfer) lockJob(job uint32) (unlock func()) {
	m, _ := t.jobMu.LoadOrStore(job, &sync.Mutex{})
	m.(*sync.Mutex).Lock()
	return m.(*sync.Mutex).Unlock
}

// PreCopy copies into this node's store node from's state of job's vnodes
// as of the committed epoch, in rounds, each the delta since the last,
// while the job runs; the switch that moves them here then fetches only
// what changed since the last round. Vnodes pre-copied from the same node
// before (a rescale copies all it moves at its start, then catches up
// before each step) go on from that copy's epoch; the others are copied
// whole, after what this store held of them is removed. It returns the
// bytes copied. Vnodes that actors here own already are refused (55006):
// the rescale asking is behind. The copy itself runs outside the job's
// lock (it only adds versions): pre-copies from several nodes run at
// once.
func (t *Transfer) PreCopy(ctx context.Context, job uint32, from string, vnodes []int) (int64, error) {
	tables := t.rt.JobTables(job)
	if len(tables) == 0 || len(vnodes) == 0 {
		return 0, nil
	}
	start := time.Now()
	unlock := t.lockJob(job)
	if owned := t.rt.OwnedHere(job, vnodes); len(owned) > 0 {
		unlock()
		return 0, pgerror.New(pgerror.CodeObjectInUse, "node %s owns vnodes %v of job %d already: another rescale moved them", t.self, owned, job)
	}
	t.mu.Lock()
	var fresh, held []int
	var since uint64
	drops := make([]uint64, len(vnodes))
	for i, v := range vnodes {
		jv := jobVNode{job, v}
		drops[i] = t.dropped[jv]
		if c, ok := t.copied[jv]; ok && c.from == from {
			if len(held) == 0 || c.epoch < since {
				since = c.epoch
			}
			held = append(held, v)
			continue
		}
		fresh = append(fresh, v)
		delete(t.copied, jv)
		delete(t.pending, jv)
	}
	t.mu.Unlock()
	// What this store held of the fresh vnodes goes first (a former
	// ownership's leftovers).
	if err := t.local.ExciseVNodes(ctx, vnodeRanges(tables, fresh)...); err != nil {
		unlock()
		return 0, err
	}
	unlock()
	var total, fromShared int64
	if v, _ := t.meta.Catalog().System(MigrationHandoffParam); v == HandoffShared && len(fresh) > 0 {
		// A handoff through shared storage: the durable checkpoint's
		// files give the state as of its epoch; the old owner sends only
		// what changed since.
		ranges := vnodeRanges(tables, fresh)
		sorted := slices.SortedFunc(slices.Values(ranges), func(a, b storage.VNodeRange) int {
			return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Lo, b.Lo))
		})
		var copied uint64
		var err error
		if copied, fromShared, err = t.shared.take(ctx, sorted); err != nil {
			return 0, err
		}
		if copied > 0 {
			// The fresh vnodes now hold the checkpoint's epoch; the
			// rounds bring them and the held ones up together.
			if len(held) == 0 || copied < since {
				since = copied
			}
			held, fresh = append(held, fresh...), nil
		}
	}
	copied := since
	for round := 0; round < preCopyRounds; round++ {
		to := t.rt.Barriers().Committed()
		if to <= copied && len(fresh) == 0 {
			break
		}
		began := time.Now()
		var n int64
		for _, part := range []struct {
			vnodes []int
			since  uint64
		}{{fresh, 0}, {held, copied}} {
			if len(part.vnodes) == 0 || part.since >= to {
				continue
			}
			got, err := t.Pull(ctx, from, &exportRequest{Ranges: vnodeRanges(tables, part.vnodes), From: part.since, To: to})
			n += got
			if err != nil {
				return total + n, err
			}
		}
		total += n
		held, fresh, copied = append(held, fresh...), nil, to
		if n < preCopyDone || time.Since(began) < preCopyRoundTime {
			break
		}
	}
	owned := t.rt.OwnedHere(job, vnodes)
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, v := range vnodes {
		// A drop of the vnode here meanwhile (by a rescale that fell
		// behind) may have removed what was copied, and a switch that
		// moved it here meanwhile made the copy this node's own state:
		// a later switch then copies it all.
		if jv := (jobVNode{job, v}); t.dropped[jv] == drops[i] && !slices.Contains(owned, v) {
			t.copied[jv] = preCopied{from, copied}
		}
	}
	t.log.Info("control: pre-copied moving vnodes", "job", job, "from", from, "vnodes", len(vnodes), "epoch", copied, "bytes", total, "shared_bytes", fromShared, "took", time.Since(start))
	return total, nil
}

// hotGroups bounds the hot groups a switch's delta brings from one node:
// their loads pause the gaining actor (about 10-30 µs each), as many
// reads on first use would have.
const hotGroups = 1024

// A pre-copy's export holds each SST back while the commit of this
// node's oldest uncommitted epoch lags behind its barrier more than twice
// as long as commits took when the export began, and more than
// preCopyLag (the job is short of CPU or disk), for at most preCopyHold:
// on a busy node the job's epochs come first (writers that wait for each
// commit slow down as soon as commits do), and the copy still advances.
const (
	preCopyLag  = 10 * time.Millisecond
	preCopyHold = time.Second
)

// yieldLag returns the commit lag an export that begins now yields at.
func (t *Transfer) yieldLag() time.Duration {
	return max(preCopyLag, 2*t.rt.Barriers().RecentLatency())
}

// yield waits while commits lag more than lag, at most preCopyHold.
func (t *Transfer) yield(ctx context.Context, lag time.Duration) error {
	until := time.Now().Add(preCopyHold)
	for t.rt.Barriers().CommitLag() > lag && time.Now().Before(until) {
		if err := sleep(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// Fetch implements dataflow.Migrator: it pulls m's delta since the
// vnodes' pre-copy (all of their state if any was not pre-copied from
// m.From) once m.From's losers have written it, and then the groups they
// had cached, hottest first. Without those (m.From could not say), the
// new owner reads each group on first use.
func (t *Transfer) Fetch(ctx context.Context, m dataflow.Migration) ([]dataflow.HotGroup, error) {
	if err := t.fetch(ctx, m); err != nil {
		return nil, err
	}
	hot, err := t.hotOn(ctx, m.From, &hotRequest{Job: m.Job, Epoch: m.Epoch, VNodes: m.VNodes})
	if err != nil {
		t.log.Warn("control: the hot groups of moved vnodes did not come; the new owner reads them on first use", "job", m.Job, "from", m.From, "err", err)
	}
	return hot, nil
}

// fetch pulls m's delta (Fetch).
func (t *Transfer) fetch(ctx context.Context, m dataflow.Migration) error {
	defer t.lockJob(m.Job)()
	t.mu.Lock()
	var from uint64
	for i, v := range m.VNodes {
		c, ok := t.copied[jobVNode{m.Job, v}]
		if !ok || c.from != m.From {
			c.epoch = 0
		}
		if i == 0 || c.epoch < from {
			from = c.epoch
		}
		delete(t.copied, jobVNode{m.Job, v})
	}
	t.mu.Unlock()
	start := time.Now()
	ranges := vnodeRanges(m.Tables, m.VNodes)
	if from == 0 {
		// Not pre-copied: all of it, after whatever this store held.
		t.mu.Lock()
		for _, v := range m.VNodes {
			delete(t.pending, jobVNode{m.Job, v})
		}
		t.mu.Unlock()
		if err := t.local.ExciseVNodes(ctx, ranges...); err != nil {
			return err
		}
	}
	n, err := t.Pull(ctx, m.From, &exportRequest{Ranges: ranges, From: from, To: m.Epoch,
		Wait: &releaseWait{Job: m.Job, Epoch: m.Epoch}})
	t.log.Info("control: fetched the switch's delta of moved vnodes", "job", m.Job, "from", m.From, "vnodes", len(m.VNodes), "since", from, "epoch", m.Epoch, "bytes", n, "took", time.Since(start), "err", err)
	return err
}

// exciseGrace is how long after a switch's epoch after commits the old
// owner keeps its copy: reads that chose an epoch before the switch just
// before it committed (a node learns of commits a moment apart) still
// find it. A read of the copy after it is dropped fails with 40001.
const exciseGrace = 5 * time.Second

// Excise has this node drop, after exciseGrace, its copy of job's vnodes,
// which moved to other nodes at the switch of epoch, now committed; reads
// of older epochs that would need it are refused from then on
// (Reader.dropped). Vnodes that actors here own again by then, or that a
// pre-copy here took up meanwhile (moving them back), are kept, and
// pre-copies of the others are forgotten. It returns at once, with the
// bytes this node exported for the switch's delta.
func (t *Transfer) Excise(ctx context.Context, job uint32, vnodes []int, epoch uint64) (int64, error) {
	t.mu.Lock()
	key := releaseWait{job, epoch}
	n := t.exported[key]
	delete(t.exported, key)
	t.drops++
	seq := t.drops
	for _, v := range vnodes {
		t.pending[jobVNode{job, v}] = seq
	}
	t.mu.Unlock()
	t.spawn(func() {
		if sleep(t.ctx, exciseGrace) != nil {
			return
		}
		if err := t.excise(job, vnodes, epoch, seq); err != nil {
			t.log.Warn("control: dropping moved vnodes' state failed; it stays unused", "job", job, "err", err)
		}
	})
	return n, nil
}

// excise drops this node's copy of job's vnodes moved away at epoch, the
// drop numbered seq: but those its actors own again, and those whose drop
// a pre-copy here cancelled since.
func (t *Transfer) excise(job uint32, vnodes []int, epoch, seq uint64) error {
	defer t.lockJob(job)()
	owned := t.rt.OwnedHere(job, vnodes)
	t.mu.Lock()
	vnodes = slices.DeleteFunc(slices.Clone(vnodes), func(v int) bool {
		return slices.Contains(owned, v) || t.pending[jobVNode{job, v}] != seq
	})
	for _, v := range vnodes {
		jv := jobVNode{job, v}
		delete(t.copied, jv)
		delete(t.pending, jv)
		t.dropped[jv]++
	}
	t.mu.Unlock()
	if len(vnodes) == 0 {
		return nil
	}
	ranges := vnodeRanges(t.rt.JobTables(job), vnodes)
	t.reader.dropped(ranges, epoch)
	return t.local.DropVNodes(ranges)
}

// forget drops the pre-copies this node recorded: a recovery may reset
// what they relied on.
func (t *Transfer) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.copied = map[jobVNode]preCopied{}
	t.exported = map[releaseWait]int64{}
}

// preCopyRequest asks node To to pre-copy Job's VNodes from node From.
type preCopyRequest struct {
	Job    uint32 `json:"job"`
	From   string `json:"from"`
	VNodes []int  `json:"vnodes"`
}

// exciseRequest asks a node to drop its copy of Job's VNodes, moved away
// at the switch of Epoch.
type exciseRequest struct {
	Job    uint32 `json:"job"`
	VNodes []int  `json:"vnodes"`
	Epoch  uint64 `json:"epoch"`
}

// hotRequest asks the old owner of Job's VNodes, which moved away at the
// switch of Epoch, for the groups it had cached.
type hotRequest struct {
	Job    uint32 `json:"job"`
	Epoch  uint64 `json:"epoch"`
	VNodes []int  `json:"vnodes"`
}

// hotOn asks node for the hot groups of req's vnodes.
func (t *Transfer) hotOn(ctx context.Context, node string, req *hotRequest) ([]dataflow.HotGroup, error) {
	if node == t.self {
		return t.rt.HotGroups(req.Job, req.Epoch, req.VNodes, hotGroups), nil
	}
	return callNode[[]dataflow.HotGroup](ctx, t.meta, t.client, node, methodHot, req)
}

// bytesResponse reports bytes copied or exported.
type bytesResponse struct {
	Bytes int64 `json:"bytes"`
}

// PreCopyOn has node to pre-copy job's vnodes from node from.
func (t *Transfer) PreCopyOn(ctx context.Context, to, from string, job uint32, vnodes []int) (int64, error) {
	if to == t.self {
		return t.PreCopy(ctx, job, from, vnodes)
	}
	resp, err := t.call(ctx, to, methodPreCopy, &preCopyRequest{Job: job, From: from, VNodes: vnodes})
	return resp.Bytes, err
}

// ExciseOn has node drop its copy of job's vnodes moved away at epoch.
func (t *Transfer) ExciseOn(ctx context.Context, node string, job uint32, vnodes []int, epoch uint64) (int64, error) {
	if node == t.self {
		return t.Excise(ctx, job, vnodes, epoch)
	}
	resp, err := t.call(ctx, node, methodExcise, &exciseRequest{Job: job, VNodes: vnodes, Epoch: epoch})
	return resp.Bytes, err
}

func (t *Transfer) call(ctx context.Context, node, method string, req any) (bytesResponse, error) {
	return callNode[bytesResponse](ctx, t.meta, t.client, node, method, req)
}

// service serves other nodes' pulls of this node's state and the steps of
// migrations the rescaling node asks of this one.
func (t *Transfer) service() *grpc.ServiceDesc {
	s := exportStream
	s.Handler = func(_ any, ss grpc.ServerStream) error {
		var req exportRequest
		if err := ss.RecvMsg(&req); err != nil {
			return err
		}
		if req.Version != transferVersion {
			return fmt.Errorf("control: an export request of version %d, this node speaks %d: run one release across the cluster", req.Version, transferVersion)
		}
		if req.Wait != nil {
			if err := t.rt.WaitReleased(ss.Context(), req.Wait.Job, req.Wait.Epoch); err != nil {
				return err
			}
		}
		release, err := t.holdVersions(req.From, req.To)
		if err != nil {
			return err
		}
		defer release()
		var sent int64
		lag := t.yieldLag()
		for _, r := range req.Ranges {
			err := t.local.ExportVNodes(r, req.From, req.To, transferSSTBytes, func(sst []byte) error {
				if req.Wait == nil {
					// A pre-copy yields to the job's epochs; a switch's
					// delta is what its epoch waits for.
					if err := t.yield(ss.Context(), lag); err != nil {
						return err
					}
				}
				sent += int64(len(sst))
				return ss.SendMsg(&cluster.Frame{B: sst})
			})
			if err != nil {
				return err
			}
		}
		if req.Wait != nil {
			t.mu.Lock()
			t.exported[*req.Wait] += sent
			t.mu.Unlock()
		}
		return nil
	}
	methods := []grpc.MethodDesc{
		cluster.Unary("PreCopy", func(ctx context.Context, req *preCopyRequest) (*bytesResponse, error) {
			n, err := t.PreCopy(ctx, req.Job, req.From, req.VNodes)
			return &bytesResponse{Bytes: n}, err
		}),
		cluster.Unary("Excise", func(ctx context.Context, req *exciseRequest) (*bytesResponse, error) {
			n, err := t.Excise(ctx, req.Job, req.VNodes, req.Epoch)
			return &bytesResponse{Bytes: n}, err
		}),
		cluster.Unary("Hot", func(ctx context.Context, req *hotRequest) (*[]dataflow.HotGroup, error) {
			hot, err := t.hotOn(ctx, t.self, req)
			return &hot, err
		}),
	}
	return cluster.Service(transferService, methods, []grpc.StreamDesc{s})
}

// exportHold is how long a node copying state to another keeps the
// versions that the next round's delta starts from.
const exportHold = 2 * time.Minute

// holdVersions keeps, on this node, what an export of the delta (from,
// to] reads and what the next round's delta, from to, reads after it:
// version collection stays at or before from while the export runs, and
// at or before to for exportHold after it (release starts that hold). A
// delta whose start was already collected past is refused: the copy must
// start again from nothing.
func (t *Transfer) holdVersions(from, to uint64) (release func(), err error) {
	unpinFrom := func() {}
	if from > 0 {
		if unpinFrom, err = t.local.Pin(from); err != nil {
			return nil, fmt.Errorf("control: %w: copy the state again from the start", err)
		}
	}
	// Held while the export runs too, however long it takes.
	unpinTo, err := t.local.Pin(to)
	if err != nil {
		unpinFrom()
		return nil, fmt.Errorf("control: %w: copy the state again from the start", err)
	}
	return func() {
		unpinFrom()
		time.AfterFunc(exportHold, unpinTo)
	}, nil
}
