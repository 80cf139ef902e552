package sql

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/expr"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// createTable adds the table t to the catalog and starts its writer; it
// returns nil when IF NOT EXISTS found the name taken. owned are the
// sequences of its serial and identity columns.
func (s *Session) createTable(ctx context.Context, t *meta.Table, owned []meta.OwnedSequence, ifNotExists bool) (*meta.Table, error) {
	m := s.e.Meta
	defer s.e.stream.LockJobs()()
	if t.Watermark != nil {
		var err error
		if t.Watermark.StateTable, err = m.AllocIDs(ctx, 1); err != nil {
			return nil, err
		}
	}
	t.Placement = []string{s.e.writerNode(t.Name)}
	created, err := m.CreateTableWithSequences(ctx, t, owned, ifNotExists)
	if err != nil || created == nil {
		return nil, err
	}
	if _, err := s.e.ctrl.StartTable(ctx, created, created.Placement[0]); err != nil {
		return nil, err
	}
	return created, nil
}

// createTableAs runs CREATE TABLE ... AS query: a table (without a primary
// key) of the query's columns, then INSERT INTO it the query's rows,
// tagged SELECT n as in PostgreSQL.
func (s *Session) createTableAs(ctx context.Context, x *parser.CreateTableAs) (pgwire.Rows, error) {
	schema, node, _, err := s.bindDefinition(s.e.Meta.Catalog(), x.Name, x.Query)
	if err != nil {
		return nil, err
	}
	var cols []planner.Column
	for _, c := range node.Columns() {
		if !c.Hidden {
			cols = append(cols, c)
		}
	}
	if len(x.Columns) > len(cols) {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "too many column names were specified")
	}
	if err := planner.CheckStorable(cols); err != nil {
		return nil, err
	}
	t := &meta.Table{Schema: schema, Name: x.Name.Name, Kind: meta.KindTable, HiddenRowID: true, Owner: s.currentRole()}
	for i, c := range cols {
		name := c.Name
		if i < len(x.Columns) {
			name = x.Columns[i]
		}
		typ := c.T
		if typ.Family == types.Unknown {
			typ = types.TText
		}
		t.Columns = append(t.Columns, meta.Column{Name: name, Type: typ})
	}
	created, err := s.createTable(ctx, t, nil, x.IfNotExists)
	if err != nil {
		return nil, err
	}
	if created == nil || x.NoData {
		return done("CREATE TABLE AS"), nil
	}
	// The rows go in as INSERT INTO the new table of the query would put
	// them: one write path, forwarded to the table's writer node if need be.
	insert := fmt.Sprintf("INSERT INTO %s.%s %s", expr.QuoteIdent(schema), expr.QuoteIdent(t.Name), x.Query.SQL)
	if _, err := s.runInternal(ctx, insert); err != nil {
		return nil, err
	}
	return done(fmt.Sprintf("SELECT %d", s.lastCount)), nil
}
