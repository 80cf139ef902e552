package sql

import (
	"context"
	"maps"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
)

// createSink runs CREATE SINK: a job, planned from the sink's query like
// a materialized view's, writes the query's changes (its current rows
// first, then each committed epoch's changes) into the sink's log, from
// which its connector delivers them to the target exactly once.
func (s *Session) createSink(ctx context.Context, x *parser.CreateSink) (pgwire.Rows, error) {
	par, err := s.streamingParallelism()
	if err != nil {
		return nil, err
	}
	with := maps.Clone(x.With)
	if v, ok := with["parallelism"]; ok {
		if par, err = parseParallelism(v); err != nil {
			return nil, err
		}
		delete(with, "parallelism")
	}
	query := ""
	if x.Query != nil {
		query = x.Query.SQL
	} else {
		from := quoteIdent(x.From.Name)
		if x.From.Schema != "" {
			from = quoteIdent(x.From.Schema) + "." + from
		}
		query = "SELECT * FROM " + from
	}
	if _, ok := with[meta.ConnectorOption]; !ok {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "a sink needs the option %s", meta.ConnectorOption).
			WithHint("Add WITH (connector = 'postgres', url = 'postgres://...', table = '...').")
	}
	j := &plannedJob{kind: meta.KindSink, name: x.Name, ifNotExists: x.IfNotExists, sql: query, parallelism: par,
		check: func(t *meta.Table) error {
			opts, err := control.CheckSink(ctx, t, with)
			t.Options = opts
			return err
		}}
	if err := s.createPlanned(ctx, j); err != nil {
		return nil, err
	}
	return done("CREATE SINK"), nil
}
