package control

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync/atomic"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/exec"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
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
type scanRequest struct {
	Lower   []byte         `json:"lower"`
	Upper   []byte         `json:"upper"`
	Epoch   uint64         `json:"epoch"`
	Version int            `json:"version,omitempty"`
	Rows    *exec.Pushdown `json:"rows,omitempty"`
}

// ReadStats counts what a node's reader received from other nodes' stores
// since the node started: scans (one per node read), frames and bytes.
type ReadStats struct {
	Scans, Frames, Bytes int64
}

// Reader reads a relation's committed state across the cluster (batch
// queries, backfills): every node that runs an actor of the relation's
// job holds the key groups its actors own, and nothing of the others.
type Reader struct {
	self   string
	meta   *meta.Meta
	client *cluster.Client
	local  *storage.Engine
	// scans, frames and bytes count what remote scans received.
	scans, frames, bytes atomic.Int64
}

var (
	_ storage.Reader = (*Reader)(nil)
	_ exec.RowReader = (*Reader)(nil)
)

// NewReader returns node self's reader over its store local.
func NewReader(self string, m *meta.Meta, local *storage.Engine) *Reader {
	return &Reader{self: self, meta: m, client: m.Client(), local: local}
}

// Scan implements storage.Reader: this node's part, then each other
// node's. Keys come in order per node.
func (r *Reader) Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	req := &scanRequest{Lower: lower, Upper: upper, Epoch: epoch}
	return r.gather(lower, func() error { return r.local.Scan(lower, upper, epoch, fn) }, func(node string) error {
		return r.remoteScan(node, req, func(frame []byte) error { return splitPairs(node, frame, fn) })
	})
}

// ScanRows implements exec.RowReader: this node's part, all of it (the
// filter above the scan applies to it), then each other node's, which
// runs p over its own store and sends what p keeps.
func (r *Reader) ScanRows(p *exec.Pushdown, epoch uint64, fn func(row []types.Datum) error) error {
	req := &scanRequest{Epoch: epoch, Version: readRows, Rows: p}
	local := func() error { return exec.ScanTable(r.local, p.TableID, p.Types, p.RowBlocks, epoch, fn) }
	return r.gather(storage.TablePrefix(p.TableID), local, func(node string) error {
		return r.remoteScan(node, req, func(frame []byte) error { return types.DecodeRowBlock(frame, p.Types, fn) })
	})
}

// Stats returns what the reader has received from other nodes.
func (r *Reader) Stats() ReadStats {
	return ReadStats{Scans: r.scans.Load(), Frames: r.frames.Load(), Bytes: r.bytes.Load()}
}

// gather reads a table (the one key lower starts) from every node that
// holds part of it: local reads this node's part, remote another's.
func (r *Reader) gather(lower []byte, local func() error, remote func(node string) error) error {
	for _, node := range r.holders(lower) {
		var err error
		if node == r.self {
			err = local()
		} else {
			err = remote(node)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Get returns the value of key live at epoch, from the nodes that may
// hold it, this node first.
func (r *Reader) Get(key []byte, epoch uint64) (value []byte, ok bool, err error) {
	err = r.Scan(key, append(slices.Clip(key), 0), epoch, func(_, v []byte) error {
		value, ok = bytes.Clone(v), true
		return errFound
	})
	if err == errFound {
		err = nil
	}
	return value, ok, err
}

// errFound ends Get's scan at the key.
var errFound = errors.New("found")

// TableDiskUsage implements storage.Reader: this node's part (an
// estimate for planning).
func (r *Reader) TableDiskUsage(id uint32) (uint64, error) { return r.local.TableDiskUsage(id) }

// VNodeDiskUsage estimates the bytes one vnode of a table takes in this
// node's store.
func (r *Reader) VNodeDiskUsage(id uint32, vnode uint16) (uint64, error) {
	return r.local.VNodeDiskUsage(id, vnode)
}

// holders returns the nodes whose stores may hold keys of the table that
// key starts with: those running its relation's job, this node first;
// just this one for a table no job writes.
func (r *Reader) holders(key []byte) []string {
	if len(key) < 4 {
		return []string{r.self}
	}
	id := binary.BigEndian.Uint32(key)
	cat := r.meta.Catalog()
	t := relationOf(cat, id)
	if t == nil {
		return []string{r.self}
	}
	out := []string{}
	seen := map[string]bool{}
	for _, n := range JobPlacement(cat, t) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for i, n := range out {
		if n == r.self {
			out[0], out[i] = out[i], out[0]
		}
	}
	return out
}

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
// frame; the frame's bytes are reused after it returns.
func (r *Reader) remoteScan(node string, req *scanRequest, frame func([]byte) error) error {
	addr, err := r.meta.NodeAddr(node)
	if err != nil {
		return err
	}
	cc, err := r.client.Conn(addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
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
	var f cluster.Frame
	for {
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

// splitPairs passes the keys and values of a readKeys frame from node to
// fn.
func splitPairs(node string, b []byte, fn func(key, value []byte) error) error {
	for len(b) > 0 {
		k, rest, ok := cutBytes(b)
		if !ok {
			return fmt.Errorf("control: undecodable read from node %s", node)
		}
		v, rest, ok := cutBytes(rest)
		if !ok {
			return fmt.Errorf("control: undecodable read from node %s", node)
		}
		if err := fn(k, v); err != nil {
			return err
		}
		b = rest
	}
	return nil
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
		var err error
		switch {
		case req.Version == readKeys && req.Rows == nil:
			err = r.local.Scan(req.Lower, req.Upper, req.Epoch, func(key, value []byte) error {
				buf = binary.AppendUvarint(buf, uint64(len(key)))
				buf = append(buf, key...)
				buf = binary.AppendUvarint(buf, uint64(len(value)))
				buf = append(buf, value...)
				return flush()
			})
		case req.Version == readRows && req.Rows != nil:
			err = req.Rows.Serve(ss.Context(), r.local, req.Epoch, func(row []types.Datum) error {
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
