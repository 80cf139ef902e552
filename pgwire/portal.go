package pgwire

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/types"
)

// portal is a bound statement: parameters and result formats fixed, rows
// pulled by Execute, possibly over several calls.
type portal struct {
	stmt    Statement // nil for an empty query
	params  []types.Datum
	cols    []Column
	formats []int16 // one per column; nil means text throughout

	// Set at the first Execute.
	began  time.Time
	ctx    context.Context
	cancel context.CancelCauseFunc
	rows   Rows
	done   bool // ran to completion; rows are closed
}

// context returns the portal's context, derived from parent at the first
// call: Open and Next see it, and it lives as long as the portal.
func (p *portal) context(parent context.Context) context.Context {
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancelCause(parent)
	}
	return p.ctx
}

// finish closes the rows of a portal that ran to completion.
func (p *portal) finish() {
	p.done = true
	p.closeRows()
}

// close releases the portal's rows and context.
func (p *portal) close() {
	p.closeRows()
	if p.cancel != nil {
		p.cancel(nil)
	}
}

func (p *portal) closeRows() {
	if p.rows != nil {
		rows := p.rows
		p.rows = nil
		rows.Close()
	}
}
