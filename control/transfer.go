package control

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/storage"
	"google.golang.org/grpc"
)

// transferSSTBytes bounds the SSTs a transfer sends: one per stream
// message, well under gRPC's message limit, so the stream's flow control
// bounds what is in flight.
const transferSSTBytes = 1 << 20

// transferBatchBytes is how much a pull receives before it ingests: the
// memory (and temporary disk) a transfer holds at once.
const transferBatchBytes = 64 << 20

const (
	transferService = "streamdb.transfer"
	methodExport    = "/" + transferService + "/Export"
	// transferVersion is the version of the export request.
	transferVersion = 1
)

var exportStream = grpc.StreamDesc{StreamName: "Export", ServerStreams: true}

// exportRequest asks a node for its state of Range that a holder of it as
// of epoch From lacks as of epoch To (storage.Engine.ExportVNodes).
type exportRequest struct {
	Version int                `json:"version"`
	Range   storage.VNodeRange `json:"range"`
	From    uint64             `json:"from"`
	To      uint64             `json:"to"`
}

// Transfer moves vnode ranges' state between nodes' stores (DESIGN.md §6,
// §9): a new owner pulls from the old one, which exports SSTs as of
// committed epochs while its actors run.
type Transfer struct {
	meta   *meta.Meta
	client *cluster.Client
	local  *storage.Engine
}

// NewTransfer returns the transfer of a node whose store is local.
func NewTransfer(m *meta.Meta, local *storage.Engine) *Transfer {
	return &Transfer{meta: m, client: m.Client(), local: local}
}

// Pull copies into this node's store node's state of r that a holder as
// of epoch from lacks as of epoch to (from = 0: everything, replacing what
// this store held of r), ingesting it in batches; it returns the bytes
// received.
func (t *Transfer) Pull(ctx context.Context, node string, r storage.VNodeRange, from, to uint64) (int64, error) {
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
		return 0, fmt.Errorf("control: pull %s from node %s: %w", r, node, err)
	}
	if err := s.SendMsg(&exportRequest{Version: transferVersion, Range: r, From: from, To: to}); err != nil {
		return 0, fmt.Errorf("control: pull %s from node %s: %w", r, node, err)
	}
	if err := s.CloseSend(); err != nil {
		return 0, err
	}
	var received int64
	var batch [][]byte
	batchBytes := 0
	replace := from == 0
	ingest := func() error {
		if len(batch) == 0 && !replace {
			return nil
		}
		err := t.local.IngestVNodes(ctx, r, batch, replace)
		batch, batchBytes, replace = nil, 0, false
		return err
	}
	for {
		var f cluster.Frame
		if err := s.RecvMsg(&f); err != nil {
			if errors.Is(err, io.EOF) {
				return received, ingest()
			}
			return received, fmt.Errorf("control: pull %s from node %s: %w", r, node, err)
		}
		received += int64(len(f.B))
		batch, batchBytes = append(batch, f.B), batchBytes+len(f.B)
		if batchBytes >= transferBatchBytes {
			if err := ingest(); err != nil {
				return received, err
			}
		}
	}
}

// service serves other nodes' pulls of this node's state.
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
		return t.local.ExportVNodes(req.Range, req.From, req.To, transferSSTBytes, func(sst []byte) error {
			return ss.SendMsg(&cluster.Frame{B: sst})
		})
	}
	return cluster.Service(transferService, nil, []grpc.StreamDesc{s})
}
