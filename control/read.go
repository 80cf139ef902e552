package control

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// scanBatch is the bytes of keys and values a remote scan sends at once.
const scanBatch = 64 << 10

const (
	readService = "streamdb.read"
	methodScan  = "/" + readService + "/Scan"
)

var scanStream = grpc.StreamDesc{StreamName: "Scan", ServerStreams: true}

// Read request formats (scanRequest.Version).
const (
	// readKeys asks for the keys and values of a range: each frame holds
	// uvarint-length-prefixed keys and values, one after another. Requests
	// of this format carry no version.
	readKeys = 0
	// readRows asks for the rows of a table that a pushed scan keeps
	// (exec.Pushdown): each frame is a row block (types.DecodeRowBlock).
	readRows = 1
)

// scanRequest asks a node for the keys of [Lower, Upper) live at Epoch in
// its own store or, of format readRows, for the rows of Rows' table there
// that Rows keeps.
//
// VNodes, if set, are the vnodes the node owns of the table at Epoch
// (vnodeSet): it reads only those, its store may hold others' leftovers.
type scanRequest struct {
	Lower   []byte         `json:"lower"`
	Upper   []byte         `json:"upper"`
	Epoch   uint64         `json:"epoch"`
	Version int            `json:"version,omitempty"`
	Rows    *exec.Pushdown `json:"rows,omitempty"`
	VNodes  vnodeSet       `json:"vnodes,omitempty"`
}

// ReadStats counts what a node's reader received from other nodes' stores
// since the node started: scans (one per node read), frames and bytes.
type ReadStats struct {
	Scans, Frames, Bytes int64
}

// Reader reads a relation's committed state across the cluster (batch
// queries, backfills): a table written by a parallel fragment is read on
// each node for the vnodes that node's actors owned at the read's epoch
// (a node may still hold, or already hold, others: a migration's copy
// before its switch, an old owner's before it drops it); one written by a
// singleton fragment, or by a table's writer, on the node that runs it.
type Reader struct {
	self   string
	meta   *meta.Meta
	client *cluster.Client
	local  *storage.Engine
	// owners returns the node of each vnode of a table at an epoch, if a
	// parallel fragment writes it (dataflow.Runtime.TableOwners); nil:
	// none does.
	owners func(table uint32, epoch uint64) (nodes []string, partitioned bool, err error)
	// scans, frames and bytes count what remote scans received.
	scans, frames, bytes atomic.Int64
	// gone are the ranges this node dropped after they moved away: reads
	// of epochs before their switch are refused.
	goneMu sync.Mutex
	gone   []goneRange
}

// goneRange is a range this node dropped, which moved away at the switch
// of epoch before.
type goneRange struct {
	r      storage.VNodeRange
	before uint64
}

// maxGone bounds the dropped ranges remembered: a read that old has long
// ended.
const maxGone = 4096

var (
	_ storage.Reader = (*Reader)(nil)
	_ exec.RowReader = (*Reader)(nil)
)

// NewReader returns node self's reader over its store local.
func NewReader(self string, m *meta.Meta, local *storage.Engine) *Reader {
	return &Reader{self: self, meta: m, client: m.Client(), local: local}
}

// Scan implements storage.Reader: the keys of every node that holds part
// of the table, merged in key order (a backfill resumes after the last key
// it read), the other nodes' read in parallel with this one's.
func (r *Reader) Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	holders, err := r.holders(lower, epoch)
	if err != nil {
		return err
	}
	return tooOld(r.scan(holders, lower, upper, epoch, fn))
}

// scan is Scan over holders.
func (r *Reader) scan(holders []holder, lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	parts, stop := r.fetch(holders, &scanRequest{Lower: lower, Upper: upper, Epoch: epoch})
	defer stop()
	var sources []func() (key, value []byte, ok bool, err error)
	if mine, ok := r.mine(holders); ok {
		local, unpin, err := r.ownedPinned(mine.vnodes, lower, epoch)
		if err != nil {
			return err
		}
		defer unpin()
		var scanErr error
		next, stopLocal := iter.Pull2(func(yield func(key, value []byte) bool) {
			scanErr = local.Scan(lower, upper, epoch, func(k, v []byte) error {
				if !yield(k, v) {
					return errFound
				}
				return nil
			})
		})
		defer stopLocal()
		sources = append(sources, func() ([]byte, []byte, bool, error) {
			k, v, ok := next()
			if !ok && scanErr != errFound {
				return nil, nil, false, scanErr
			}
			return k, v, ok, nil
		})
	}
	for _, p := range parts {
		sources = append(sources, p.pairs())
	}
	return mergePairs(sources, fn)
}

// mergePairs passes the pairs of sources, each in key order, to fn in key
// order. A source's pair stays valid until it is asked for the next.
func mergePairs(sources []func() (key, value []byte, ok bool, err error), fn func(key, value []byte) error) error {
	type head struct {
		key, value []byte
		next       func() ([]byte, []byte, bool, error)
	}
	var heads []head
	for _, next := range sources {
		k, v, ok, err := next()
		if err != nil {
			return err
		}
		if ok {
			heads = append(heads, head{k, v, next})
		}
	}
	for len(heads) > 0 {
		i := 0
		for j := 1; j < len(heads); j++ {
			if bytes.Compare(heads[j].key, heads[i].key) < 0 {
				i = j
			}
		}
		if err := fn(heads[i].key, heads[i].value); err != nil {
			return err
		}
		k, v, ok, err := heads[i].next()
		if err != nil {
			return err
		}
		if ok {
			heads[i].key, heads[i].value = k, v
		} else {
			heads = slices.Delete(heads, i, i+1)
		}
	}
	return nil
}

// ScanRows implements exec.RowReader: this node's part, all of it (the
// filter above the scan applies to it), then each other node's, which
// runs p over its own store and sends what p keeps.
func (r *Reader) ScanRows(p *exec.Pushdown, epoch uint64, fn func(row []types.Datum) error) error {
	req := &scanRequest{Epoch: epoch, Version: readRows, Rows: p}
	local := func(st storage.Reader) error { return exec.ScanTable(st, p.TableID, p.Types, p.RowBlocks, epoch, fn) }
	return tooOld(r.gather(storage.TablePrefix(p.TableID), req, local, func(_ string, frame []byte) error {
		return types.DecodeRowBlock(frame, p.Types, fn)
	}))
}

// Stats returns what the reader has received from other nodes.
func (r *Reader) Stats() ReadStats {
	return ReadStats{Scans: r.scans.Load(), Frames: r.frames.Load(), Bytes: r.bytes.Load()}
}

// prefetchFrames is how many frames of each other node's part of a read
// may wait for the reader: the nodes send at once, in parallel, while
// this node reads its own part.
const prefetchFrames = 4

// remotePart is another node's part of a read: its frames, fetched ahead.
type remotePart struct {
	node   string
	frames chan []byte
	err    error // set before frames closes
}

// fetch starts reading req from every node of holders but this one (each
// for the vnodes it holds), in parallel, up to prefetchFrames ahead of the
// reader; stop ends the reads not taken to the end and waits for them.
func (r *Reader) fetch(holders []holder, req *scanRequest) (parts []*remotePart, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	for _, h := range holders {
		if h.node == r.self {
			continue
		}
		node := h.node
		req := *req
		req.VNodes = h.vnodes
		p := &remotePart{node: node, frames: make(chan []byte, prefetchFrames)}
		parts = append(parts, p)
		go func() {
			defer close(p.frames)
			p.err = r.remoteScan(ctx, node, &req, func(frame []byte) error {
				select {
				case p.frames <- frame:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		}()
	}
	return parts, func() {
		cancel()
		for _, p := range parts {
			for range p.frames {
			}
		}
	}
}

// pairs returns the part's keys and values one at a time, in the order
// the node sent them.
func (p *remotePart) pairs() func() (key, value []byte, ok bool, err error) {
	var b []byte
	return func() ([]byte, []byte, bool, error) {
		for len(b) == 0 {
			f, more := <-p.frames
			if !more {
				return nil, nil, false, p.err
			}
			b = f
		}
		k, rest, ok := cutBytes(b)
		if !ok {
			return nil, nil, false, fmt.Errorf("control: undecodable read from node %s", p.node)
		}
		v, rest, ok := cutBytes(rest)
		if !ok {
			return nil, nil, false, fmt.Errorf("control: undecodable read from node %s", p.node)
		}
		b = rest
		return k, v, true, nil
	}
}

// gather reads a table (the one key lower starts) from every node that
// holds part of it, in no particular order: local reads this node's part
// while the others answer req in parallel (see fetch); then decode takes
// each other node's frames in turn. Everything the caller is given comes
// on its goroutine.
func (r *Reader) gather(lower []byte, req *scanRequest, local func(storage.Reader) error, decode func(node string, frame []byte) error) error {
	holders, err := r.holders(lower, req.Epoch)
	if err != nil {
		return err
	}
	parts, stop := r.fetch(holders, req)
	defer stop()
	if mine, ok := r.mine(holders); ok {
		st, unpin, err := r.ownedPinned(mine.vnodes, lower, req.Epoch)
		if err != nil {
			return err
		}
		err = local(st)
		unpin()
		if err != nil {
			return err
		}
	}
	for _, p := range parts {
		for frame := range p.frames {
			if err := decode(p.node, frame); err != nil {
				return err
			}
		}
		if p.err != nil {
			return p.err
		}
	}
	return nil
}

// Get returns the value of key live at epoch: a point read of this
// node's store when the key can be nowhere else, else a scan of the
// nodes that may hold it, this node first.
func (r *Reader) Get(key []byte, epoch uint64) (value []byte, ok bool, err error) {
	holders, err := r.holders(key, epoch)
	if err != nil {
		return nil, false, err
	}
	if mine, ok := r.mine(holders); ok && (len(holders) == 1 || mine.vnodes.has(keyVNode(key))) {
		st, err := r.owned(mine.vnodes, key, epoch)
		if err != nil {
			return nil, false, err
		}
		value, ok, err := st.Get(key, epoch)
		return value, ok, tooOld(err)
	}
	err = r.scan(holders, key, append(slices.Clip(key), 0), epoch, func(_, v []byte) error {
		value, ok = bytes.Clone(v), true
		return errFound
	})
	if err == errFound {
		err = nil
	}
	return value, ok, err
}

// keyVNode returns the vnode of a user key (-1 if it has none).
func keyVNode(key []byte) int {
	if len(key) < 6 {
		return -1
	}
	return int(binary.BigEndian.Uint16(key[4:]))
}

// errFound ends a scan early: Get's at its key, a merged one's local part
// when the merge stops.
var errFound = errors.New("found")

// TableDiskUsage implements storage.Reader: this node's part (an
// estimate for planning).
func (r *Reader) TableDiskUsage(id uint32) (uint64, error) { return r.local.TableDiskUsage(id) }

// TableBytes returns the bytes this node's store holds of a table.
func (r *Reader) TableBytes(id uint32) (uint64, error) { return r.local.TableBytes(id) }

// VNodeDiskUsage estimates the bytes one vnode of a table takes in this
// node's store.
func (r *Reader) VNodeDiskUsage(id uint32, vnode uint16) (uint64, error) {
	return r.local.VNodeDiskUsage(id, vnode)
}

// holder is a node that holds part of a table: the vnodes it owns of it
// (nil: all it holds).
type holder struct {
	node   string
	vnodes vnodeSet
}

// holders returns the nodes whose stores hold keys of the table that key
// starts with, as of epoch, this node first: for a table a parallel
// fragment writes, each node running an owner of its vnodes at epoch,
// with those vnodes; for another table of a view or of a table fed by
// DML, the node of the job's first actor slot (which runs its writer);
// for one of a source or a table with a connector, each node its job
// runs on; just this one for a table no job writes.
func (r *Reader) holders(key []byte, epoch uint64) ([]holder, error) {
	self := []holder{{node: r.self}}
	if len(key) < 4 {
		return self, nil
	}
	id := binary.BigEndian.Uint32(key)
	var out []holder
	if r.owners != nil {
		nodes, partitioned, err := r.owners(id, epoch)
		if errors.Is(err, dataflow.ErrOwnersForgotten) {
			return nil, pgerror.New(pgerror.CodeSerializationFailure, "the key groups this query read moved between nodes since its snapshot").
				WithHint("Run the query again.")
		}
		if partitioned {
			byNode := map[string]vnodeSet{}
			for v, nd := range nodes {
				if byNode[nd] == nil {
					byNode[nd] = newVNodeSet()
					out = append(out, holder{node: nd, vnodes: byNode[nd]})
				}
				byNode[nd].add(v)
			}
		}
	}
	if out == nil {
		cat := r.meta.Catalog()
		t := relationOf(cat, id)
		if t == nil {
			return self, nil
		}
		place := JobPlacement(cat, t)
		if wholeAtSlotZero(t) {
			// Another node's copy is one a move of slot 0 left behind.
			place = place[:1]
		}
		seen := map[string]bool{}
		for _, n := range place {
			if !seen[n] {
				seen[n] = true
				out = append(out, holder{node: n})
			}
		}
	}
	for i, h := range out {
		if h.node == r.self {
			out[0], out[i] = out[i], out[0]
		}
	}
	return out, nil
}

// mine returns this node's part among holders.
func (r *Reader) mine(holders []holder) (holder, bool) {
	for _, h := range holders {
		if h.node == r.self {
			return h, true
		}
	}
	return holder{}, false
}

// vnodeSet is a set of vnodes, a bit each.
type vnodeSet []byte

func newVNodeSet() vnodeSet { return make(vnodeSet, (rowkey.VNodes+7)/8) }

func (s vnodeSet) add(v int) { s[v/8] |= 1 << (v % 8) }

func (s vnodeSet) has(v int) bool { return v >= 0 && v/8 < len(s) && s[v/8]&(1<<(v%8)) != 0 }

// runs calls fn with each run [lo, hi) of consecutive vnodes in s.
func (s vnodeSet) runs(fn func(lo, hi int) error) error {
	for v := 0; v < rowkey.VNodes; {
		if !s.has(v) {
			v++
			continue
		}
		lo := v
		for v < rowkey.VNodes && s.has(v) {
			v++
		}
		if err := fn(lo, v); err != nil {
			return err
		}
	}
	return nil
}

// owned returns this node's store as a read of vnodes of the table key
// starts with at epoch sees it: only those vnodes (all with nil). A read
// of vnodes this node dropped, before the switch that moved them away, is
// refused: a read that old must run again.
func (r *Reader) owned(vnodes vnodeSet, key []byte, epoch uint64) (storage.Reader, error) {
	if vnodes == nil || len(key) < 4 {
		return r.local, nil
	}
	id := binary.BigEndian.Uint32(key)
	r.goneMu.Lock()
	defer r.goneMu.Unlock()
	for _, g := range r.gone {
		if g.r.Table != id || epoch >= g.before {
			continue
		}
		for v := int(g.r.Lo); v < int(g.r.Hi); v++ {
			if vnodes.has(v) {
				return nil, pgerror.New(pgerror.CodeSerializationFailure, "the key groups this query read moved to another node while it ran").
					WithHint("Run the query again.")
			}
		}
	}
	return ownedStore{r.local, id, vnodes}, nil
}

// Hold keeps the versions of this node's store that reads at epoch need
// until release: for a statement whose scans come one after another while
// its client takes its rows at its own pace. If the collector has passed
// epoch already, nothing is held and the reads fail (ownedPinned).
func (r *Reader) Hold(epoch uint64) (release func()) {
	unpin, err := r.local.Pin(epoch)
	if err != nil {
		return func() {}
	}
	return unpin
}

// tooOld returns err, as snapshot_too_old if it is storage.ErrCollected:
// a read at an epoch older than the versions storage still keeps.
func tooOld(err error) error {
	if errors.Is(err, storage.ErrCollected) {
		return pgerror.New(pgerror.CodeSnapshotTooOld, "the state this query reads is older than this node keeps").
			WithHint("Run the query again.")
	}
	return err
}

// ownedPinned is owned for a read of several iterators, over time: it
// pins epoch in this node's store (storage.Engine.Pin) until unpin.
func (r *Reader) ownedPinned(vnodes vnodeSet, key []byte, epoch uint64) (st storage.Reader, unpin func(), err error) {
	if unpin, err = r.local.Pin(epoch); err != nil {
		return nil, nil, tooOld(err)
	}
	if st, err = r.owned(vnodes, key, epoch); err != nil {
		unpin()
		return nil, nil, err
	}
	return st, unpin, nil
}

// dropped records that this node drops ranges, which moved away at the
// switch of epoch.
func (r *Reader) dropped(ranges []storage.VNodeRange, epoch uint64) {
	r.goneMu.Lock()
	defer r.goneMu.Unlock()
	for _, rg := range ranges {
		r.gone = append(r.gone, goneRange{rg, epoch})
	}
	if len(r.gone) > maxGone {
		r.gone = slices.Clone(r.gone[len(r.gone)-maxGone:])
	}
}

// ownedStore reads a node's store for some vnodes of one table.
type ownedStore struct {
	e      *storage.Engine
	table  uint32
	vnodes vnodeSet
}

// Scan implements storage.Reader: the keys of [lower, upper) in the
// store's vnodes, in key order.
func (o ownedStore) Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	return o.vnodes.runs(func(lo, hi int) error {
		l, u := storage.AppendKey(nil, o.table, uint16(lo), nil), storage.AppendKey(nil, o.table, uint16(hi), nil)
		if bytes.Compare(lower, l) > 0 {
			l = lower
		}
		if bytes.Compare(upper, u) < 0 {
			u = upper
		}
		if bytes.Compare(l, u) >= 0 {
			return nil
		}
		return o.e.Scan(l, u, epoch, fn)
	})
}

// Get implements storage.Reader: a point read of key if its vnode is one
// of the store's.
func (o ownedStore) Get(key []byte, epoch uint64) ([]byte, bool, error) {
	if !o.vnodes.has(keyVNode(key)) {
		return nil, false, nil
	}
	return o.e.Get(key, epoch)
}

// TableDiskUsage implements storage.Reader.
func (o ownedStore) TableDiskUsage(id uint32) (uint64, error) { return o.e.TableDiskUsage(id) }

// relationOf returns the relation whose job writes table id (its own rows
// or one of its state tables).
func relationOf(cat *meta.Catalog, id uint32) *meta.Table {
	if t, ok := cat.TableByID(id); ok {
		return t
	}
	for _, t := range cat.Tables() {
		for _, s := range t.StateTables {
			if s == id {
				return t
			}
		}
	}
	return nil
}

// remoteScan sends req to node and passes each frame of the answer to
// frame, which may keep it, until ctx ends.
func (r *Reader) remoteScan(ctx context.Context, node string, req *scanRequest, frame func([]byte) error) error {
	addr, err := r.meta.NodeAddr(node)
	if err != nil {
		return err
	}
	cc, err := r.client.Conn(addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := cc.NewStream(ctx, &scanStream, methodScan)
	if status.Code(err) == codes.Unavailable {
		return pgerror.New(pgerror.CodeConnectionFailure, "node %s, which holds part of the relation read, cannot be reached: %v", node, err).
			WithHint("Run the query again once the node is up (SHOW NODES).")
	}
	if err != nil {
		return fmt.Errorf("control: read from node %s: %w", node, err)
	}
	if err := s.SendMsg(req); err != nil {
		return fmt.Errorf("control: read from node %s: %w", node, err)
	}
	if err := s.CloseSend(); err != nil {
		return err
	}
	r.scans.Add(1)
	for {
		var f cluster.Frame
		if err := s.RecvMsg(&f); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("control: read from node %s: %w", node, err)
		}
		r.frames.Add(1)
		r.bytes.Add(int64(len(f.B)))
		if err := frame(f.B); err != nil {
			return err
		}
	}
}

// cutBytes splits a uvarint-length-prefixed byte string off b.
func cutBytes(b []byte) ([]byte, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// service serves other nodes' reads of this node's store.
func (r *Reader) service() *grpc.ServiceDesc {
	s := scanStream
	s.Handler = func(_ any, ss grpc.ServerStream) error {
		var req scanRequest
		if err := ss.RecvMsg(&req); err != nil {
			return err
		}
		var buf []byte
		// flush sends buf once it holds a frame's worth.
		flush := func() error {
			if len(buf) < scanBatch {
				return nil
			}
			err := ss.SendMsg(&cluster.Frame{B: buf})
			buf = nil // gRPC may still hold it
			return err
		}
		key := req.Lower
		if req.Rows != nil {
			key = storage.TablePrefix(req.Rows.TableID)
		}
		st, unpin, err := r.ownedPinned(req.VNodes, key, req.Epoch)
		if err != nil {
			return err
		}
		defer unpin()
		switch {
		case req.Version == readKeys && req.Rows == nil:
			err = st.Scan(req.Lower, req.Upper, req.Epoch, func(key, value []byte) error {
				buf = binary.AppendUvarint(buf, uint64(len(key)))
				buf = append(buf, key...)
				buf = binary.AppendUvarint(buf, uint64(len(value)))
				buf = append(buf, value...)
				return flush()
			})
		case req.Version == readRows && req.Rows != nil:
			err = req.Rows.Serve(ss.Context(), st, req.Epoch, func(row []types.Datum) error {
				buf = types.AppendRow(buf, row)
				return flush()
			})
		default:
			err = fmt.Errorf("control: read request of unknown format %d", req.Version)
		}
		if err != nil {
			return err
		}
		if len(buf) > 0 {
			return ss.SendMsg(&cluster.Frame{B: buf})
		}
		return nil
	}
	return cluster.Service(readService, nil, []grpc.StreamDesc{s})
}
