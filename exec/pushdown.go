package exec

import (
	"context"
	"errors"
	"time"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// Pushdown is the part of a table scan that the nodes holding the table's
// rows run before they send them to the node reading it: a filter that
// leaves rows out, and the columns read above the scan, the others sent
// as NULL. The reading node still applies the whole condition (the Filter
// above the scan), so a Pushdown only saves bytes and work, never changes
// a result or an error. It crosses the network as JSON.
type Pushdown struct {
	// TableID, Types and RowBlocks are the scan's: the table and how its
	// values decode.
	TableID   uint32    `json:"table"`
	Types     []types.T `json:"types"`
	RowBlocks bool      `json:"row_blocks,omitempty"`
	// Filter holds leading conjuncts, in order, of the condition above
	// the scan, each encoded by expr.Encode. A row they make false is left
	// out, as the whole condition is false for it whatever follows; a row
	// they make NULL only when they are the whole condition (Whole), since
	// a later conjunct might raise an error for it. A row whose
	// evaluation fails is sent, for the Filter above to raise the error.
	Filter [][]byte `json:"filter,omitempty"`
	Whole  bool     `json:"whole,omitempty"`
	// Needed, if set, marks the columns read above the scan: the others
	// are sent as NULL, trailing ones left out.
	Needed []bool `json:"needed,omitempty"`
	// Now is the statement's clock, for now() in Filter.
	Now time.Time `json:"now"`
	// Zone is the session's TimeZone for Filter ("": UTC).
	Zone string `json:"zone,omitempty"`
}

// RowReader is a storage.Reader that runs a table scan's Pushdown on the
// nodes that hold the table's rows (a cluster's reader).
type RowReader interface {
	// ScanRows calls fn with the live rows of p's table at epoch, but
	// those p lets a node leave out; the row passed to fn may be reused.
	ScanRows(p *Pushdown, epoch uint64, fn func(row []types.Datum) error) error
}

// ScanTable calls fn with each live row of table id in r at epoch, its
// values decoded as ts (from row blocks if rowBlocks); the row passed to
// fn is reused.
func ScanTable(r storage.Reader, id uint32, ts []types.T, rowBlocks bool, epoch uint64, fn func(row []types.Datum) error) error {
	row := make([]types.Datum, len(ts))
	return r.Scan(storage.TablePrefix(id), storage.TablePrefix(id+1), epoch, func(_, value []byte) error {
		if rowBlocks {
			return types.DecodeRowBlock(value, ts, fn)
		}
		var err error
		if row, err = types.DecodeRow(value, ts, row[:0]); err != nil {
			return err
		}
		return fn(row)
	})
}

// Serve runs p where the rows are: it calls fn with each live row of p's
// table in r, this node's store, at epoch that p's filter keeps, its
// columns not needed set to NULL and the trailing ones cut. The row
// passed to fn is reused.
func (p *Pushdown) Serve(ctx context.Context, r storage.Reader, epoch uint64, fn func(row []types.Datum) error) error {
	cond, err := p.filter()
	if err != nil {
		return err
	}
	width := len(p.Types)
	if p.Needed != nil {
		if len(p.Needed) != len(p.Types) {
			return errors.New("exec: pushed scan: needed columns do not match the table's")
		}
		width = 0
		for i, needed := range p.Needed {
			if needed {
				width = i + 1
			}
		}
	}
	c := expr.NewCtx(ctx, nil)
	c.Now = p.Now
	if p.Zone != "" {
		if c.Loc, _, err = types.ParseZone(p.Zone); err != nil {
			return err
		}
	}
	var k canceler
	return ScanTable(r, p.TableID, p.Types, p.RowBlocks, epoch, func(row []types.Datum) error {
		if err := k.check(c); err != nil {
			return err
		}
		if cond != nil && !p.keeps(c, cond, row) {
			return nil
		}
		row = row[:width]
		if p.Needed != nil {
			for i := range row {
				if !p.Needed[i] {
					row[i] = types.Null
				}
			}
		}
		return fn(row)
	})
}

// keeps reports whether the row must be sent: the filter is true for it,
// or its evaluation failed, or it is NULL and more conditions follow.
func (p *Pushdown) keeps(c *expr.Ctx, cond expr.Expr, row []types.Datum) bool {
	v, err := cond.Eval(c, row)
	switch {
	case err != nil:
		return true
	case v.IsNull():
		return !p.Whole
	}
	return v.Bool()
}

// filter decodes p.Filter into one condition, nil if it is empty.
func (p *Pushdown) filter() (expr.Expr, error) {
	if len(p.Filter) == 0 {
		return nil, nil
	}
	and := &expr.And{Args: make([]expr.Expr, len(p.Filter))}
	for i, b := range p.Filter {
		e, err := expr.Decode(b)
		if err != nil {
			return nil, err
		}
		if !readsOnly(e, p.Types) {
			return nil, errors.New("exec: pushed scan: the filter reads columns the table does not have")
		}
		and.Args[i] = e
	}
	return and, nil
}

// readsOnly reports whether e reads nothing but columns of types ts.
func readsOnly(e expr.Expr, ts []types.T) bool {
	ok := true
	expr.Walk(e, func(x expr.Expr) bool {
		if r, isRef := x.(*expr.ColRef); isRef {
			ok = r.Idx < len(ts) && r.T.WithoutMod() == ts[r.Idx].WithoutMod()
		}
		return ok
	})
	return ok
}
