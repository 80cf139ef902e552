package sql

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/cluster"
	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DML runs on the node that runs its table's writer (DESIGN.md §9): a
// session elsewhere forwards the statement there, with its parameters,
// or, for COPY, with the rows it read.

const (
	sqlService      = "streamdb.sql"
	methodForwarded = "/" + sqlService + "/DML"
)

// dmlRequest is a DML statement forwarded to its table's writer.
type dmlRequest struct {
	SQL string `json:"sql"`
	// ParamOIDs and Params are the statement's parameter types and values
	// (types.AppendRow).
	ParamOIDs []types.OID `json:"param_oids,omitempty"`
	Params    []byte      `json:"params,omitempty"`
	// Rows are a COPY's rows (types.AppendRow, one after another).
	Rows []byte `json:"rows,omitempty"`
	// CatalogIndex is the forwarding node's applied Raft index: the
	// writer runs the statement once its catalog is as recent.
	CatalogIndex uint64 `json:"catalog_index,omitempty"`
}

// dmlResponse is a forwarded statement's outcome: its row count, the
// epoch that committed it and the rows of its RETURNING list
// (types.AppendRow, one after another).
type dmlResponse struct {
	Count    int64  `json:"count"`
	Epoch    uint64 `json:"epoch"`
	Returned []byte `json:"returned,omitempty"`
}

// writer returns the node that runs table t's writer.
func (e *Engine) writer(t *meta.Table) string {
	return control.JobPlacement(e.Meta.Catalog(), t)[0]
}

// dmlTable returns the table a bound DML or COPY plan writes.
func dmlTable(plan any) *meta.Table {
	switch p := plan.(type) {
	case *planner.Insert:
		return p.Table
	case *planner.Update:
		return p.Table
	case *planner.Delete:
		return p.Table
	case *copyPlan:
		return p.ins.Table
	}
	panic(fmt.Sprintf("sql: unknown DML plan %T", plan))
}

func paramOIDs(ts []types.T) []types.OID {
	out := make([]types.OID, len(ts))
	for i, t := range ts {
		out[i] = t.OID()
	}
	return out
}

// forwardDML runs req on node and returns its row count and the epoch
// that committed it, out collecting the rows of its RETURNING list, once that epoch is committed on this node too (a read after it sees
// the write). While the node is down it waits for it to come back; if the
// connection breaks after the statement was sent, its outcome is unknown,
// as when a client's connection breaks.
func (e *Engine) forwardDML(ctx context.Context, node string, req *dmlRequest, out *returned) (int64, uint64, error) {
	addr, err := e.Meta.NodeAddr(node)
	if err != nil {
		return 0, 0, err
	}
	req.CatalogIndex = e.Meta.AppliedIndex()
	resp, err := cluster.Call[dmlResponse](ctx, e.Meta.Client(), addr, methodForwarded, req, cluster.WhenReachable)
	if status.Code(err) == codes.Unavailable {
		return 0, 0, pgerror.New(pgerror.CodeConnectionFailure, "the connection to node %s, which writes table rows of this statement, broke while it ran: whether it was applied is unknown", node).
			WithHint("Check the table's contents before retrying.")
	}
	if err == nil {
		err = out.decode(resp.Returned)
	}
	if err != nil {
		return 0, 0, err
	}
	return resp.Count, resp.Epoch, e.stream.WaitCommitted(ctx, resp.Epoch)
}

// dmlService runs DML forwarded from other nodes.
func (e *Engine) dmlService() *grpc.ServiceDesc {
	return cluster.Service(sqlService, []grpc.MethodDesc{
		cluster.Unary("DML", e.runForwarded),
	}, nil)
}

// runForwarded runs a forwarded statement in a session of its own.
func (e *Engine) runForwarded(ctx context.Context, req *dmlRequest) (*dmlResponse, error) {
	if err := e.Meta.WaitApplied(ctx, req.CatalogIndex); err != nil {
		return nil, err
	}
	s := &Session{e: e, user: meta.BootstrapRole, vars: newVars(nil, e.opts.Version, meta.BootstrapRole, true), tx: 'I'}
	stmts, err := s.prepare(ctx, req.SQL, req.ParamOIDs)
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, pgerror.New(pgerror.CodeInternal, "a forwarded statement must be one statement, not %d", len(stmts))
	}
	st := stmts[0].(*statement)
	if req.Rows != nil {
		x, ok := st.parsed.Utility.(*parser.Copy)
		if !ok {
			return nil, pgerror.New(pgerror.CodeInternal, "forwarded rows without a COPY statement")
		}
		ci, err := s.copyFrom(req.SQL, x)
		if err != nil {
			return nil, err
		}
		ts := make([]types.T, len(ci.cols))
		for i, c := range ci.cols {
			ts[i] = c.T
		}
		var rows [][]types.Datum
		var arena types.RowArena
		err = types.DecodeRowBlockInto(req.Rows, ts, &arena, func(row []types.Datum) error {
			rows = append(rows, row)
			return nil
		})
		if err != nil {
			return nil, err
		}
		n, epoch, err := e.runDML(s.newCtx(ctx, nil), &copyPlan{ins: ci.ins, rows: rows}, nil)
		return &dmlResponse{Count: n, Epoch: epoch}, err
	}
	params, err := types.DecodeRow(req.Params, st.ParamTypes(), nil)
	if err != nil {
		return nil, err
	}
	// The statement is alone in its transaction, as the forwarding session
	// found it.
	rows, err := st.run(pgwire.WithLastBeforeSync(ctx), func() {}, params)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	resp := &dmlResponse{Count: s.lastCount, Epoch: s.lastEpoch}
	for {
		row, err := rows.Next(ctx)
		if err != nil || row == nil {
			return resp, err
		}
		resp.Returned = types.AppendRow(resp.Returned, row)
	}
}
