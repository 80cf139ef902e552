package control

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/storage"
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

// scanRequest asks a node for the keys of [Lower, Upper) live at Epoch in
// its own store.
type scanRequest struct {
	Lower []byte `json:"lower"`
	Upper []byte `json:"upper"`
	Epoch uint64 `json:"epoch"`
}

// Reader reads a relation's committed state across the cluster (batch
// queries, backfills): every node that runs an actor of the relation's
// job holds the key groups its actors own, and nothing of the others.
type Reader struct {
	self   string
	meta   *meta.Meta
	client *cluster.Client
	local  *storage.Engine
}

var _ storage.Reader = (*Reader)(nil)

// NewReader returns node self's reader over its store local.
func NewReader(self string, m *meta.Meta, local *storage.Engine) *Reader {
	return &Reader{self: self, meta: m, client: m.Client(), local: local}
}

// Scan implements storage.Reader: this node's part, then each other
// node's. Keys come in order per node.
func (r *Reader) Scan(lower, upper []byte, epoch uint64, fn func(key, value []byte) error) error {
	for _, node := range r.holders(lower) {
		var err error
		if node == r.self {
			err = r.local.Scan(lower, upper, epoch, fn)
		} else {
			err = r.remoteScan(node, &scanRequest{Lower: lower, Upper: upper, Epoch: epoch}, fn)
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
	for _, node := range r.holders(key) {
		if node == r.self {
			value, ok, err = r.local.Get(key, epoch)
		} else {
			req := &scanRequest{Lower: key, Upper: append(slices.Clip(key), 0), Epoch: epoch}
			err = r.remoteScan(node, req, func(_, v []byte) error {
				value, ok = bytes.Clone(v), true
				return nil
			})
		}
		if ok || err != nil {
			return value, ok, err
		}
	}
	return nil, false, nil
}

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

func (r *Reader) remoteScan(node string, req *scanRequest, fn func(key, value []byte) error) error {
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
	var f cluster.Frame
	for {
		if err := s.RecvMsg(&f); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("control: read from node %s: %w", node, err)
		}
		for b := f.B; len(b) > 0; {
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
		err := r.local.Scan(req.Lower, req.Upper, req.Epoch, func(key, value []byte) error {
			buf = binary.AppendUvarint(buf, uint64(len(key)))
			buf = append(buf, key...)
			buf = binary.AppendUvarint(buf, uint64(len(value)))
			buf = append(buf, value...)
			if len(buf) < scanBatch {
				return nil
			}
			err := ss.SendMsg(&cluster.Frame{B: buf})
			buf = nil // gRPC may still hold it
			return err
		})
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
