package control

import (
	"time"

	"github.com/streamdb/streamdb/connector"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/rowkey"
)

// ResolveSourceOptions checks the connector options with of a new source
// or table with a connector t (its columns set) and returns them resolved
// as its job opens them at every start: the split count (splits, unless
// they give one) and the creation time made explicit.
func ResolveSourceOptions(t *meta.Table, with map[string]string, splits int) (map[string]string, error) {
	src, err := connector.Open(connectorColumns(t), with, time.Now(), splits)
	if err != nil {
		return nil, err
	}
	return src.Options, nil
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
	for _, c := range t.Columns {
		if !c.Hidden {
			cols = append(cols, connector.Column{Name: c.Name, Type: c.Type})
		}
	}
	return cols
}

// sourceGraph returns the job of a source or of a table with a connector,
// described by ref: its actors read the connector's splits (from their
// committed offsets), make the rows' watermarks if it declares one, and,
// for a table, materialize the rows.
func sourceGraph(t *meta.Table, ref *dataflow.TableRef) (*dataflow.GraphSpec, error) {
	src, err := openSource(t)
	if err != nil {
		return nil, err
	}
	spec := &dataflow.SourceSpec{Name: t.Name, Splits: src.Splits, Width: src.Width, StateTable: t.StateTables[0],
		NewSplit: func(i int) dataflow.SplitReader { return src.NewSplit(i) }}
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
			Chain:    []dataflow.Spec{&dataflow.MaterializeSpec{TableID: t.ID, PK: t.PK, Types: ref.Types}},
			OutTypes: ref.Types,
		})
	}
	return g, nil
}
