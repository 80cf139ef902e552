package control

import (
	"context"

	"github.com/streamdb/streamdb/connector"
	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/meta"
	"github.com/streamdb/streamdb/types"
)

// CheckSink validates the WITH options of a new sink t (its columns set)
// and its target, and returns the options resolved.
func CheckSink(ctx context.Context, t *meta.Table, with map[string]string) (map[string]string, error) {
	s, err := connector.OpenSink(ctx, t.Name, t.ID, connectorColumns(t), with, t.AppendOnly, true)
	if err != nil {
		return nil, err
	}
	return s.Options, nil
}

// attachSink has the changelog of sink t's job g deliver to its target.
func attachSink(t *meta.Table, g *dataflow.GraphSpec) error {
	s, err := connector.OpenSink(context.Background(), t.Name, t.ID, connectorColumns(t), t.Options, t.AppendOnly, false)
	if err != nil {
		return err
	}
	rowTypes := make([]types.T, len(t.Columns))
	var visible []int
	for i, c := range t.Columns {
		rowTypes[i] = c.Type
		if !c.Hidden {
			visible = append(visible, i)
		}
	}
	for _, f := range g.Fragments {
		for _, spec := range f.Chain {
			if l, ok := spec.(*dataflow.ChangelogSpec); ok {
				l.Sink = func() (dataflow.SinkWriter, error) {
					w, err := s.NewWriter()
					return &sinkWriter{w: w, types: rowTypes, visible: visible}, err
				}
			}
		}
	}
	return nil
}

// sinkWriter delivers a sink log's blocks with a connector's writer.
type sinkWriter struct {
	w       connector.SinkWriter
	types   []types.T
	visible []int
}

// Write implements dataflow.SinkWriter.
func (s *sinkWriter) Write(ctx context.Context, vnodes []uint16, upto uint64, blocks []dataflow.ChangeBlock) error {
	var cs []changes.Change
	for _, b := range blocks {
		err := dataflow.DecodeChangelog(b.Value, s.types, func(op dataflow.Op, row []types.Datum) error {
			out := make([]types.Datum, len(s.visible))
			for i, c := range s.visible {
				out[i] = row[c]
			}
			cs = append(cs, changes.Change{VNode: b.VNode, Epoch: b.Epoch, Insert: op.IsInsert(), Row: out})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return s.w.Write(ctx, vnodes, upto, cs)
}

// Close implements dataflow.SinkWriter.
func (s *sinkWriter) Close() { s.w.Close() }
