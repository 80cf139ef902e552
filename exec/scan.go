package exec

import (
	"slices"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// TableScan reads every live row of a table at the statement's epoch.
type TableScan struct {
	TableID uint32
	Types   []types.T
	// RowBlocks: the table stores its rows in row blocks
	// (types.DecodeRowBlock).
	RowBlocks bool
	// Conds are the conjuncts, in order, of the condition of the Filter
	// right above the scan, if there is one; Needed, if set, marks the
	// columns the operators above read. A RowReader gets what of them
	// ships as a Pushdown; the scan may then leave out rows Conds rule
	// out, and give NULL for columns not needed.
	Conds  []expr.Expr
	Needed []bool
}

// Run implements Op.
func (s *TableScan) Run(c *expr.Ctx, emit Emit) error {
	env := EnvFrom(c.Context)
	if env == nil {
		return pgerror.New(pgerror.CodeInternal, "table scan without a storage environment")
	}
	var k canceler
	stop := errStop{}
	emitRow := func(row []types.Datum) error {
		if err := k.check(c); err != nil {
			return err
		}
		more, err := emit(row)
		if err != nil {
			return err
		}
		if !more {
			return stop
		}
		return nil
	}
	var changes *TableChanges
	if env.Overlay != nil {
		changes = env.Overlay(s.TableID)
	}
	var p *Pushdown
	rr, ok := env.Engine.(RowReader)
	if ok && !env.NoPushdown && changes == nil {
		p = s.pushdown(c)
	}
	var err error
	switch {
	case p != nil:
		err = rr.ScanRows(p, env.Epoch, emitRow)
	case changes != nil:
		err = ScanTable(env.Engine, s.TableID, s.Types, s.RowBlocks, env.Epoch, func(row []types.Datum) error {
			if changes.Replaced(row) {
				return nil
			}
			return emitRow(row)
		})
		for _, row := range changes.Rows {
			if err != nil {
				break
			}
			err = emitRow(row)
		}
	default:
		err = ScanTable(env.Engine, s.TableID, s.Types, s.RowBlocks, env.Epoch, emitRow)
	}
	if err == stop {
		return nil
	}
	return err
}

// pushdown returns the scan's Pushdown for c's statement: the leading
// conjuncts of Conds that ship, once c's parameters have their values,
// and the columns needed; nil if that leaves nothing to push.
func (s *TableScan) pushdown(c *expr.Ctx) *Pushdown {
	p := &Pushdown{TableID: s.TableID, Types: s.Types, RowBlocks: s.RowBlocks, Needed: s.Needed, Now: c.Now, Whole: true}
	if c.Loc != nil {
		p.Zone = c.Loc.String()
	}
	for _, cond := range s.Conds {
		b, ok := expr.Encode(expr.WithParams(cond, c.Params))
		if !ok || !readsOnly(cond, s.Types) {
			p.Whole = false
			break
		}
		p.Filter = append(p.Filter, b)
	}
	if len(p.Filter) == 0 && !slices.Contains(p.Needed, false) {
		return nil
	}
	return p
}

// errStop ends a storage scan early without an error.
type errStop struct{}

func (errStop) Error() string { return "stop" }

// estimateSample is how many rows EstimateRows counts before it
// extrapolates.
const estimateSample = 1000

// EstimateRows estimates how many live rows the table holds at env's
// epoch, for the planner: it counts up to estimateSample of them and, when
// there are more, scales that sample's bytes per row to the table's share
// of the storage files (a rough figure: memtables and old versions are
// not told apart).
func (s *TableScan) EstimateRows(env *Env) (float64, error) {
	rows, bytes := 0, 0
	count := func([]types.Datum) error {
		if rows++; rows >= estimateSample {
			return errStop{}
		}
		return nil
	}
	err := env.Engine.Scan(storage.TablePrefix(s.TableID), storage.TablePrefix(s.TableID+1), env.Epoch, func(key, value []byte) error {
		bytes += len(key) + len(value)
		if s.RowBlocks {
			return types.DecodeRowBlock(value, s.Types, count)
		}
		return count(nil)
	})
	if err != (errStop{}) {
		return float64(rows), err
	}
	disk, err := env.Engine.TableDiskUsage(s.TableID)
	return max(float64(rows), float64(disk)*float64(rows)/float64(bytes)), err
}
