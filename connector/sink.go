package connector

import (
	"context"
	"strings"

	"github.com/streamdb/streamdb/connector/changes"
	"github.com/streamdb/streamdb/connector/kafkasink"
	"github.com/streamdb/streamdb/connector/pgsink"
	"github.com/streamdb/streamdb/pgerror"
)

// SinkWriter delivers a sink's committed changes to its target, exactly
// once: Write applies changes in one transaction of the target, skipping
// those of an epoch the target records as delivered for their vnode, and
// records upto for each of vnodes.
type SinkWriter interface {
	Write(ctx context.Context, vnodes []uint16, upto uint64, cs []changes.Change) error
	Close()
}

// Sink is a validated sink configuration.
type Sink struct {
	// Options are the WITH options as the connector resolved them.
	Options map[string]string
	open    func() (SinkWriter, error)
}

// NewWriter opens a writer of the sink (one per actor of its job).
func (s *Sink) NewWriter() (SinkWriter, error) { return s.open() }

// sinks are the sink connectors OpenSink knows.
var sinks = []string{"postgres", "kafka"}

// OpenSink validates the WITH options of sink name (catalog id id) whose
// rows have cols; appendOnly tells whether its stream only inserts. With
// check, it also checks the target (reachable, table and columns there).
func OpenSink(ctx context.Context, name string, id uint32, cols []Column, opts map[string]string, appendOnly, check bool) (*Sink, error) {
	conn, ok := opts[option]
	if !ok {
		return nil, pgerror.New(pgerror.CodeSyntaxError, "a sink needs the option %s", option).
			WithHint("Add WITH (connector = 'postgres', url = 'postgres://...', table = '...').")
	}
	ccols := make([]changes.Column, len(cols))
	for i, c := range cols {
		ccols[i] = changes.Column{Name: c.Name, Type: c.Type}
	}
	ident := changes.Identity(name, id)
	var target interface{ Check(context.Context) error }
	var open func() (SinkWriter, error)
	switch strings.ToLower(strings.TrimSpace(conn)) {
	case "postgres", "jdbc":
		cfg, err := pgsink.Parse(opts, ccols, appendOnly)
		if err != nil {
			return nil, err
		}
		target, open = cfg, func() (SinkWriter, error) { return cfg.NewWriter(ident), nil }
	case "kafka":
		cfg, err := kafkasink.Parse(opts, ccols, appendOnly)
		if err != nil {
			return nil, err
		}
		target, open = cfg, func() (SinkWriter, error) { return cfg.NewWriter(ident), nil }
	default:
		return nil, pgerror.New(pgerror.CodeInvalidParameterValue, "unknown sink connector %q in option %s", conn, option).
			WithHint("The sink connectors are %s.", strings.Join(sinks, ", "))
	}
	if check {
		if err := target.Check(ctx); err != nil {
			return nil, err
		}
	}
	return &Sink{Options: opts, open: open}, nil
}
