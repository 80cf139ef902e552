package control

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/streamdb/streamdb/connector"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/pgerror"
	"github.com/streamdb/streamdb/rowkey"
)

// ResolveSourceOptions checks the connector options with of a new source
// or table with a connector t (its columns set) and returns them resolved
// as its job opens them at every start: the split count (splits, unless
// they give one) and the creation time made explicit.
//
// A keyed connector (postgres-cdc) needs a table with a primary key, the
// upstream's; it is checked against the external system it reads. The
// others need a relation without one (rows get a hidden row id).
func ResolveSourceOptions(ctx context.Context, t *meta.Table, with map[string]string, splits int) (map[string]string, error) {
	src, err := connector.Open(connectorColumns(t), with, time.Now(), splits)
	if err != nil {
		return nil, err
	}
	if err := checkKeyed(t, src); err != nil {
		return nil, err
	}
	if src.Check != nil {
		ctx, cancel := context.WithTimeout(ctx, checkTimeout)
		defer cancel()
		if err := src.Check(ctx); err != nil {
			return nil, err
		}
	}
	return src.Options, nil
}

// checkTimeout bounds the check of a connector's external system.
const checkTimeout = 30 * time.Second

// checkKeyed checks that t has a primary key exactly if its connector
// src is keyed.
func checkKeyed(t *meta.Table, src *connector.Source) error {
	name := src.Options["connector"]
	what := "connector " + name
	if f := src.Options["format"]; f != "" && f != "plain" {
		what += " with FORMAT " + strings.ToUpper(f)
	}
	switch {
	case src.Keyed && t.Kind != meta.KindTable:
		return pgerror.New(pgerror.CodeFeatureNotSupported, "%s feeds tables only", what).
			WithHint("Use CREATE TABLE ... (..., PRIMARY KEY (...)) WITH (connector = '%s', ...).", name)
	case src.Keyed && len(t.PK) == 0:
		return pgerror.New(pgerror.CodeInvalidTableDefinition, "a table with %s needs a primary key", what).
			WithHint("Declare the primary key of the changes it reads, e.g. (id INT PRIMARY KEY, ...).")
	case src.Keyed && t.Watermark != nil:
		return pgerror.New(pgerror.CodeFeatureNotSupported, "a table with %s cannot declare a watermark", what).
			WithHint("Its changes update and delete rows by key; declare the watermark on a view or leave it out.")
	case !src.Keyed && len(t.PK) > 0:
		return pgerror.New(pgerror.CodeFeatureNotSupported, "a %s with %s cannot have a primary key", t.Kind, what).
			WithHint("Leave the primary key out: rows get a hidden row id.")
	}
	return nil
}

// ReleaseSource drops what the connector of t, a dropped source or table
// whose job stopped, created in its external system (a postgres-cdc
// table's replication slot and publication, unless the user named them).
func ReleaseSource(ctx context.Context, t *meta.Table) error {
	if t.Options["connector"] == "" {
		return nil
	}
	src, err := openSource(t)
	if err != nil || src.Release == nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	return src.Release(ctx)
}

// openSource opens the connector of source or table t with its recorded
// options.
func openSource(t *meta.Table) (*connector.Source, error) {
	return connector.Open(connectorColumns(t), t.Options, time.Time{}, 1)
}

// connectorColumns are a relation's columns a connector generates or
// delivers: the visible ones (all but a hidden row id or stream key).
func connectorColumns(t *meta.Table) []connector.Column {
	var cols []connector.Column
	for i, c := range t.Columns {
		if !c.Hidden {
			cols = append(cols, connector.Column{Name: c.Name, Type: c.Type, Key: slices.Contains(t.PK, i)})
		}
	}
	return cols
}

// sourceGraph returns the job of a source or of a table with a connector,
// described by ref: its actors read the connector's splits (from their
// committed offsets), make the rows' watermarks if it declares one, and,
// for a table, materialize the rows (upserting a keyed connector's
// changes).
func sourceGraph(t *meta.Table, ref *dataflow.TableRef) (*dataflow.GraphSpec, error) {
	src, err := openSource(t)
	if err != nil {
		return nil, err
	}
	spec := &dataflow.SourceSpec{Name: t.Name, Splits: src.Splits, Width: src.Width, StateTable: t.StateTables[0],
		Keyed: src.Keyed, NewSplits: func(ids []int) []dataflow.SplitReader {
			splits := src.NewSplits(ids)
			out := make([]dataflow.SplitReader, len(splits))
			for i, sp := range splits {
				out[i] = sp
			}
			return out
		}}
	chain := []dataflow.Spec{spec}
	if ref.Watermark != nil {
		chain = append(chain, ref.Watermark)
	}
	g := &dataflow.GraphSpec{VNodeCount: rowkey.VNodes, Fragments: []*dataflow.FragmentSpec{
		{ID: 0, Chain: chain, OutTypes: ref.Types},
	}}
	if t.Kind == meta.KindTable {
		g.Fragments = append(g.Fragments, &dataflow.FragmentSpec{
			ID:       1,
			Inputs:   []dataflow.InputSpec{{Fragment: 0, Dist: dataflow.DistHash, Keys: t.PK}},
			Chain:    []dataflow.Spec{&dataflow.MaterializeSpec{TableID: t.ID, PK: t.PK, Types: ref.Types, Upsert: src.Keyed}},
			OutTypes: ref.Types,
		})
	}
	return g, nil
}
