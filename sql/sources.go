package sql

import (
	"context"
	"maps"

	"github.com/streamdb/streamdb/control"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
)

// createConnected runs CREATE SOURCE (kind KindSource) and CREATE TABLE
// WITH (connector = ...) (kind KindTable): it validates the connector's
// options, records the relation in the catalog with its resolved options
// and starts its job. A source stores nothing: its rows reach only the
// materialized views over it, from their creation on. A table stores them
// like DML rows; DML into it is refused (its rows are the connector's).
// Both are append-only, keyed by a hidden row id derived from each row's
// split and offset, except a table of a keyed connector (postgres-cdc),
// which has the upstream's primary key and takes its changes.
func (s *Session) createConnected(ctx context.Context, x *parser.CreateTable, kind meta.ObjectKind) (pgwire.Rows, error) {
	tag := "CREATE TABLE"
	if kind == meta.KindSource {
		tag = "CREATE SOURCE"
	}
	t, err := tableFromDef(x)
	if err != nil {
		return nil, err
	}
	keyed := len(t.PK) > 0
	t.Kind, t.AppendOnly, t.HiddenRowID = kind, !keyed, !keyed
	if t.Schema, err = s.createIn(s.e.Meta.Catalog(), parser.ObjectName{Schema: x.Schema, Name: x.Name}); err != nil {
		return nil, err
	}
	t.Owner = s.currentRole()
	par, err := s.streamingParallelism()
	if err != nil {
		return nil, err
	}
	e := s.e
	if t.Options, err = control.ResolveSourceOptions(ctx, t, connectorOptions(x), e.parallelism(par)); err != nil {
		return nil, err
	}
	t.Parallelism = par
	t.Placement = e.place(par)
	defer e.stream.LockJobs()()
	if _, ok := e.Meta.Catalog().Table(t.Schema, t.Name); ok && x.IfNotExists {
		return done(tag), nil
	}
	ids := 2
	if t.Watermark != nil {
		ids++
	}
	first, err := e.Meta.AllocIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	t.ID, t.StateTables = first, []uint32{first + 1}
	if t.Watermark != nil {
		t.Watermark.StateTable = first + 2
	}
	created, err := e.Meta.CreateTable(ctx, t, x.IfNotExists)
	if err != nil || created == nil {
		return done(tag), err
	}
	if _, err := e.ctrl.StartJob(ctx, created, control.JobAssignment(created), created.Placement, true); err != nil {
		return nil, err
	}
	return done(tag), nil
}

// connectorOptions are the WITH options of x with its FORMAT clause as
// the options format, encode and encode.*, which the connector checks.
func connectorOptions(x *parser.CreateTable) map[string]string {
	if x.Format == "" {
		return x.With
	}
	opts := maps.Clone(x.With)
	if opts == nil {
		opts = map[string]string{}
	}
	opts["format"], opts["encode"] = x.Format, x.Encode
	for k, v := range x.EncodeOptions {
		opts["encode."+k] = v
	}
	return opts
}
